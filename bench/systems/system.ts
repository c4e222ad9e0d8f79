/** What every system under test offers the scenarios: create a task, name its processes, size its store. */
import type { ProcessRef } from '../infra/memory.js';
import type { PersistenceTotals, ServerKind } from '../infra/temporal-server.js';

export const SYSTEM_NAMES = [
  'ours-api',
  'ours-pull',
  'ours-redis',
  'ours-rabbitmq',
  'ours-kafka',
  'ours-direct',
  'temporal-floor',
  'bullmq',
  'settimeout',
] as const;
export type SystemName = (typeof SYSTEM_NAMES)[number];
/** ours-api with broker delivery (bench/systems/ours-broker.ts), one per broker. */
export const BROKER_SYSTEM_NAMES = [
  'ours-redis',
  'ours-rabbitmq',
  'ours-kafka',
] as const satisfies readonly SystemName[];
export type BrokerSystemName = (typeof BROKER_SYSTEM_NAMES)[number];
/** ours-api with another delivery target than its callback: compared with ours-api (bench/ratio.ts). */
export const DELIVERY_VARIANTS: readonly SystemName[] = ['ours-pull', ...BROKER_SYSTEM_NAMES];
/** A run without `--system`: the delivery variants (meant for `lag` and `herd`, beside ours-api) only when named. */
export const DEFAULT_SYSTEM_NAMES: readonly SystemName[] = SYSTEM_NAMES.filter(
  (name) => !DELIVERY_VARIANTS.includes(name),
);

/** One task as the benchmark asks for it; each system maps it onto its own API. */
export interface BenchTask {
  taskId: string;
  taskType: string;
  /** Due time, epoch ms. */
  executeAtMs: number;
  callbackUrl: string;
  /** Retries after the first attempt. */
  maxRetries: number;
  payload: Record<string, unknown>;
}

export interface System {
  readonly name: SystemName;
  /** Creates one task; resolves once the system has acknowledged it (durably, where it is durable). */
  create(task: BenchTask): Promise<void>;
  /** The processes whose memory counts for this system. */
  processes(): ProcessRef[];
  /** Bytes its store holds now (SQLite files, Redis used_memory); undefined when it has no store. */
  storeBytes(): Promise<number | undefined>;
  /** What the store bytes are, for the report. */
  readonly storeKind: string | undefined;
  /** Temporal only: the server's persistence calls so far (evidence of where its time goes). */
  persistence?(): Promise<PersistenceTotals>;
  stop(): Promise<void>;
}

/** Where and how the systems run; built once by run.ts from its flags. */
export interface SystemEnv {
  /** Repository root. */
  root: string;
  /** Compiled service (API and worker entry points under api/ and worker/). */
  distDir: string;
  /** This run's scratch directory: databases and logs. */
  runDir: string;
  /** Compiled child entry points of the peer and the floor. */
  entries: { bullmqWorker: string; settimeoutServer: string; floorWorker: string };
  temporalCli: string;
  /** The Temporal server of our stack: the CLI's dev server on SQLite, or Temporal Server on PostgreSQL. */
  server: ServerKind;
  /** With `server: 'postgres'`: directory of temporal-server and temporal-sql-tool. */
  temporalServerTools: string | undefined;
  /** With `server: 'postgres'`: extra `name=value` PostgreSQL settings. */
  postgresSettings: readonly string[];
  /** `--sqlite-pragma` values of the dev servers. */
  pragmas: readonly string[];
  /** Extra `KEY=JSON` dynamic config of the Temporal servers. */
  dynamicConfig: readonly string[];
  /** Extra environment of our worker and API processes (WORKER_*, ...). */
  workerEnv: Readonly<Record<string, string>>;
  apiEnv: Readonly<Record<string, string>>;
  /** Node flags of our worker processes (e.g. --cpu-prof, not allowed in NODE_OPTIONS). */
  workerNodeArgs: readonly string[];
  /** API processes behind ours-api (the load generator spreads requests over them). */
  apiProcesses: number;
  /** ours-pull: `max` of each lease call of its consumers. */
  pullMax: number;
  /** `--encryption on`: the payload key (base64) of our API, worker and direct client. */
  encryptionKey: string | undefined;
}

/** The create request of `task`, as a client sends it to the API (and ours-direct builds its spec from). */
export function createRequest(task: BenchTask) {
  return {
    taskId: task.taskId,
    taskType: task.taskType,
    payload: task.payload,
    executeAt: new Date(task.executeAtMs).toISOString(),
    callbackUrl: task.callbackUrl,
    maxRetries: task.maxRetries,
  };
}
