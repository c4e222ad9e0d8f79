/**
 * RabbitMQ faults, against a rabbitmq-server of this file's own (scripts/local-server.sh
 * rabbitmq@broker-faults: stopped and frozen here, other files' broker untouched) and a worker run as
 * its own process, as deployed:
 * - the broker down: each attempt fails, retried with the task type's backoff, then dead-lettered;
 *   replayed once the broker is back, the queue holds the message once; the worker's /metrics counted
 *   every failure and the publish, and timed each;
 * - the worker killed (-9) mid-publish: the broker frozen, the publish waits unread in its socket; a
 *   new worker publishes again, the task succeeds, and every copy in the queue carries the task's key.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { consumeRabbitWithNode } from '../helpers/broker-consume-node.js';
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

const SERVER = 'rabbitmq@broker-faults';
const RETRY = { immediateRetries: 0, initialIntervalMs: 300, multiplier: 2, maxIntervalMs: 600 };
const taskType = `broker.rabbit.faults.${uniqueId('t')}`;
const policies = { taskTypes: { [taskType]: { retry: RETRY } } };
const exchange = `faults.${uniqueId('x')}`;
const queue = `faults.due.${uniqueId('q')}`;

let h: Harness;
let url: string;
let brokersFile: string;
/** The worker process: scraped in the outage test, killed in the last one. */
let worker: ServiceProcess | undefined;
let metricsUrl: string;
let frozen = false;

beforeAll(async () => {
  url = localServer(SERVER);
  const admin = await amqp.connect(url);
  const channel = await admin.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  await channel.bindQueue(queue, exchange, taskType);
  await admin.close();
  // The password from a file, as a mounted Secret gives it; the URL without credentials.
  const passwordFile = join(mkdtempSync(join(tmpdir(), 'rabbit-password-')), 'password');
  writeFileSync(passwordFile, 'guest\n');
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  brokersFile = writeBrokersFile({
    down: {
      kind: 'rabbitmq',
      url: bare.toString(),
      username: 'guest',
      passwordFile,
      owners: { default: ['faults.*'] },
    },
  });
  h = await Harness.start({ env: { BROKERS_FILE: brokersFile }, policies, workers: false });
  ({ worker, metricsUrl } = await startWorkerProcess(h, { BROKERS_FILE: brokersFile, policies }));
}, 600_000);

afterAll(async () => {
  if (frozen) thawServer(SERVER);
  await worker?.stop();
  await h?.stop();
  stopLocalServer(SERVER);
});

const publish = (taskId: string, extra: Record<string, unknown> = {}) =>
  h.create({
    taskType,
    taskId,
    payload: { orderId: 1 },
    delaySeconds: 0,
    delivery: { mode: 'broker', broker: 'down', exchange },
    ...extra,
  });

/** Publishes a task and drains it: the worker's connection to the broker is open (as in production). */
async function warmUp(): Promise<void> {
  const taskId = uniqueId('rabbit.warm');
  expect((await publish(taskId)).status).toBe(201);
  await waitForStatus(h, taskId, 'SUCCEEDED');
  expect(await consumeRabbitWithNode(url, queue, 'all')).toHaveLength(1);
}

describe('RabbitMQ faults', () => {
  it('retries a broker that is down with the backoff, dead-letters, and delivers once on replay; /metrics counts each', async () => {
    await warmUp();
    const before = await brokerSeries(metricsUrl, 'down', 'rabbitmq');
    stopLocalServer(SERVER);
    const taskId = uniqueId('rabbit.down');
    expect((await publish(taskId, { maxRetries: 2, timeoutMs: 2000 })).status).toBe(201);
    const failed = await waitForStatus(h, taskId, 'FAILED', 60_000);
    expect(failed.attempts).toBe(3);
    expect(failed.lastError?.message).toMatch(/^broker down: /);
    const history = failed.attemptHistory ?? [];
    expect(history.map((a) => a.outcome)).toEqual(['RETRYABLE_ERROR', 'RETRYABLE_ERROR', 'RETRYABLE_ERROR']);
    // The task type's backoff (300 ms, then 600 ms) lies between the attempts.
    const starts = history.map((a) => Date.parse(a.startedAt));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(300);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(600);
    const down = await brokerSeries(metricsUrl, 'down', 'rabbitmq');
    expect(down.failed - before.failed).toBe(3);
    expect(down.published).toBe(before.published);
    expect(down.timed - before.timed).toBe(3);

    // Back on the same port (the declaration holds); the exchange and queue are durable.
    expect(localServer(SERVER)).toBe(url);
    const replayed = await h.call('POST', `/api/v1/tasks/${encodeURIComponent(taskId)}/replay`);
    expect(replayed.status).toBe(200);
    await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
    const messages = await consumeRabbitWithNode(url, queue, 'all');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.properties.messageId).toBe(idempotencyKeyOf('default', taskId));
    expect(JSON.parse(messages[0]!.body).taskId).toBe(taskId);
    const back = await brokerSeries(metricsUrl, 'down', 'rabbitmq');
    expect(back.published - down.published).toBe(1);
    expect(back.failed).toBe(down.failed);
    expect(back.timed - down.timed).toBe(1);
    expect(back.seconds).toBeGreaterThan(down.seconds);
  });

  it('loses nothing when the worker is killed mid-publish: the next worker publishes again, under the same key', async () => {
    await warmUp();
    const port = Number(new URL(url).port);
    freezeServer(SERVER);
    frozen = true;
    const idle = unreadBytes(port);
    const taskId = uniqueId('rabbit.kill');
    expect((await publish(taskId, { timeoutMs: 1000 })).status).toBe(201);
    // The worker's publish has reached the broker and waits there, unread.
    await waitFor(() => unreadBytes(port) > idle, {
      timeoutMs: 30_000,
      what: 'the publish to wait in the frozen broker',
    });
    worker!.signal('SIGKILL');
    await worker!.exitCode();
    worker = undefined;
    thawServer(SERVER);
    frozen = false;

    await h.startWorkers();
    await waitForStatus(h, taskId, 'SUCCEEDED', 60_000);
    const messages = (await consumeRabbitWithNode(url, queue, 'all')).filter(
      (m) => m.headers['task-id'] === taskId,
    );
    expect(messages.length).toBeGreaterThanOrEqual(1);
    for (const message of messages) {
      expect(message.properties.messageId).toBe(idempotencyKeyOf('default', taskId));
      expect(message.headers['idempotency-key']).toBe(idempotencyKeyOf('default', taskId));
    }
    console.info(`rabbitmq kill -9 mid-publish: ${messages.length} cop(ies) in the queue`);
  });
});
