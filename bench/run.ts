/**
 * Benchmark entry point: `npm run bench [-- --quick] [-- --scenario steady]`. Starts its own Temporal
 * server, Redis, callback receiver and systems on loopback ports, runs the scenarios, stops
 * everything and writes bench/results/<name>.md and .json.
 *
 * Flags (repeatable ones may be given several times):
 *   --quick                   smaller counts and shorter windows (under 2 minutes from a fresh clone);
 *                             without --scenario, every scenario but create-batch; `lag` measures
 *                             ours-api only, for 5 s (the budget has room for one system: the one
 *                             the lag target is about; the other rows say n/a)
 *   --scenario <name>         only these scenarios: failing, steady, lag, herd, create, create-batch,
 *                             pending. `lag`: fire lag at 20 tasks/s (full: 120 s per system)
 *   --system <name>           only these systems: ours-api, ours-direct, temporal-floor, bullmq, settimeout;
 *                             and, only when named (meant for `lag` and `herd`, beside ours-api), ours-api
 *                             with another delivery: ours-pull (pull leases), ours-redis, ours-rabbitmq,
 *                             ours-kafka (broker targets; the run starts and stops each broker with
 *                             scripts/local-server.sh <broker>@bench)
 *   --steady-rate <n>         steady runs one trial at this rate (tasks/s), without the search
 *   --lag-rate <n>            lag's rate, tasks/s (default 20, the rate of issue 25's lag target)
 *   --lag-seconds <n>         lag's window, seconds, for every selected system (also with --quick)
 *   --lag-wait-seconds <n>    lag's longest wait for callbacks after the last due time (full 15, quick 4):
 *                             longer at a rate that builds a backlog, so late tasks still count in the lag
 *   --herd-tasks <n>          herd's size (its lead and wait grow with it)
 *   --pull-max <n>            ours-pull: `max` of each lease call of its 4 consumers (default 10)
 *   --server <kind>           Temporal server of ours-api and ours-direct: `sqlite` (default), the CLI's
 *                             dev server on a SQLite file (one connection); `postgres`, Temporal Server
 *                             (same version, built once by scripts/temporal-server.sh) on a private
 *                             PostgreSQL cluster (Debian's, installed when missing), 4 history shards
 *   --postgres-setting <K=V>  with --server postgres: extra PostgreSQL setting (e.g. synchronous_commit=off)
 *   --sqlite-pragma <P=V>     replaces the project's dev-server pragmas (src/temporal/dev-server.ts);
 *                             `none` runs SQLite's defaults (rollback journal, synchronous=FULL)
 *   --dynamic-config <K=V>    extra Temporal server dynamic config (JSON value)
 *   --worker-env <K=V>        extra environment of our worker processes (e.g. WORKER_MAX_CACHED_WORKFLOWS=200)
 *   --api-env <K=V>           extra environment of our API processes
 *   --worker-node-arg=<flag>  Node flag of our worker processes, e.g. --worker-node-arg=--cpu-prof
 *                             --worker-node-arg=--cpu-prof-dir=/tmp/prof
 *                             (written when the worker stops; NODE_OPTIONS refuses --cpu-prof)
 *   --api-processes <n>       API processes behind ours-api (requests spread over them); default 1
 *   --dist <dir>              compiled service to run (default dist/, rebuilt first when src/ is newer)
 *   --out <name|path>         results file name in bench/results/ (default latest for a full run, quick
 *                             for a quick one, else the scenarios' names), or a path of your choosing
 *   --encryption <off|on>     payload encryption of ours-api and ours-direct (a key made for the run); default off
 *   --keep                    keep the scratch directory (databases, logs)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { Child } from './infra/child.js';
import { buildIfStale } from './infra/build.js';
import { compileEntries } from './infra/compile.js';
import { brokerVersions, LocalBroker } from './infra/local-brokers.js';
import { redisVersion } from './infra/redis-server.js';
import {
  HISTORY_SHARDS,
  postgresVersion,
  temporalServerTools,
  temporalServerVersion,
} from './infra/temporal-postgres.js';
import { SERVER_KINDS, temporalCli, type ServerKind } from './infra/temporal-server.js';
import { herdPlan, PLANS, type Plan } from './plan.js';
import { Receiver } from './receiver-client.js';
import { renderMarkdown, summarize, targets, type RunReport } from './report.js';
import { create } from './scenarios/create.js';
import { createBatch } from './scenarios/create-batch.js';
import { failing } from './scenarios/failing.js';
import { herd } from './scenarios/herd.js';
import { lag } from './scenarios/lag.js';
import { pending } from './scenarios/pending.js';
import {
  QUICK_SCENARIO_NAMES,
  SCENARIO_NAMES,
  type Scenario,
  type ScenarioName,
  type ScenarioResult,
} from './scenarios/scenario.js';
import { steady } from './scenarios/steady.js';
import { SystemPool } from './system-pool.js';
import { brokerServersOf } from './systems/index.js';
import { DEFAULT_SYSTEM_NAMES, SYSTEM_NAMES, type SystemEnv, type SystemName } from './systems/system.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { mintPayloadKey } from '../src/security/payload-codec.js';

const SCENARIOS: Record<ScenarioName, Scenario> = {
  failing,
  steady,
  lag,
  herd,
  create,
  'create-batch': createBatch,
  pending,
};
const root = resolve(import.meta.dirname, '..');

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scenario: { type: 'string', multiple: true },
    system: { type: 'string', multiple: true },
    server: { type: 'string', default: 'sqlite' },
    'postgres-setting': { type: 'string', multiple: true },
    'sqlite-pragma': { type: 'string', multiple: true },
    'dynamic-config': { type: 'string', multiple: true },
    'worker-env': { type: 'string', multiple: true },
    'api-env': { type: 'string', multiple: true },
    'worker-node-arg': { type: 'string', multiple: true },
    'api-processes': { type: 'string', default: '1' },
    'steady-rate': { type: 'string' },
    'lag-rate': { type: 'string' },
    'lag-seconds': { type: 'string' },
    'lag-wait-seconds': { type: 'string' },
    'herd-tasks': { type: 'string' },
    'pull-max': { type: 'string', default: '10' },
    dist: { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    encryption: { type: 'string', default: 'off' },
  },
});

function pick<T extends string>(
  given: string[] | undefined,
  all: readonly T[],
  what: string,
  defaults: readonly T[] = all,
): T[] {
  const names = (given ?? []).flatMap((value) => value.split(','));
  for (const name of names)
    if (!all.includes(name as T)) throw new Error(`unknown ${what} ${name}; one of ${all.join(', ')}`);
  return names.length === 0 ? [...defaults] : all.filter((name) => names.includes(name));
}

function keyValues(given: string[] | undefined): Record<string, string> {
  return Object.fromEntries(
    (given ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`expected KEY=VALUE, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

function version(pkg: string): string {
  return (
    JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }
  ).version;
}

function positive(flag: 'lag-rate' | 'lag-seconds' | 'lag-wait-seconds' | 'herd-tasks'): number | undefined {
  const value = flags[flag] === undefined ? undefined : Number(flags[flag]);
  if (value !== undefined && !(value > 0)) throw new Error(`--${flag} needs a positive number`);
  return value;
}

/** `--lag-rate`, `--lag-seconds`, `--lag-wait-seconds` and `--herd-tasks` applied to `plan`. */
function resized(plan: Plan): Plan {
  const lagRate = positive('lag-rate');
  const lagS = positive('lag-seconds');
  const lagWaitS = positive('lag-wait-seconds');
  const herdTasks = positive('herd-tasks');
  return {
    ...plan,
    lag: {
      ...plan.lag,
      ...(lagRate === undefined ? {} : { rate: lagRate }),
      ...(lagS === undefined ? {} : { windowS: lagS, systems: undefined }),
      ...(lagWaitS === undefined ? {} : { graceS: lagWaitS }),
    },
    ...(herdTasks === undefined ? {} : { herd: herdPlan(plan.herd, herdTasks) }),
  };
}

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function main(): Promise<void> {
  const started = Date.now();
  const basePlan = PLANS[flags.quick ? 'quick' : 'full'];
  const steadyRate = flags['steady-rate'] === undefined ? undefined : Number(flags['steady-rate']);
  if (steadyRate !== undefined && !(steadyRate > 0)) throw new Error('--steady-rate needs a positive number');
  // One trial at the given rate (a profile at a known load), no search above or below it.
  const plan = resized(
    steadyRate === undefined
      ? basePlan
      : { ...basePlan, steady: { ...basePlan.steady, headlineRate: steadyRate, stepsUp: 0, stepsDown: 0 } },
  );
  const defaultScenarios = flags.quick ? QUICK_SCENARIO_NAMES : SCENARIO_NAMES;
  const scenarioNames = flags.scenario
    ? pick(flags.scenario, SCENARIO_NAMES, 'scenario')
    : [...defaultScenarios];
  const systemNames = pick<SystemName>(flags.system, SYSTEM_NAMES, 'system', DEFAULT_SYSTEM_NAMES);
  const server = pick<ServerKind>([flags.server], SERVER_KINDS, 'server')[0]!;
  if (server !== 'sqlite' && flags['sqlite-pragma']) throw new Error('--sqlite-pragma needs --server sqlite');
  if (server !== 'postgres' && flags['postgres-setting'])
    throw new Error('--postgres-setting needs --server postgres');
  if (!flags.dist && buildIfStale(root)) log('src/ was newer than dist/: rebuilt with npm run build');
  const runDir = mkdtempSync(join(tmpdir(), 'delayed-task-bench-'));
  const cli = temporalCli(root);
  const serverTools = server === 'postgres' ? temporalServerTools(root) : undefined;
  const [receiverEntry, bullmqWorker, settimeoutServer, floorWorker] = compileEntries(
    root,
    [
      'bench/receiver.ts',
      'bench/systems/bullmq-worker.ts',
      'bench/systems/settimeout-server.ts',
      'bench/systems/floor-worker.ts',
    ],
    join(root, '.data/bench/build'),
  );
  const env: SystemEnv = {
    root,
    distDir: resolve(flags.dist ?? join(root, 'dist')),
    runDir,
    entries: { bullmqWorker: bullmqWorker!, settimeoutServer: settimeoutServer!, floorWorker: floorWorker! },
    temporalCli: cli,
    server,
    temporalServerTools: serverTools,
    postgresSettings: flags['postgres-setting'] ?? [],
    pragmas: (flags['sqlite-pragma'] ?? [...DEV_SERVER_SQLITE_PRAGMAS]).filter((pragma) => pragma !== 'none'),
    dynamicConfig: flags['dynamic-config'] ?? [],
    workerEnv: keyValues(flags['worker-env']),
    apiEnv: keyValues(flags['api-env']),
    workerNodeArgs: flags['worker-node-arg'] ?? [],
    apiProcesses: Number(flags['api-processes']),
    pullMax: Number(flags['pull-max']),
    encryptionKey:
      pick([flags.encryption], ['off', 'on'], 'encryption')[0] === 'on' ? mintPayloadKey() : undefined,
  };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  const loadAtStart = load();
  log(
    `${plan.mode} run: scenarios ${scenarioNames.join(', ')}; systems ${systemNames.join(', ')}; scratch ${runDir}`,
  );

  const receiver = await Receiver.start(receiverEntry!, runDir);
  const systems = new SystemPool(env, systemNames);
  const results: ScenarioResult[] = [];
  const errors: string[] = [];
  try {
    await systems.startAll(log);
    for (const name of scenarioNames) {
      log(`scenario ${name}`);
      try {
        results.push(await SCENARIOS[name].run({ plan, receiver, systems, log }));
      } catch (err) {
        errors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
        log(`scenario ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
  } finally {
    await systems.stopAll().catch((err: unknown) => errors.push(`stopping systems: ${String(err)}`));
    await receiver.stop();
  }

  const report: RunReport = {
    startedAt: new Date(started).toISOString(),
    mode: plan.mode,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    totalSeconds: (Date.now() - started) / 1000,
    environment: {
      host: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB (${hostname()})`,
      load: `${loadAtStart} at start, ${load()} at end`,
      node: process.version,
      temporal: execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim(),
      server: serverTools
        ? `Temporal Server ${temporalServerVersion(serverTools)} on PostgreSQL ${postgresVersion()}, ${HISTORY_SHARDS} history shards`
        : 'Temporal dev server (the CLI above) on SQLite, one connection, 1 history shard',
      redis: redisVersion(),
      packages: Object.fromEntries(
        ['@temporalio/worker', 'bullmq', 'undici', 'fastify'].map((pkg) => [pkg, version(pkg)]),
      ),
      settings: {
        ...(server === 'sqlite'
          ? {
              'Temporal dev server': `one, shared by ours-api and ours-direct (with one worker), SQLite file; pragmas: ${env.pragmas.join(', ') || 'none (SQLite defaults)'}${flags['sqlite-pragma'] ? ' (given on the command line)' : ' (src/temporal/dev-server.ts)'}; extra dynamic config: ${env.dynamicConfig.join(', ') || 'none'} (plus src/temporal/dev-server.ts)`,
            }
          : {
              'Temporal server': `one, shared by ours-api and ours-direct (with one worker), all services in one process; a private PostgreSQL cluster on loopback (PostgreSQL defaults${env.postgresSettings.length > 0 ? ` plus ${env.postgresSettings.join(', ')}` : ''}); extra dynamic config: ${env.dynamicConfig.join(', ') || 'none'} (plus src/temporal/dev-server.ts and the dev server's persistence rate limits)`,
            }),
        ...(brokerServersOf(systemNames).length > 0
          ? {
              Brokers: `${brokerVersions(root, brokerServersOf(systemNames))}, on loopback (scripts/local-server.sh <broker>@bench), declared in BROKERS_FILE; one consumer each in the benchmark process: ${['ioredis', 'amqplib', 'kafkajs'].map((pkg) => `${pkg} ${version(pkg)}`).join(', ')}`,
            }
          : {}),
        'Our processes': `dist ${env.distDir === join(root, 'dist') ? 'dist/' : env.distDir}; API processes ${env.apiProcesses}; ours-pull lease max ${env.pullMax}; worker env ${JSON.stringify(env.workerEnv)}${env.workerNodeArgs.length > 0 ? `; worker node flags ${env.workerNodeArgs.join(' ')}` : ''}; API env ${JSON.stringify(env.apiEnv)}; payload encryption ${env.encryptionKey ? 'on (AES-256-GCM codec)' : 'off'}`,
      },
    },
    targets: targets(results),
    summary: summarize(results, systemNames),
    scenarios: results,
    errors,
  };
  const defaultOut =
    scenarioNames.length === defaultScenarios.length
      ? flags.quick
        ? 'quick'
        : 'latest'
      : scenarioNames.join('-');
  // A bare name goes to bench/results/; a path (with a slash) is used as given.
  const out = resolve(join(root, 'bench/results'), flags.out ?? defaultOut);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${out}.md`, renderMarkdown(report));
  if (!flags.keep && errors.length === 0) rmSync(runDir, { recursive: true, force: true });
  log(
    `done in ${report.totalSeconds.toFixed(0)} s: ${relative(root, out)}.md${errors.length > 0 ? ` (${errors.length} error(s); logs in ${runDir})` : ''}`,
  );
  if (errors.length > 0) process.exitCode = 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping every process the benchmark started`);
    void Promise.allSettled([Child.stopAll(), LocalBroker.stopAll()]).finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  Child.killAll();
  LocalBroker.stopAllSync();
});

main().catch(async (err: unknown) => {
  console.error(err);
  await Promise.allSettled([Child.stopAll(), LocalBroker.stopAll()]);
  process.exit(1);
});
