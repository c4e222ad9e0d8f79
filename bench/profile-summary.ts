/**
 * Top frames of V8 CPU profiles (`node --cpu-prof`; the worker's with
 * `npm run bench -- --worker-node-arg=--cpu-prof --worker-node-arg=--cpu-prof-dir=<dir>`), one profile
 * per thread: the worker's main thread and one per workflow thread (each Temporal Worker has its own).
 *
 *   npx tsx bench/profile-summary.ts <dir or .cpuprofile files> [--top 25] [--from <ISO>] [--to <ISO>]
 *
 * Prints per profile: wall span, sampled CPU (all but idle), the groups below by self time and by
 * total time (a sample counts once for a group however many of its frames are on the stack), and the
 * top functions by self and total time. `--from`/`--to` keep only samples in that window (a
 * profile's timestamps are microseconds of the process's monotonic clock: the window is taken
 * relative to the profile's end, which is written when the worker stops, given as `--end <ISO>`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    from: { type: 'string' },
    to: { type: 'string' },
    end: { type: 'string' },
  },
});

/**
 * Groups, first match wins; tested against `url functionName` of a frame. Native frames have no url:
 * `runInContext` with an empty url is V8/Node's own entry into a context, where the SDK's timeout
 * (`isolateExecutionTimeout`) starts and joins a watchdog thread on every call.
 */
const GROUPS: [string, RegExp][] = [
  ['(garbage collector)', /^ \(garbage collector\)$/],
  ['(program): native, unattributed', /^ \(program\)$/],
  ['sandbox entry + vm timeout watchdog (runInContext, native)', /^(node:vm)? runInContext$/],
  ['context reuse: globals swapped per workflow (__TEMPORAL_CALL_INTO_SCOPE)', /^evalmachine\.<anonymous> /],
  [
    'promise hook: a stack trace per workflow promise (SDK, for stack trace queries)',
    /vm-shared\.js (init|getActivator|formatCallsiteName|settled|Error\.prepareStackTrace|\(anonymous\))$| get stack$|prepareStackTrace|source-map|cutoffStackTrace|^ RegExp: /,
  ],
  [
    'workflow creation: module evaluation, activator (per workflow)',
    /workflow-bundle.* (initRuntime|__webpack_require__.*|\.\/.*\.js|fixPrototypes|Activator|__exportStar|<instance_members_initializer>)$|reusable-vm\.js (createWorkflow|dispose)$/,
  ],
  ['workflow code: SDK activator, commands, our workflow, converters (bundle)', /workflow-bundle/],
  [
    'SDK vm glue (activate, conditions, conclude)',
    /@temporalio\/worker\/lib\/workflow\/(vm-shared|reusable-vm|vm)\.js/,
  ],
  [
    'thread messages: postMessage, structured clone, sink calls',
    /workflow-worker-thread|threaded-vm|node:internal\/worker|messageport|MessagePort|structuredClone| postMessage$|JSTransferable/,
  ],
  [
    'logging (pino, PinoTemporalLogger, SDK logger)',
    /pino|sonic-boom|fast-redact|observability\/logger|@temporalio\/(worker|common)\/lib\/logger| writev$/,
  ],
  ['metrics (prom-client, our metrics)', /prom-client|worker\/metrics/],
  ['payload codec + data converter', /converter|payload-codec|data-converter|payload-visitor/],
  ['JSON', /^ (parse|stringify)$/],
  ['protobuf (activations, completions)', /protobufjs|@temporalio\/proto|long\//],
  ['core bridge: native calls into the Rust core (poll, complete)', /core-bridge/],
  ['rxjs pipelines (SDK worker)', /rxjs/],
  [
    'callback HTTP (undici, sockets, signing, SSRF guard)',
    /undici|node:net|node:_http|node:http|node:internal\/(stream|net|dns|crypto|abort_controller|socketaddress)|webhook-signature|callback-guard|activities\/callback|node:crypto|dns| Hmac$|SocketAddress/,
  ],
  ['activity runtime (SDK)', /@temporalio\/(worker\/lib\/activity|activity)/],
  ['SDK worker: activations, workflow cache bookkeeping (other)', /@temporalio\/worker/],
  ['@temporalio/common (other)', /@temporalio/],
  ['node internals: async hooks, timers, promises, events', /^node:|internal\/| runMicrotasks$/],
];

function groupOf(frame: CallFrame): string {
  const key = `${frame.url} ${frame.functionName}`;
  for (const [name, pattern] of GROUPS) if (pattern.test(key)) return name;
  const place = frame.url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
  return place.startsWith('dist/') ? 'our service code (dist/)' : 'other: natives (wasm, anonymous builtins)';
}

const label = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${frame.lineNumber + 1}`;

function files(args: string[]): string[] {
  return args.flatMap((arg) =>
    statSync(arg).isDirectory()
      ? readdirSync(arg)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => join(arg, f))
      : [arg],
  );
}

const ms = (us: number) => (us / 1000).toFixed(0);

for (const file of files(positionals)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Sample times (µs, profile clock): the delta before a sample is the time it stands for.
  let t = profile.startTime;
  const endIso = flags.end ? Date.parse(flags.end) : undefined;
  const toClock = (iso: string | undefined) =>
    iso && endIso !== undefined ? profile.endTime - (endIso - Date.parse(iso)) * 1000 : undefined;
  const from = toClock(flags.from) ?? -Infinity;
  const to = toClock(flags.to) ?? Infinity;
  const self = new Map<number, number>();
  const groupSelf = new Map<string, number>();
  const groupTotal = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < from || t > to) continue;
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += delta;
      continue;
    }
    busy += delta;
    self.set(leaf.id, (self.get(leaf.id) ?? 0) + delta);
    const g = groupOf(leaf.callFrame);
    groupSelf.set(g, (groupSelf.get(g) ?? 0) + delta);
    fnSelf.set(label(leaf.callFrame), (fnSelf.get(label(leaf.callFrame)) ?? 0) + delta);
    const seenGroups = new Set<string>();
    const seenFns = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') continue;
      seenGroups.add(groupOf(frame));
      seenFns.add(label(frame));
    }
    for (const name of seenGroups) groupTotal.set(name, (groupTotal.get(name) ?? 0) + delta);
    for (const name of seenFns) fnTotal.set(name, (fnTotal.get(name) ?? 0) + delta);
  }
  const top = Number(flags.top);
  const pct = (v: number) => ((100 * v) / busy).toFixed(1);
  console.log(`\n### ${file}\n`);
  console.log(
    `span ${ms(profile.endTime - profile.startTime)} ms; in window: busy (sampled, not idle) ${ms(busy)} ms, idle ${ms(idle)} ms\n`,
  );
  console.log('| group | self ms | self % | total ms | total % |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, total] of [...groupTotal].sort(
    (a, b) => (groupSelf.get(b[0]) ?? 0) - (groupSelf.get(a[0]) ?? 0),
  ))
    console.log(
      `| ${name} | ${ms(groupSelf.get(name) ?? 0)} | ${pct(groupSelf.get(name) ?? 0)} | ${ms(total)} | ${pct(total)} |`,
    );
  console.log(`\ntop ${top} functions by self time:\n`);
  console.log('| function | self ms | self % | total ms | total % |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, value] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `| \`${name}\` | ${ms(value)} | ${pct(value)} | ${ms(fnTotal.get(name) ?? 0)} | ${pct(fnTotal.get(name) ?? 0)} |`,
    );
  console.log(`\ntop ${top} functions by total time:\n`);
  console.log('| function | total ms | total % | self ms |');
  console.log('|---|---:|---:|---:|');
  for (const [name, value] of [...fnTotal].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`| \`${name}\` | ${ms(value)} | ${pct(value)} | ${ms(fnSelf.get(name) ?? 0)} |`);
}
