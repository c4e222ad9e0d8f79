/**
 * One system's figures over another's in the same scenario: each delivery variant (ours-pull, the
 * broker systems) over ours-api, the callback path on the same stack.
 */
import type { SystemRow } from './scenarios/scenario.js';
import { DELIVERY_VARIANTS, type SystemName } from './systems/system.js';

const ratio = (a: number | undefined, b: number | undefined): number | null =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0
    ? null
    : Math.round((a / b) * 100) / 100;

/** CPU ms per task of `row`'s processes of the roles in `roles`. */
const cpuOf = (row: SystemRow, roles: readonly string[]): number | undefined =>
  row.cpuMsPerTask ? roles.reduce((sum, role) => sum + (row.cpuMsPerTask?.[role] ?? 0), 0) : undefined;

/**
 * `row` ÷ `base`: p50 and p99 lag, and CPU ms per task of the processes both run (our API, worker and
 * Temporal server: a broker's own server is in `row`'s CPU column, not in the ratio), as extra columns
 * named after `base`; null where either figure is missing or not finite, or the base is 0.
 */
export function ratioColumns(row: SystemRow, base: SystemRow): Record<string, number | null> {
  const of = base.system;
  const shared = Object.keys(base.cpuMsPerTask ?? {}).filter((role) => role in (row.cpuMsPerTask ?? {}));
  return {
    [`p50 ÷ ${of}`]: ratio(row.lagMs?.p50, base.lagMs?.p50),
    [`p99 ÷ ${of}`]: ratio(row.lagMs?.p99, base.lagMs?.p99),
    [`CPU/task ÷ ${of}`]: shared.length === 0 ? null : ratio(cpuOf(row, shared), cpuOf(base, shared)),
  };
}

/** Adds each delivery variant's ÷ ours-api to its row when both were measured. */
export function addCallbackRatios(rows: SystemRow[]): void {
  const api = rows.find((r) => r.system === 'ours-api' && !r.notApplicable);
  if (!api) return;
  for (const row of rows)
    if (DELIVERY_VARIANTS.includes(row.system) && !row.notApplicable)
      row.extra = { ...row.extra, ...ratioColumns(row, api) };
}

const NOTES: Partial<Record<SystemName, string>> = {
  'ours-pull':
    'ours-pull: ours-api with pull delivery, 4 consumers leasing (max per `--pull-max`, wait 20 s) and acking.',
  'ours-redis':
    'ours-redis: ours-api with broker delivery to a Redis Stream (XADD; the reply is the confirm); one consumer of a group reads it (ioredis XREADGROUP COUNT 256 BLOCK 1000, XACK after the handler).',
  'ours-rabbitmq':
    'ours-rabbitmq: ours-api with broker delivery to a RabbitMQ direct exchange (confirm channel, persistent, mandatory) routed to a durable queue; one consumer reads it (amqplib, prefetch 256, ack after the handler).',
  'ours-kafka':
    'ours-kafka: ours-api with broker delivery to a Kafka topic of one partition (idempotent producer, acks=-1); one consumer of a group reads it (kafkajs eachBatch, offsets committed after the handlers).',
};

/** What the delivery variants among `names` are, and how their lag and ratios read. */
export function variantNotes(names: readonly SystemName[]): string[] {
  const shown = names.filter((name) => NOTES[name] !== undefined);
  if (shown.length === 0) return [];
  return [
    ...shown.map((name) => NOTES[name]!),
    `${shown.join(', ')}: the same stack as ours-api (one Temporal server, worker and API), measured one after the other; lag = the receiver's arrival of the POST each consumer (in the benchmark process, its CPU not counted) sends as soon as it has read the task, so due → read plus one loopback request, as the callback path's is due → the service's POST landing. CPU ms/task includes the broker's server (its own column). \`÷ ours-api\`: p50, p99 and CPU per task of the processes both run (API, worker, Temporal; not the broker) over the callback path's in the same run.`,
  ];
}
