/**
 * The fault matrix: `npm run faults [-- --short] [-- --scenario 2]`. Starts the Temporal dev server,
 * the worker and the API as separate processes, breaks one thing per scenario while tasks are created
 * through the HTTP API and come due, then checks that nothing was lost or doubled in effect.
 * Loopback only; every scenario is bounded in time. Exits 1 when any scenario breaks the promise.
 *
 * Flags:
 *   --short               scenarios 1, 2 and 5 with small counts (under 3 minutes; CI runs this)
 *   --scenario <n>        only these scenarios (1-10; repeatable or comma-separated)
 *   --soak-minutes <n>    length of scenario 9 (default 30)
 *   --soak-rate <n>       tasks per second of scenario 9 (default 10)
 *   --out <name|path>     results file in bench/results/ (default faults, or faults-short with --short)
 *   --keep                keep the scratch directory (databases, logs)
 *   --control             the scenarios' loads and shapes without their faults: what the load alone
 *                         does on this machine (a baseline for a scenario's duplicates and lag)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildIfStale } from '../infra/build.js';
import { Child } from '../infra/child.js';
import { freePort } from '../infra/ports.js';
import { temporalCli } from '../infra/temporal-server.js';
import { Load } from './load.js';
import { settleAndJudge, type Outcome } from './outcome.js';
import { Balancer } from './balancer.js';
import { Recorder } from './recorder.js';
import { renderFaults } from './render.js';
import { SCENARIOS, type FaultContext, type Mode, type Scenario } from './scenarios.js';
import { devRestart, soak, type Harness, type SoakResult } from './special.js';
import { FaultStack } from './stack.js';

const root = resolve(import.meta.dirname, '../..');
const { values: flags } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    scenario: { type: 'string', multiple: true },
    'soak-minutes': { type: 'string', default: '30' },
    'soak-rate': { type: 'string', default: '10' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    control: { type: 'boolean', default: false },
  },
});

const log = (message: string) => console.log(`[faults ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function runScenario(h: Harness, scenario: Scenario, mode: Mode): Promise<Outcome> {
  const shape = scenario.shape(mode);
  const stack = await FaultStack.start({
    name: `s${scenario.id}`,
    dir: h.dir,
    cli: h.cli,
    distDir: h.distDir,
    workers: shape.workers,
    apis: shape.apis,
    ...(shape.env ? { env: shape.env } : {}),
  });
  const balancer = shape.balancer ? await Balancer.start(stack.apiUrls) : undefined;
  const recorder = await Recorder.start(await freePort());
  recorder.latencyMs = shape.receiverLatencyMs;
  try {
    const load = new Load({
      apiUrls: balancer ? () => balancer.inRotation() : stack.apiUrls,
      callbackUrl: recorder.url,
      rate: shape.rate,
      durationMs: shape.loadMs,
      delayMs: shape.delayMs,
      timeoutMs: shape.timeoutMs,
      maxRetries: 20,
      giveUpMs: 120_000,
    });
    const notes: string[] = [];
    const problems: string[] = [];
    let faultStartMs: number | undefined;
    let faultEndMs: number | undefined;
    const t0 = Date.now();
    await Promise.all([
      load.run(),
      (flags.control
        ? async (ctx: FaultContext) => void ctx.notes.push('control: no fault')
        : scenario.fault)({
        stack,
        recorder,
        load,
        mode,
        t0,
        log: h.log,
        notes,
        problems,
        faultStarted: () => {
          faultStartMs = Date.now();
          h.log(`scenario ${scenario.id}: fault begins`);
        },
        faultEnded: () => {
          faultEndMs = Date.now();
          h.log(
            `scenario ${scenario.id}: fault over after ${((faultEndMs - (faultStartMs ?? faultEndMs)) / 1000).toFixed(1)} s`,
          );
        },
      }),
    ]);
    h.log(`scenario ${scenario.id}: load done (${load.tasks.length} sent); waiting for every task to finish`);
    // Any API process still alive will do for the status checks.
    const apiUrl = () => stack.apis.find((api) => api.pid !== undefined)?.healthUrl ?? stack.apiUrls[0]!;
    const judged = await settleAndJudge(
      {
        id: scenario.id,
        title: scenario.title,
        duplicatesAllowed: scenario.duplicatesAllowed,
        load,
        recorder,
        faultEndMs,
        notes,
      },
      apiUrl,
      Date.now() + shape.settleMs,
    );
    judged.problems.push(...problems);
    return judged;
  } finally {
    balancer?.stop();
    await stack.stop();
    await recorder.down();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const mode: Mode = flags.short ? 'short' : 'full';
  const chosen = (flags.scenario ?? []).flatMap((value) => value.split(',')).map(Number);
  const ids = chosen.length > 0 ? chosen : mode === 'short' ? [1, 2, 5] : [1, 2, 3, 4, 5, 6, 7, 8, 10, 9];
  for (const id of ids)
    if (!Number.isInteger(id) || id < 1 || id > 10) throw new Error(`no scenario ${id}; 1 to 10`);
  if (buildIfStale(root)) log('src/ was newer than dist/: rebuilt');
  const dir = mkdtempSync(join(tmpdir(), 'delayed-task-faults-'));
  const h: Harness = { root, dir, cli: temporalCli(root), distDir: join(root, 'dist'), log };
  log(`${mode} matrix, scenarios ${ids.join(', ')}; scratch ${dir}`);
  const outcomes: Outcome[] = [];
  let soakResult: SoakResult | undefined;
  try {
    for (const id of ids) {
      const began = Date.now();
      log(`scenario ${id} starts`);
      if (id === 8) outcomes.push(await devRestart(h, mode));
      else if (id === 9) {
        soakResult = await soak(
          h,
          { name: 's9', dir, cli: h.cli, distDir: h.distDir, workers: 1, apis: 1 },
          Number(flags['soak-rate']),
          Number(flags['soak-minutes']),
        );
        outcomes.push(soakResult.outcome);
      } else
        outcomes.push(
          await runScenario(
            h,
            SCENARIOS.find((s) => s.id === id)!,
            mode,
          ),
        );
      const last = outcomes.at(-1)!;
      log(
        `scenario ${id} done in ${Math.round((Date.now() - began) / 1000)} s: ${last.created} created, ${last.lost} lost, ${last.duplicates} duplicate(s)${last.problems.length > 0 ? `; PROBLEMS: ${last.problems.join('; ')}` : ''}`,
      );
    }
  } finally {
    await Child.stopAll();
    if (!flags.keep) rmSync(dir, { recursive: true, force: true });
  }
  const markdown = renderFaults({
    mode,
    date: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    host: `${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end`,
    command: `npm run faults${process.argv.slice(2).length > 0 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    outcomes,
    soak: soakResult,
  });
  console.log(`\n${markdown}`);
  const out = flags.out ?? (mode === 'short' ? 'faults-short' : 'faults');
  const path = out.includes('/') ? resolve(out) : join(root, 'bench/results', `${out}.md`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, markdown);
  writeFileSync(
    path.replace(/\.md$/, '.json'),
    `${JSON.stringify({ mode, outcomes, soak: soakResult }, null, 2)}\n`,
  );
  log(`results: ${path}`);
  const broken = outcomes.filter((o) => o.problems.length > 0);
  const total = outcomes.length;
  // A closing line any CI reads.
  console.log(`faults: ${total - broken.length} passed, ${broken.length} failed`);
  if (broken.length > 0) process.exitCode = 1;
}

process.on('SIGINT', () => {
  void Child.stopAll().then(() => process.exit(130));
});
main().catch(async (err: unknown) => {
  console.error(err);
  await Child.stopAll();
  process.exit(1);
});
