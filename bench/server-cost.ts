/**
 * What one task makes the Temporal server write (issue 25, lever 3): a task created through the API,
 * due in 2 s, called back once (200) and SUCCEEDED. Prints, as markdown:
 * - the server's own counts while the task ran (its Prometheus metrics, namespace `default`): history
 *   and visibility writes by operation, matching dispatches, workflow tasks, frontend calls;
 * - the history: every event with its encoded size, and where the task's payload, callback URL and
 *   task id are stored (start input, memo, summary, local activity marker, result);
 * - the memo and search attributes written at start, by the workflow (upserts) and at close.
 *
 *   npx tsx bench/server-cost.ts [--tasks 10] [--payload-bytes 1024]
 *
 * Runs its own dev server (the bench's, with the project's pragmas and dynamic config, metrics on a
 * loopback port), the workers in this process and the API through inject, as the integration tests
 * do. One warm-up task runs first; then one task alone, then `--tasks` at once (per-task figures of
 * both: the server's background work, e.g. its own system workflows, shows as a difference). Counts
 * do not depend on load; about 40 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import proto, { type temporal } from '@temporalio/proto';
import { Harness } from '../test/helpers/harness.js';
import { writeWorkflowBundle } from '../test/helpers/dev-server.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../src/temporal/dev-server.js';
import { TemporalDevServer, temporalCli } from './infra/temporal-server.js';
import { sleep } from './infra/wait.js';

const { EventType } = proto.temporal.api.enums.v1;
const { HistoryEvent, History } = proto.temporal.api.history.v1;
type Event = temporal.api.history.v1.IHistoryEvent;

const { values: flags } = parseArgs({
  options: {
    tasks: { type: 'string', default: '10' },
    'payload-bytes': { type: 'string', default: '0' },
  },
});

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'server-cost-'));

/** Counters of the server's metrics endpoint summed by `metric operation` (namespace default or none). */
async function counters(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url, { signal: AbortSignal.timeout(5000) })).text();
  const totals = new Map<string, number>();
  const label = (labels: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
  for (const [, metric, labels, raw] of text.matchAll(/^(\w+)\{([^}]*)\} (\S+)$/gm)) {
    const namespace = label(labels!, 'namespace');
    if (namespace !== undefined && namespace !== 'default') continue;
    let key: string | undefined;
    if (metric === 'persistence_requests' || metric === 'visibility_persistence_requests')
      key = `${metric} ${label(labels!, 'operation')}`;
    else if (metric === 'service_requests')
      key = `${label(labels!, 'service_name')} ${label(labels!, 'operation')}`;
    if (key) totals.set(key, (totals.get(key) ?? 0) + Number(raw));
  }
  return totals;
}

function diff(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    if (d !== 0) out.set(key, d);
  }
  return out;
}

/** Waits until the server's counters stop moving (2 readings 1 s apart equal), at most 15 s. */
async function idle(url: string): Promise<Map<string, number>> {
  let last = await counters(url);
  for (let i = 0; i < 15; i++) {
    await sleep(1000);
    const next = await counters(url);
    const moved = [...diff(next, last).keys()].some((k) => !k.includes('Poll') && !k.includes('GetTasks'));
    last = next;
    if (!moved) break;
  }
  return last;
}

const size = (event: Event) => HistoryEvent.encode(event).finish().length;
const bytesOf = (payloads: temporal.api.common.v1.IPayload[] | null | undefined) =>
  (payloads ?? []).reduce(
    (sum, p) =>
      sum + (p.data?.length ?? 0) + Object.values(p.metadata ?? {}).reduce((s, m) => s + m.length, 0),
    0,
  );

function occurrences(haystack: Uint8Array, needle: string): number {
  const text = Buffer.from(haystack).toString('latin1');
  const n = Buffer.from(needle, 'utf8').toString('latin1');
  let count = 0;
  for (let at = text.indexOf(n); at !== -1; at = text.indexOf(n, at + 1)) count++;
  return count;
}

const typeName = (event: Event) =>
  (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '');

function fieldSizes(fields: Record<string, temporal.api.common.v1.IPayload> | null | undefined): string {
  return Object.entries(fields ?? {})
    .map(([key, payload]) => `${key} ${bytesOf([payload])} B`)
    .join(', ');
}

async function main(): Promise<void> {
  const cli = temporalCli(root);
  const server = await TemporalDevServer.start(cli, {
    name: 'server-cost',
    dir,
    pragmas: [...DEV_SERVER_SQLITE_PRAGMAS],
    dynamicConfig: [],
  });
  const bundlePath = await writeWorkflowBundle();
  const h = await Harness.start({
    server: { address: server.address, workflowBundlePath: bundlePath },
  });
  try {
    const padding = 'x'.repeat(Number(flags['payload-bytes']));
    const create = async (taskId: string, delaySeconds: number) => {
      const marker = `order-${taskId}`;
      const { status, task } = await h.create({
        taskType: 'bench.herd',
        taskId,
        // The benchmark's herd payload, plus optional padding.
        payload: { orderId: marker, note: 'herd', ...(padding ? { padding } : {}) },
        delaySeconds,
        callbackUrl: `${h.receiver.url}/cb`,
        maxRetries: 3,
      });
      if (status !== 201) throw new Error(`create answered ${status}: ${JSON.stringify(task)}`);
      return { taskId: task.taskId, marker };
    };
    const settle = async (taskIds: string[]) => {
      for (const id of taskIds) await h.client.workflow.getHandle(id).result();
      return idle(server.metricsUrl);
    };

    // Warm-up: the first task of a worker builds its sandbox; the server creates its task queues.
    const warm = await create(`warm-${Date.now()}`, 0);
    await settle([warm.taskId]);

    const run = async (count: number) => {
      const before = await idle(server.metricsUrl);
      const created = await Promise.all(
        Array.from({ length: count }, (_, i) => create(`cost-${count}-${i}-${Date.now()}`, 2)),
      );
      const after = await settle(created.map((t) => t.taskId));
      return { created, counts: diff(after, before) };
    };
    const one = await run(1);
    const many = await run(Number(flags.tasks));

    const { taskId, marker } = one.created[0]!;
    const final = await h.get(taskId);
    const history = await h.client.workflow.getHandle(taskId).fetchHistory();
    const events = history.events ?? [];
    const description = await h.client.workflow.getHandle(taskId).describe();

    console.log(`# server cost of one task (${new Date().toISOString()})\n`);
    console.log(
      `task ${taskId}: final status ${final.body.status}, attempts ${final.body.attempts}; payload ${JSON.stringify({ orderId: marker, note: 'herd' }).length + (padding ? padding.length + 13 : 0)} B as JSON\n`,
    );
    console.log('## Server counts (its own metrics), per task\n');
    console.log(`| counter | 1 task | per task of ${flags.tasks} at once |`);
    console.log('|---|---:|---:|');
    const keys = [...new Set([...one.counts.keys(), ...many.counts.keys()])]
      .filter((k) => !/Poll|GetTasks|RangeComplete|CompleteTasks|GetHistoryTasks/.test(k))
      .sort();
    for (const key of keys)
      console.log(
        `| ${key} | ${one.counts.get(key) ?? 0} | ${((many.counts.get(key) ?? 0) / Number(flags.tasks)).toFixed(2)} |`,
      );

    console.log('\n## History\n');
    const total = History.encode({ events }).finish().length;
    console.log(`${events.length} events, ${total} bytes encoded (protobuf, as the server stores them)\n`);
    console.log('| # | event | bytes | payload | callback URL | task id |');
    console.log('|---:|---|---:|---:|---:|---:|');
    const url = `${h.receiver.url}/cb`;
    for (const event of events) {
      const encoded = HistoryEvent.encode(event).finish();
      console.log(
        `| ${event.eventId} | ${typeName(event)} | ${size(event)} | ${occurrences(encoded, marker)} | ${occurrences(encoded, url)} | ${occurrences(encoded, taskId) - occurrences(encoded, marker)} |`,
      );
    }

    console.log('\n## Memo and search attributes\n');
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    console.log(`- start input: ${bytesOf(started?.input?.payloads)} B`);
    console.log(`- start memo: ${fieldSizes(started?.memo?.fields)}`);
    console.log(`- start search attributes: ${fieldSizes(started?.searchAttributes?.indexedFields)}`);
    console.log(
      `- start user metadata (summary, details): ${bytesOf([events[0]?.userMetadata?.summary ?? {}])} B, ${bytesOf([events[0]?.userMetadata?.details ?? {}])} B`,
    );
    for (const event of events) {
      const sa = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      if (sa) console.log(`- event ${event.eventId} upsert search attributes: ${fieldSizes(sa)}`);
      const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
      if (memo) console.log(`- event ${event.eventId} upsert memo: ${fieldSizes(memo)}`);
      const result = event.workflowExecutionCompletedEventAttributes?.result?.payloads;
      if (result) console.log(`- event ${event.eventId} result: ${bytesOf(result)} B`);
      const marker = event.markerRecordedEventAttributes;
      if (marker)
        console.log(
          `- event ${event.eventId} marker ${marker.markerName}: ${Object.entries(marker.details ?? {})
            .map(([k, v]) => `${k} ${bytesOf(v.payloads)} B`)
            .join(', ')}`,
        );
    }
    console.log(
      `- visibility record at close: memo ${fieldSizes(description.raw.workflowExecutionInfo?.memo?.fields)}; search attributes ${fieldSizes(description.raw.workflowExecutionInfo?.searchAttributes?.indexedFields)}`,
    );
  } finally {
    await h.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(bundlePath, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
