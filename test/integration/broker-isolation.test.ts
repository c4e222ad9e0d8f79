/**
 * Owner isolation on RabbitMQ and Kafka targets, from the other owner's side, against the real
 * brokers of scripts/local-server.sh: owner bob cannot name owner alice's broker, nor alice's exchange
 * or topic on a broker they share. Each refusal answers exactly as a broker or destination that was
 * never declared (bob learns nothing of alice's), starts nothing (GET is 404 for both owners) and
 * publishes nothing (the queue's depth and the topic's offsets, as the broker reports them); alice's
 * own task to the same place is published, so the checks can see a publish.
 */
import amqp, { type ChannelModel } from 'amqplib';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import { idempotencyKeyOf } from '../../src/shared/owner.js';
import { localServer, writeBrokersFile } from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const taskType = `broker.isolation.${uniqueId('t')}`;
const aliceExchange = `alice.${uniqueId('x')}`;
const aliceQueue = `alice.due.${uniqueId('q')}`;
const aliceTopic = `alice.${uniqueId('topic')}`;

let h: Harness;
let rabbit: ChannelModel;
let kafkaAdmin: Admin;

beforeAll(async () => {
  const rabbitUrl = localServer('rabbitmq');
  const kafkaUrl = localServer('kafka');
  rabbit = await amqp.connect(rabbitUrl);
  const channel = await rabbit.createChannel();
  await channel.assertExchange(aliceExchange, 'direct', { durable: false, autoDelete: true });
  await channel.assertQueue(aliceQueue, { durable: false, autoDelete: true });
  await channel.bindQueue(aliceQueue, aliceExchange, taskType);
  await channel.close();
  kafkaAdmin = new Kafka({ brokers: bootstrapServers(kafkaUrl), logLevel: logLevel.NOTHING }).admin();
  await kafkaAdmin.connect();
  await kafkaAdmin.createTopics({
    topics: [{ topic: aliceTopic, numPartitions: 1, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  const bare = new URL(rabbitUrl);
  bare.username = '';
  bare.password = '';
  const rabbitmq = {
    kind: 'rabbitmq',
    url: bare.toString(),
    username: 'guest',
    passwordEnv: 'TEST_RABBIT_PASSWORD',
  };
  const kafka = { kind: 'kafka', url: kafkaUrl };
  h = await Harness.start({
    env: {
      TEST_RABBIT_PASSWORD: 'guest',
      BROKERS_FILE: writeBrokersFile({
        'alice-bus': { ...rabbitmq, owners: { alice: ['alice.*'] } },
        'alice-log': { ...kafka, owners: { alice: ['alice.*'] } },
        'shared-bus': { ...rabbitmq, owners: { alice: ['alice.*'], bob: ['bob.*'] } },
        'shared-log': { ...kafka, owners: { alice: ['alice.*'], bob: ['bob.*'] } },
      }),
    },
    keys: {
      alice: { owner: 'alice', scopes: ['tasks:read', 'tasks:write'] },
      bob: { owner: 'bob', scopes: ['tasks:read', 'tasks:write'] },
      // An owner name that is also a member of every JavaScript object.
      ctor: { owner: 'constructor', scopes: ['tasks:read', 'tasks:write'] },
    },
  });
}, 600_000);

afterAll(async () => {
  await h?.stop();
  await kafkaAdmin?.disconnect();
  await rabbit?.close();
});

type Who = 'alice' | 'bob' | 'ctor';
const create = (who: Who, taskId: string, delivery: Record<string, unknown>) =>
  h.call('POST', '/api/v1/tasks', {
    key: h.keys[who]!.key,
    payload: { taskType, taskId, payload: {}, delaySeconds: 0, delivery: { mode: 'broker', ...delivery } },
  });
const get = (who: Who, taskId: string) =>
  h.call('GET', `/api/v1/tasks/${encodeURIComponent(taskId)}`, { key: h.keys[who]!.key });

/** What each broker holds at alice's destination, as the broker reports it. */
async function queueDepth(): Promise<number> {
  const channel = await rabbit.createChannel();
  try {
    return (await channel.checkQueue(aliceQueue)).messageCount;
  } finally {
    await channel.close();
  }
}
async function topicRecords(): Promise<number> {
  const [partition] = await kafkaAdmin.fetchTopicOffsets(aliceTopic);
  return Number(partition!.high);
}

const KINDS = [
  {
    kind: 'rabbitmq',
    own: 'alice-bus',
    shared: 'shared-bus',
    field: 'exchange',
    destination: aliceExchange,
    held: queueDepth,
  },
  {
    kind: 'kafka',
    own: 'alice-log',
    shared: 'shared-log',
    field: 'topic',
    destination: aliceTopic,
    held: topicRecords,
  },
] as const;

describe.each(KINDS)("owner alice's $kind broker", ({ own, shared, field, destination, held }) => {
  /** A refusal: 400 on `field`, and no task of that id for either owner. */
  async function refused(who: Who, delivery: Record<string, unknown>, on: string) {
    const taskId = uniqueId('isolation');
    const answer = await create(who, taskId, delivery);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('INVALID_ARGUMENT');
    expect(answer.body.error.details).toEqual([expect.objectContaining({ field: on })]);
    for (const owner of ['alice', 'bob', who] as const) expect((await get(owner, taskId)).status).toBe(404);
    return answer;
  }

  it("refuses bob naming alice's broker exactly as an undeclared one, starts nothing, publishes nothing", async () => {
    const before = await held();
    const named = await refused('bob', { broker: own, [field]: destination }, 'delivery.broker');
    const undeclared = await refused('bob', { broker: 'nowhere', [field]: destination }, 'delivery.broker');
    expect(JSON.stringify(named.body).replaceAll(own, 'nowhere')).toBe(JSON.stringify(undeclared.body));
    expect(await held()).toBe(before);
  });

  it("refuses bob naming alice's destination on a shared broker exactly as one never declared", async () => {
    const before = await held();
    const named = await refused('bob', { broker: shared, [field]: destination }, `delivery.${field}`);
    const never = `alice.${uniqueId('never')}`;
    const undeclared = await refused('bob', { broker: shared, [field]: never }, `delivery.${field}`);
    expect(JSON.stringify(named.body).replaceAll(destination, never)).toBe(JSON.stringify(undeclared.body));
    expect(await held()).toBe(before);
  });

  it('answers an owner named "constructor" as any owner without the broker: 400, not a crash', async () => {
    const before = await held();
    const named = await refused('ctor', { broker: own, [field]: destination }, 'delivery.broker');
    const undeclared = await refused('ctor', { broker: 'nowhere', [field]: destination }, 'delivery.broker');
    expect(JSON.stringify(named.body).replaceAll(own, 'nowhere')).toBe(JSON.stringify(undeclared.body));
    expect(await held()).toBe(before);
  });

  it("publishes alice's own task there: the checks above would have seen a publish", async () => {
    const before = await held();
    const taskId = uniqueId('isolation.alice');
    expect((await create('alice', taskId, { broker: own, [field]: destination })).status).toBe(201);
    await waitFor(async () => (await get('alice', taskId)).body.status === 'SUCCEEDED', {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: `alice's task ${taskId} (${idempotencyKeyOf('alice', taskId)}) to be published`,
    });
    expect(await held()).toBe(before + 1);
  });
});
