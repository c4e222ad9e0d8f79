/**
 * The two scenarios that do not fit the kill-and-restart mould: the local launcher (scripts/dev.sh)
 * stopped with Ctrl-C and started again on its persistent data, and the soak run.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Child } from '../infra/child.js';
import { freePort } from '../infra/ports.js';
import { summarize } from '../stats.js';
import { sleep, waitUntil } from '../infra/wait.js';
import { Load } from './load.js';
import { settleAndJudge, type Outcome } from './outcome.js';
import { Recorder } from './recorder.js';
import type { Mode } from './scenarios.js';
import { FaultStack, type StackOptions } from './stack.js';

export interface Harness {
  root: string;
  dir: string;
  cli: string;
  distDir: string;
  log(message: string): void;
}

/** Scenario 8: tasks scheduled before `scripts/dev.sh` is stopped fire after it is started again. */
export async function devRestart(h: Harness, mode: Mode): Promise<Outcome> {
  const dataDir = join(h.dir, 'dev-data');
  mkdirSync(dataDir, { recursive: true });
  const apiPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_CLI_PATH: h.cli,
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    PORT: String(apiPort),
    WORKER_PORT: String(await freePort()),
    WORKER_SDK_METRICS_PORT: String(await freePort()),
    DEV_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    CALLBACK_ALLOW_CIDRS: '127.0.0.0/8',
  };
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const launch = async (): Promise<Child> => {
    const child = Child.start({
      name: 'dev.sh',
      command: 'bash',
      args: [join(h.root, 'scripts/dev.sh')],
      cwd: h.root,
      env,
      logPath: join(h.dir, 'dev-launcher.log'),
    });
    await waitUntil(async () => (await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(2000) })).ok, {
      timeoutMs: 180_000,
      intervalMs: 500,
      what: 'scripts/dev.sh',
      giveUp: () => (child.isRunning ? undefined : `it exited: ${child.tail()}`),
    });
    return child;
  };
  const recorder = await Recorder.start(await freePort());
  let launcher = await launch();
  const notes: string[] = [];
  let faultEndMs: number | undefined;
  try {
    const load = new Load({
      apiUrls: [apiUrl],
      callbackUrl: recorder.url,
      rate: 5,
      durationMs: mode === 'short' ? 10_000 : 20_000,
      delayMs: [40_000, 60_000],
      timeoutMs: 3_000,
      maxRetries: 20,
      giveUpMs: 120_000,
    });
    await load.run();
    h.log('scenario 8: tasks created; Ctrl-C to scripts/dev.sh');
    launcher.signal('SIGINT');
    notes.push(`launcher stopped with ${await launcher.exited}`);
    launcher = await launch();
    faultEndMs = Date.now();
    notes.push(`launcher back after ${Math.round((faultEndMs - load.tasks.at(-1)!.firstSentMs) / 1000)} s`);
    return await settleAndJudge(
      {
        id: 8,
        title: 'scripts/dev.sh stopped (Ctrl-C) and started again on its persistent data',
        duplicatesAllowed: false,
        load,
        recorder,
        faultEndMs,
        notes,
      },
      () => apiUrl,
      Date.now() + 180_000,
    );
  } finally {
    launcher.signal('SIGINT');
    await Promise.race([launcher.exited, sleep(30_000)]);
    await launcher.stop();
    await recorder.down();
  }
}

export interface SoakMinute {
  minute: number;
  rssMiB: Record<string, number | undefined>;
  delivered: number;
  lagP50Ms: number | undefined;
  lagP99Ms: number | undefined;
  /** The host's one-minute load average when the minute was sampled: the machine may be shared. */
  load1: number;
}

export interface SoakResult {
  outcome: Outcome;
  rate: number;
  minutes: SoakMinute[];
  /** Least-squares slope per role, MiB per minute, over the minutes after the first. */
  rssSlopeMiBPerMin: Record<string, number | undefined>;
  lagP99SlopeMsPerMin: number | undefined;
}

/** Scenario 9: a steady rate for `minutes`, memory and lag read every minute. */
export async function soak(
  h: Harness,
  stackOptions: StackOptions,
  rate: number,
  minutes: number,
): Promise<SoakResult> {
  const stack = await FaultStack.start({ ...stackOptions, workers: 1, apis: 1 });
  const recorder = await Recorder.start(await freePort());
  try {
    const load = new Load({
      apiUrls: stack.apiUrls,
      callbackUrl: recorder.url,
      rate,
      durationMs: minutes * 60_000,
      delayMs: [2_000, 10_000],
      timeoutMs: 3_000,
      maxRetries: 20,
      giveUpMs: 120_000,
    });
    const t0 = Date.now();
    const running = load.run();
    const samples: SoakMinute[] = [];
    for (let minute = 1; minute <= minutes; minute++) {
      await sleep(t0 + minute * 60_000 - Date.now());
      const from = t0 + (minute - 1) * 60_000;
      const due = new Map(load.tasks.map((task) => [task.taskId, task.dueMs]));
      const lags = recorder.deliveries
        .filter((d) => d.arrivedMs >= from && d.arrivedMs < from + 60_000 && d.attempt === 1)
        .map((d) => d.arrivedMs - (due.get(d.taskId) ?? d.arrivedMs));
      const lag = summarize(lags);
      const rss = stack.rss();
      const sample: SoakMinute = {
        minute,
        rssMiB: Object.fromEntries(
          Object.entries(rss).map(([role, bytes]) => [
            role,
            bytes === undefined ? undefined : bytes / 2 ** 20,
          ]),
        ),
        delivered: lags.length,
        lagP50Ms: lag?.p50,
        lagP99Ms: lag?.p99,
        load1: loadavg()[0] ?? 0,
      };
      samples.push(sample);
      h.log(
        `soak minute ${minute}: ${lags.length} delivered, lag p99 ${lag?.p99 ?? '-'} ms, load ${sample.load1.toFixed(1)}, RSS ${Object.entries(
          sample.rssMiB,
        )
          .map(([role, mib]) => `${role} ${mib?.toFixed(0) ?? '-'} MiB`)
          .join(', ')}`,
      );
    }
    await running;
    const judged = await settleAndJudge(
      {
        id: 9,
        title: `soak: ${rate} tasks/s for ${minutes} min`,
        duplicatesAllowed: false,
        load,
        recorder,
        faultEndMs: undefined,
        notes: [],
      },
      () => stack.apiUrls[0]!,
      // The final statuses are read through the API after the run (from the list while many are
      // unread): the window grows with the task count, 450 s for the 18,000 of a 30-minute soak.
      Date.now() + Math.max(120_000, load.tasks.length * 25),
    );
    const later = samples.slice(1);
    const roles = Object.keys(samples[0]?.rssMiB ?? {});
    return {
      outcome: judged,
      rate,
      minutes: samples,
      rssSlopeMiBPerMin: Object.fromEntries(
        roles.map((role) => [role, slope(later.map((s) => [s.minute, s.rssMiB[role]]))]),
      ),
      lagP99SlopeMsPerMin: slope(later.map((s) => [s.minute, s.lagP99Ms])),
    };
  } finally {
    await stack.stop();
    await recorder.down();
  }
}

/** Least-squares slope of y over x; undefined with fewer than two points. */
export function slope(points: readonly (readonly [number, number | undefined])[]): number | undefined {
  const known = points.filter((p): p is [number, number] => p[1] !== undefined && Number.isFinite(p[1]));
  if (known.length < 2) return undefined;
  const n = known.length;
  const mx = known.reduce((s, [x]) => s + x, 0) / n;
  const my = known.reduce((s, [, y]) => s + y, 0) / n;
  const num = known.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = known.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? undefined : num / den;
}
