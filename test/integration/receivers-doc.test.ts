/**
 * docs/receivers.md as a newcomer runs it: Redis and PostgreSQL from scripts/local-server.sh, three
 * replicas of docs/examples/receivers/receiver.ts as processes sharing the Redis store, the one
 * signed callback of send.ts to all three at once (exactly one effect, the key done in Redis), and
 * the SQL inbox of inbox.ts (the failed effect rolled back with its mark). The page's commands are
 * the ones run here: its `export` lines run in bash as written, its programs with the same
 * arguments, ports aside (free ports instead of 9001-9003).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWebhookSecret } from '../../src/security/webhook-signature.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const EXAMPLES = 'docs/examples/receivers';
const page = readFileSync('docs/receivers.md', 'utf8');

/** Runs the page's line `export NAME="..."` in bash and answers the value it exported. */
async function pageExport(name: string): Promise<string> {
  const line = new RegExp(`^export ${name}=".*"$`, 'm').exec(page)?.[0];
  if (!line) throw new Error(`docs/receivers.md has no line export ${name}="..."`);
  const { stdout } = await run('bash', ['-c', `${line} && printf %s "$${name}"`], { timeout: 120_000 });
  return stdout;
}

/**
 * Starts a server with the page's line. It is left running: other files use the same instance at
 * the same time (two workers), and a stop here would fail them; scripts/test.sh stops it at its end.
 */
async function localServer(variable: string) {
  const url = await pageExport(variable);
  return { url, stop: () => Promise.resolve() };
}

/** `node --import tsx docs/examples/receivers/<file> ...args`, as the page writes it. */
function command(file: string, args: string[]): string[] {
  return ['node', '--import', 'tsx', `${EXAMPLES}/${file}`, ...args];
}

interface Replica {
  child: ChildProcess;
  port: string;
  effects: string[];
}

function startReplica(env: NodeJS.ProcessEnv): Promise<Replica> {
  const [, ...args] = command('receiver.ts', ['0']);
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const effects: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const listening = /^replica listening on http:\/\/127\.0\.0\.1:(\d+)\/callbacks$/.exec(line);
      if (listening) resolve({ child, port: listening[1]!, effects });
      else if (line.startsWith('effect: ')) effects.push(line);
    });
  });
}

function stopReplica({ child }: Replica): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

describe('docs/receivers.md', () => {
  // The `export` lines are run from the page itself (pageExport); the programs' lines are these.
  it('shows the commands this test runs', () => {
    for (const port of ['9001', '9002', '9003']) {
      expect(page).toContain(`${command('receiver.ts', [port]).join(' ')} &`);
    }
    expect(page).toContain(command('send.ts', ['9001', '9002', '9003']).join(' '));
    expect(page).toContain(command('inbox.ts', []).join(' '));
  });

  describe('three replicas on the Redis store, one callback sent to all three', () => {
    let redis: { url: string; stop: () => Promise<unknown> };
    let client: Redis;
    let replicas: Replica[] = [];
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      redis = await localServer('REDIS_URL');
      client = new Redis(redis.url);
      const secret = await pageExport('WEBHOOK_SECRET');
      expect(isWebhookSecret(secret)).toBe(true);
      env = { ...process.env, REDIS_URL: redis.url, WEBHOOK_SECRET: secret };
      replicas = await Promise.all([1, 2, 3].map(() => startReplica(env)));
    });
    afterAll(async () => {
      await Promise.all(replicas.map(stopReplica));
      await client?.quit();
      await redis?.stop();
    });

    it('one effect: handled once, duplicate (or 503 then duplicate) twice; the key done in Redis', async () => {
      const [, ...args] = command(
        'send.ts',
        replicas.map((r) => r.port),
      );
      const { stdout } = await run(process.execPath, args, { env, timeout: 30_000 });
      const [header, ...answers] = stdout.trim().split('\n');
      const id = /webhook-id (msg_[0-9a-f]{32})$/.exec(header ?? '')?.[1];
      expect(id).toBeDefined();
      const finals = answers.map((line) => /"status":"(\w+)"\}$/.exec(line)?.[1]).sort();
      expect(finals).toEqual(['duplicate', 'duplicate', 'handled']);
      for (const line of answers) expect(line).toMatch(/^:\d+ (503 \{"status":"retry"\}, then )*200 /);
      // The handled replica printed its effect before answering; no other replica printed one.
      await waitFor(() => replicas.some((r) => r.effects.length > 0), { what: 'the effect line' });
      expect(replicas.flatMap((r) => r.effects)).toHaveLength(1);
      const handled = answers.find((line) => line.endsWith('"handled"}'))!;
      const winner = replicas.find((r) => handled.startsWith(`:${r.port} `))!;
      expect(winner.effects[0]).toMatch(new RegExp(`^effect: order [0-9a-f]{8} closed by :${winner.port}$`));
      expect(await client.get(`delayed-tasks:idem:${id}`)).toBe('done');
      await client.del(`delayed-tasks:idem:${id}`);
    });
  });

  describe('the SQL inbox', () => {
    let postgres: { url: string; stop: () => Promise<unknown> };
    let pool: pg.Pool;
    beforeAll(async () => {
      postgres = await localServer('DATABASE_URL');
      pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
    });
    afterAll(async () => {
      await pool?.end();
      await postgres?.stop();
    });

    it('commits the business row and the mark together; a failed effect rolls both back', async () => {
      const [, ...args] = command('inbox.ts', []);
      const { stdout } = await run(process.execPath, args, {
        env: { ...process.env, DATABASE_URL: postgres.url },
        timeout: 30_000,
      });
      const lines = stdout.trim().split('\n');
      const runId = /^order-([0-9a-f]{8})-a:/.exec(lines[0] ?? '')?.[1];
      expect(runId).toBeDefined();
      const [a, b] = [`${runId}-a`, `${runId}-b`];
      expect(lines).toEqual([
        `order-${a}: COMMITTED; order row present, mark done`,
        `order-${a} again: DONE; order row present, mark done`,
        `order-${b} failing: rolled back (the payment service is down); order row absent, mark absent`,
        `order-${b} retried: COMMITTED; order row present, mark done`,
      ]);
      // From the database's side: one row per order (the duplicate wrote none), both marks done.
      const rows = await pool.query<{ order_id: string }>(
        'SELECT order_id FROM example_closed_orders WHERE order_id = ANY($1) ORDER BY order_id',
        [[a, b]],
      );
      expect(rows.rows.map((r) => r.order_id)).toEqual([a, b]);
      const marks = await pool.query<{ state: string }>(
        'SELECT state FROM delayed_tasks_idempotency WHERE key = ANY($1)',
        [[`order-${a}`, `order-${b}`]],
      );
      expect(marks.rows.map((r) => r.state)).toEqual(['done', 'done']);
      await pool.query('DELETE FROM example_closed_orders WHERE order_id = ANY($1)', [[a, b]]);
      await pool.query('DELETE FROM delayed_tasks_idempotency WHERE key = ANY($1)', [
        [`order-${a}`, `order-${b}`],
      ]);
    });
  });
});
