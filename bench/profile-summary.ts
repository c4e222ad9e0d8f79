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

/** Groups, first match wins; tested against `url functionName`. */
const GROUPS: [string, RegExp][] = [
  ['(idle)', /^ \(idle\)$/],
  ['(garbage collector)', /^ \(garbage collector\)$/],
  ['(program) (native, unattributed)', /^ \(program\)$/],
  [
    'vm entry + timeout watchdog (runInContext)',
    /^node:vm |runInContext|vm-shared\.js|reusable-vm\.js|\/vm\.js /,
  ],
  [
    'workflow thread plumbing (worker_threads messages)',
    /workflow-worker-thread|threaded-vm|node:internal\/worker|MessagePort|structuredClone/,
  ],
  [
    'workflow sandbox: SDK internals (activator, commands)',
    /@temporalio\/workflow\/lib\/(internals|worker-interface|workflow|global-overrides|cancellation-scope|flags|update-scope|stack-helpers)/,
  ],
  ['interceptors + workflow logger/sinks', /interceptors|logs\.js|sinks|workflow\/logger|workflow-log/],
  [
    'our workflow code (delayed-task)',
    /workflow-bundle|delayed-task|webpack|shared\/(task|backoff|constants)/,
  ],
  [
    'logging (pino, PinoTemporalLogger, SDK logger)',
    /pino|logger\.js|sonic-boom|fast-redact|observability\/logger|@temporalio\/(worker|common)\/lib\/logger/,
  ],
  ['metrics (prom-client, our metrics)', /prom-client|worker\/metrics|\/metrics\.js/],
  ['payload codec + data converter', /converter|payload-codec|data-converter|failure/],
  ['JSON', /^ (parse|stringify)$|JSON/],
  ['protobuf (activations, completions)', /protobufjs|@temporalio\/proto|long\/|\$protobuf|encode|decode/],
  [
    'gRPC / core bridge (native calls)',
    /core-bridge|native|pollWorkflowActivation|completeWorkflowActivation|pollActivityTask|completeActivityTask/,
  ],
  ['rxjs pipelines (SDK worker)', /rxjs/],
  [
    'callback HTTP (undici, net, tls, crypto signing)',
    /undici|node:net|node:_http|node:http|node:internal\/(stream|net|dns|crypto)|webhook-signature|callback-guard|activities\/callback|node:crypto|dns/,
  ],
  ['activity runtime (SDK)', /@temporalio\/(worker\/lib\/activity|activity)/],
  ['SDK worker (other)', /@temporalio\/worker/],
  ['@temporalio (other)', /@temporalio/],
  ['node internals (timers, promises, events)', /^node:|internal\//],
];

function groupOf(frame: CallFrame): string {
  const key = `${frame.url} ${frame.functionName}`;
  for (const [name, pattern] of GROUPS) if (pattern.test(key)) return name;
  return `other: ${
    frame.url
      .replace(/.*node_modules\//, '')
      .split('/')
      .slice(0, 2)
      .join('/') || frame.functionName
  }`;
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
