/**
 * docs/brokers.md's "Try it on your machine" as a newcomer runs it: each broker from
 * scripts/local-server.sh, declared as scripts/dev.sh declares it (`redis`, `rabbitmq`, `kafka` for
 * the default owner, any destination), the API listening as dev.sh's does, and each broker's block of
 * the page run in bash as written: the page's curl creates the task and the page's reader (redis-cli
 * XREADGROUP, docs/examples/brokers/*.ts) prints its envelope when due. Aside from what is written:
 * the API's port (a free one instead of 3000), the servers (this machine's shared test instances,
 * `redis` instead of `redis@dev`), and the task ids and destination names (a suffix of this run, so
 * a second run reads its own task, not the first's).
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapServers } from '../../src/activities/brokers/kafka.js';
import { writeBrokersFile } from '../helpers/brokers.js';
import { Harness } from '../helpers/harness.js';
import { uniqueId } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const page = readFileSync('docs/brokers.md', 'utf8');
const section = page.slice(page.indexOf('## Try it on your machine'));
const blocks = [...section.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

type Name = 'redis' | 'rabbitmq' | 'kafka';
const KINDS = { redis: 'redis-streams', rabbitmq: 'rabbitmq', kafka: 'kafka' } as const;

/** The page's block for one broker: the one that asks scripts/local-server.sh for `NAME@dev`. */
function blockOf(name: Name): string {
  const found = blocks.filter((b) => b.includes(`$(scripts/local-server.sh ${name}@dev)`));
  if (found.length !== 1) throw new Error(`docs/brokers.md: ${found.length} blocks for ${name}, not 1`);
  return found[0]!;
}

const suffix = uniqueId('doc')
  .replace(/[^A-Za-z0-9]/g, '')
  .slice(-10);
let h: Harness;
let api: string;
const urls = {} as Record<Name, string>;

/** Runs a block in bash (its own process group, killed whole on timeout); answers its stdout. */
function runBlock(script: string, timeoutMs = 45_000): Promise<string> {
  const child = spawn('bash', ['-e', '-c', script], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`block exited ${signal ?? code}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
  });
}

/** The page's block as this test runs it (see the file's comment for what differs). */
function asRun(name: Name): string {
  return blockOf(name)
    .replaceAll('localhost:3000', api)
    .replaceAll(`${name}@dev`, name)
    .replace(/order-(\d+)-close/g, `order-$1-close-${suffix}`)
    .replaceAll('orders.due', `orders.due.${suffix}`);
}

/** What a block printed: the curl's answer (its first line), and the reader's lines after it. */
function printed(stdout: string): { created: Record<string, unknown>; lines: string[] } {
  const lines = stdout.trimEnd().split('\n');
  const curl = lines.findIndex((line) => line.startsWith('{'));
  expect(curl, stdout).toBeGreaterThanOrEqual(0);
  return { created: JSON.parse(lines[curl]!) as Record<string, unknown>, lines: lines.slice(curl + 1) };
}

const taskIdOf = (name: Name) => `${/"taskId": "(order-\d+-close)"/.exec(blockOf(name))![1]}-${suffix}`;
const topic = `orders.due.${suffix}`;

function expectEnvelope(body: string | undefined, taskId: string): void {
  expect(JSON.parse(body ?? 'null')).toMatchObject({ taskId, taskType: 'order.close', attempt: 1 });
}

const succeeded = (taskId: string) =>
  waitFor(async () => (await h.get(taskId)).body.status === 'SUCCEEDED', {
    timeoutMs: 20_000,
    what: `${taskId} SUCCEEDED`,
  });

beforeAll(async () => {
  const started = await Promise.all(
    (['redis', 'rabbitmq', 'kafka'] as const).map(async (name) => {
      const { stdout } = await run('scripts/local-server.sh', [name], { timeout: 600_000 });
      return [name, stdout.trim()] as const;
    }),
  );
  for (const [name, url] of started) urls[name] = url;
  // Declared as scripts/dev.sh declares them: RabbitMQ's guest out of the URL, through the env.
  const brokers: Record<string, unknown> = {};
  for (const [name, url] of started) {
    const parsed = new URL(url);
    const user = decodeURIComponent(parsed.username);
    parsed.username = '';
    parsed.password = '';
    brokers[name] = {
      kind: KINDS[name],
      url: parsed.toString().replace(/\/$/, ''),
      ...(user && { username: user, passwordEnv: 'DEV_RABBITMQ_PASSWORD' }),
      owners: { default: ['*'] },
    };
  }
  h = await Harness.start({
    env: { BROKERS_FILE: writeBrokersFile(brokers), DEV_RABBITMQ_PASSWORD: 'guest' },
  });
  api = await h.app.listen({ host: '127.0.0.1', port: 0 }).then((address) => new URL(address).host);
}, 600_000);

// The servers are left running: other files use the same instances at the same time (two workers),
// and a stop here failed them; scripts/test.sh stops them all at its end.
afterAll(async () => {
  await h?.stop();
});

describe('docs/brokers.md: Try it on your machine', () => {
  it('starts each broker with the switch scripts/dev.sh reads, and dev.sh prints its URL', () => {
    const devSh = readFileSync('scripts/dev.sh', 'utf8');
    for (const name of ['redis', 'rabbitmq', 'kafka'] as const) {
      expect(section).toContain(`DEV_BROKERS=${name}`);
      expect(devSh).toContain(`${name}) kind=${KINDS[name]} ;;`);
      expect(blockOf(name)).toContain(`"broker": "${name}"`);
    }
    expect(blocks[0]).toMatch(/^DEV_BROKERS=redis \.\/scripts\/dev\.sh /);
    expect(devSh).toContain('echo "[dev] broker $broker ($kind): $url" >&2');
  });

  it('Redis: XREADGROUP prints the envelope when due, once', async () => {
    const taskId = taskIdOf('redis');
    const { created, lines } = printed(await runBlock(asRun('redis')));
    expect(created).toMatchObject({ taskId, status: 'SCHEDULED' });
    // redis-cli, not on a terminal: the stream, the entry id, then each field and value on a line.
    expect(lines.filter((line) => line === 'body')).toHaveLength(1);
    expectEnvelope(lines[lines.indexOf('body') + 1], taskId);
    expect(lines[lines.indexOf('idempotency-key') + 1]).toBe(taskId);
    await succeeded(taskId);
    const redis = new Redis(urls.redis);
    try {
      expect(await redis.xlen(topic)).toBe(1);
      await redis.del(topic);
    } finally {
      redis.disconnect();
    }
  });

  it('RabbitMQ: rabbitmq-read.ts prints the envelope when due, once', async () => {
    const taskId = taskIdOf('rabbitmq');
    const { created, lines } = printed(await runBlock(asRun('rabbitmq')));
    expect(created).toMatchObject({ taskId, status: 'SCHEDULED' });
    expect(lines[0]).toBe(`${topic}: message_id ${taskId}, type order.close, delivery_mode 2`);
    expect(lines).toContain(`idempotency-key: ${taskId}`);
    const bodies = lines.filter((line) => line.startsWith('body: '));
    expect(bodies).toHaveLength(1);
    expectEnvelope(bodies[0]!.slice('body: '.length), taskId);
    // Published once: the reader took one message and the queue holds no other.
    await succeeded(taskId);
    const connection = await amqp.connect(urls.rabbitmq);
    try {
      const channel = await connection.createChannel();
      expect((await channel.checkQueue(topic)).messageCount).toBe(0);
      await channel.deleteQueue(topic);
    } finally {
      await connection.close();
    }
  });

  it('Kafka: kafka-read.ts prints the envelope when due, once', async () => {
    const taskId = taskIdOf('kafka');
    const { created, lines } = printed(await runBlock(asRun('kafka')));
    expect(created).toMatchObject({ taskId, status: 'SCHEDULED' });
    expect(lines[0]).toBe(`${topic}[0]@0: key ${taskId}`);
    expect(lines).toContain(`idempotency-key: ${taskId}`);
    const bodies = lines.filter((line) => line.startsWith('body: '));
    expect(bodies).toHaveLength(1);
    expectEnvelope(bodies[0]!.slice('body: '.length), taskId);
    // Published once: the topic's one partition ends after the record the reader printed.
    await succeeded(taskId);
    const admin = new Kafka({ brokers: bootstrapServers(urls.kafka), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      expect(await admin.fetchTopicOffsets(topic)).toMatchObject([{ partition: 0, high: '1' }]);
      await admin.deleteTopics({ topics: [topic] });
    } finally {
      await admin.disconnect();
    }
  });
});
