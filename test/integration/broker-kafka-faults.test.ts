/**
 * Kafka faults, against a Kafka broker of this file's own (scripts/local-server.sh kafka@broker-faults:
 * stopped and frozen here, other files' broker untouched) and a worker run as its own process, as
 * deployed:
 * - the broker down: each attempt fails, retried with the task type's backoff, then dead-lettered;
 *   replayed once the broker is back, the topic holds the record once; the worker's /metrics counted
 *   every failure and the publish, and timed each;
 * - the worker killed (-9) mid-publish: the broker frozen, the produce request waits unread in its
 *   socket; a new worker produces again, the task succeeds, and every copy carries the task's key.
 * The local broker starts with an empty log each time (its quorum is new): the test creates its
 * topic again after the restart, as an operator's topic would still be there.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeKafkaWithNode } from '../helpers/broker-consume-node.js';
import {
  brokerSeries,
  freezeServer,
  startWorkerProcess,
  thawServer,
  unreadBytes,
} from '../helpers/broker-faults.js';
import { localServer, stopLocalServer, writeBrokersFile } from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import type { ServiceProcess } from '../helpers/processes.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const SERVER = 'kafka@broker-faults';
const RETRY = { immediateRetries: 0, initialIntervalMs: 300, multiplier: 2, maxIntervalMs: 600 };
const taskType = `broker.kafka.faults.${uniqueId('t')}`;
const policies = { taskTypes: { [taskType]: { retry: RETRY } } };

let h: Harness;
let url: string;
let brokers: string[];
/** The worker process: scraped in the outage test, killed in the last one. */
let worker: ServiceProcess | undefined;
let metricsUrl: string;
let frozen = false;

beforeAll(async () => {
  url = localServer(SERVER);
  brokers = bootstrapServers(url);
  const brokersFile = writeBrokersFile({ down: { kind: 'kafka', url, owners: { default: ['faults.*'] } } });
  h = await Harness.start({ env: { BROKERS_FILE: brokersFile }, policies, workers: false });
  ({ worker, metricsUrl } = await startWorkerProcess(h, { BROKERS_FILE: brokersFile, policies }));
}, 600_000);

afterAll(async () => {
  if (frozen) thawServer(SERVER);
  await worker?.stop();
  await h?.stop();
  stopLocalServer(SERVER);
});

const kafka = () => new Kafka({ brokers, logLevel: logLevel.NOTHING });

async function createTopic(topic: string): Promise<void> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

/** The records the topic (one partition) holds: its high watermark. */
async function recordsIn(topic: string): Promise<number> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    const [partition] = await admin.fetchTopicOffsets(topic);
    return Number(partition!.high);
  } finally {
    await admin.disconnect();
  }
}

const publish = (taskId: string, topic: string, extra: Record<string, unknown> = {}) =>
  h.create({
    taskType,
    taskId,
    payload: { orderId: 1 },
    delaySeconds: 0,
    delivery: { mode: 'broker', broker: 'down', topic },
    ...extra,
  });

/** Produces a task to `topic`: the worker's producer is connected and knows the topic (as in production). */
async function warmUp(topic: string): Promise<void> {
  const taskId = uniqueId('kafka.warm');
  expect((await publish(taskId, topic)).status).toBe(201);
  await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
}

describe('Kafka faults', () => {
  it('retries a broker that is down with the backoff, dead-letters, and delivers once on replay; /metrics counts each', async () => {
    const topic = `faults.${uniqueId('down')}`;
    await createTopic(topic);
    await warmUp(topic);
    const before = await brokerSeries(metricsUrl, 'down', 'kafka');
    stopLocalServer(SERVER);
    const taskId = uniqueId('kafka.down');
    expect((await publish(taskId, topic, { maxRetries: 2, timeoutMs: 2000 })).status).toBe(201);
    const failed = await waitForStatus(h, taskId, 'FAILED', 60_000);
    expect(failed.attempts).toBe(3);
    expect(failed.lastError?.message).toMatch(/^broker down: /);
    const history = failed.attemptHistory ?? [];
    expect(history.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'RETRYABLE_ERROR', 'RETRYABLE_ERROR']);
    const starts = history.map((a) => Date.parse(a.startedAt));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(300);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(600);
    const down = await brokerSeries(metricsUrl, 'down', 'kafka');
    expect(down.failed - before.failed).toBe(3);
    expect(down.published).toBe(before.published);
    expect(down.timed - before.timed).toBe(3);

    expect(localServer(SERVER)).toBe(url);
    await createTopic(topic);
    const replayed = await h.call('POST', `/api/v1/tasks/${encodeURIComponent(taskId)}/replay`);
    expect(replayed.status).toBe(200);
    await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
    expect(await recordsIn(topic)).toBe(1);
    const [record] = await consumeKafkaWithNode(brokers, topic, uniqueId('group'), 1);
    expect(record!.properties.key).toBe(idempotencyKeyOf('default', taskId));
    expect(record!.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    expect(JSON.parse(record!.body).taskId).toBe(taskId);
    const back = await brokerSeries(metricsUrl, 'down', 'kafka');
    expect(back.published - down.published).toBe(1);
    expect(back.failed).toBe(down.failed);
    expect(back.timed - down.timed).toBe(1);
    expect(back.seconds).toBeGreaterThan(down.seconds);
  });

  it('loses nothing when the worker is killed mid-publish: the next worker produces again, under the same key', async () => {
    const topic = `faults.${uniqueId('kill')}`;
    await createTopic(topic);
    await warmUp(topic);
    const port = Number(brokers[0]!.split(':')[1]);
    freezeServer(SERVER);
    frozen = true;
    const idle = unreadBytes(port);
    const taskId = uniqueId('kafka.kill');
    expect((await publish(taskId, topic, { timeoutMs: 1000 })).status).toBe(201);
    // The produce request has reached the broker and waits there, unread.
    await waitFor(() => unreadBytes(port) > idle, {
      timeoutMs: 30_000,
      what: 'the produce request to wait in the frozen broker',
    });
    worker!.signal('SIGKILL');
    await worker!.exitCode();
    worker = undefined;
    thawServer(SERVER);
    frozen = false;

    await h.startWorkers();
    await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
    // The warm-up's record, then the task's copies.
    const held = await recordsIn(topic);
    expect(held).toBeGreaterThanOrEqual(2);
    const copies = (await consumeKafkaWithNode(brokers, topic, uniqueId('group'), held)).filter(
      (m) => m.headers['task-id'] === taskId,
    );
    expect(copies).toHaveLength(held - 1);
    for (const copy of copies) {
      expect(copy.properties.key).toBe(idempotencyKeyOf('default', taskId));
      expect(copy.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    }
    console.info(`kafka kill -9 mid-publish: ${copies.length} cop(ies) in the topic`);
  });
});
