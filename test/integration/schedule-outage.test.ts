/**
 * Schedules against a dev server of this file's own, on a database file this test reads and on a
 * port it keeps across a restart: the schedule's action (each occurrence's task, its payload and
 * callback URL) is encrypted at rest; operators run `temporal schedule list/describe/toggle/
 * trigger/backfill` through the codec endpoint; and after Temporal is down for longer than the
 * catch-up window, the missed runs inside the window start once each (a repeat, if the stop lands as a run starts,
 * keeps its task id and key) and none outside it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { mintPayloadKey } from '../../src/security/payload-codec.js';
import { dynamicConfigArgs, searchAttributeArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { Harness, quietRuntime } from '../helpers/harness.js';
import type { ReceivedCallback } from '../helpers/receiver.js';
import {
  createSchedule,
  deleteSchedule,
  firstCalls,
  getSchedule,
  occurrenceCalls,
  runsSkippedGauge,
  uniqueId,
  waitForOccurrences,
} from '../helpers/schedules.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const TOKEN = `codec-${randomUUID()}`;
const MARKER = `marker${randomUUID().replace(/-/g, '')}`;

let dbDir: string;
let port: number;
let server: ChildProcess | undefined;
let h: Harness;
let codecUrl: string;

const address = () => `127.0.0.1:${port}`;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

/** Starts the dev server on this file's port and database; resolves once it answers. */
async function startServer(): Promise<void> {
  server = spawn(
    inject('temporalCliPath'),
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--headless',
      '--db-filename',
      join(dbDir, 'temporal.db'),
      '--log-level',
      'error',
      ...searchAttributeArgs(),
      ...dynamicConfigArgs(),
      ...sqlitePragmaArgs(),
    ],
    { stdio: 'ignore' },
  );
  await waitFor(
    async () => {
      const connection = await Connection.connect({ address: address(), connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return true;
      } finally {
        await connection.close();
      }
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the dev server to answer' },
  );
}

async function stopServer(): Promise<void> {
  const child = server;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  quietRuntime();
  dbDir = mkdtempSync(join(tmpdir(), 'schedule-db-'));
  port = await freePort();
  await startServer();
  h = await Harness.start({
    server: { address: address(), workflowBundlePath: inject('workflowBundlePath') },
    env: {
      SCHEDULE_MIN_INTERVAL_SECONDS: '1',
      PAYLOAD_ENCRYPTION_KEYS: `k1:${mintPayloadKey()}`,
      PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
      CODEC_AUTH_TOKEN: TOKEN,
    },
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  codecUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/codec`;
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await stopServer();
});

function databaseBytes(): Buffer {
  return Buffer.concat(readdirSync(dbDir).map((name) => readFileSync(join(dbDir, name))));
}

function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(inject('temporalCliPath'), [...args, '--address', address()], {
    timeout: 30_000,
    maxBuffer: 1 << 24,
  });
}
/** Whether the CLI's JSON shows the marker, in clear or in a decoded payload's base64. */
function reveals(json: string): boolean {
  if (json.includes(MARKER)) return true;
  return (json.match(/"[A-Za-z0-9+/]{16,}={0,2}"/g) ?? []).some((quoted) =>
    Buffer.from(quoted.slice(1, -1), 'base64').toString('utf8').includes(MARKER),
  );
}

const viaCodec = (args: string[]) =>
  cli([...args, '--codec-endpoint', codecUrl, '--codec-auth', `Bearer ${TOKEN}`]);

describe('encrypted at rest', () => {
  it("keeps the action's payload and callback URL out of the database file, and occurrences still run", async () => {
    const scheduleId = uniqueId('enc');
    const created = await createSchedule(h, {
      scheduleId,
      every: '1s',
      task: {
        taskType: 'enc.sched',
        payload: { secret: MARKER },
        callbackUrl: `${h.receiver.url}/${MARKER}`,
      },
    });
    expect(created.status).toBe(201);
    const [call] = await waitForOccurrences(h.receiver, scheduleId, 1);
    expect(call!.body.payload).toEqual({ secret: MARKER });
    expect(await deleteSchedule(h, scheduleId)).toBe(204);
    // The schedule and an occurrence's history are both written by now.
    expect(databaseBytes().includes(MARKER)).toBe(false);
  });
});

describe('the operator CLI through the codec endpoint', () => {
  it('temporal schedule list, describe, toggle, trigger and backfill work on an encrypted schedule', async () => {
    const scheduleId = uniqueId('cli');
    await createSchedule(h, {
      scheduleId,
      cron: '0 0 1 1 *',
      task: { taskType: 'enc.cli', payload: { secret: MARKER }, callbackUrl: h.receiver.url },
    });
    const listed = await waitFor(
      async () => {
        const { stdout } = await viaCodec(['schedule', 'list', '-o', 'json']);
        return stdout.includes(scheduleId) && stdout;
      },
      { what: 'the schedule in temporal schedule list' },
    );
    expect(listed).toContain(scheduleId);
    const described = await viaCodec(['schedule', 'describe', '-s', scheduleId, '-o', 'json']);
    expect(reveals(described.stdout)).toBe(true);
    const without = await cli(['schedule', 'describe', '-s', scheduleId, '-o', 'json']);
    expect(reveals(without.stdout)).toBe(false);

    await viaCodec(['schedule', 'toggle', '-s', scheduleId, '--pause', '--reason', 'paused by the CLI']);
    expect(await getSchedule(h, scheduleId)).toMatchObject({ paused: true, note: 'paused by the CLI' });
    await viaCodec(['schedule', 'trigger', '-s', scheduleId]);
    await waitForOccurrences(h.receiver, scheduleId, 1);
    await viaCodec([
      'schedule',
      'backfill',
      '-s',
      scheduleId,
      '--start-time',
      '2024-12-31T00:00:00Z',
      '--end-time',
      '2026-01-02T00:00:00Z',
      // The CLI's default is Skip: the second run, due at the same instant, would be skipped.
      '--overlap-policy',
      'AllowAll',
    ]);
    const calls = await waitForOccurrences(h.receiver, scheduleId, 3);
    const nominal = calls.map((c) => c.body.schedule!.scheduledAt).sort();
    expect(nominal.slice(0, 2)).toEqual(['2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']);
    await viaCodec(['schedule', 'toggle', '-s', scheduleId, '--unpause', '--reason', 'back']);
    expect(await getSchedule(h, scheduleId)).toMatchObject({ paused: false, note: 'back' });
    await deleteSchedule(h, scheduleId);
  });
});

describe('an outage longer than the catch-up window', () => {
  const EVERY_MS = 2000;
  const WINDOW_MS = 10_000;
  const OUTAGE_MS = 20_000;

  it('runs the missed occurrences inside the window once each and none outside it', async () => {
    const scheduleId = uniqueId('outage');
    await createSchedule(h, {
      scheduleId,
      every: '2s',
      catchupWindow: '10s',
      overlap: 'allowAll',
      task: { taskType: 'outage.sched', payload: {}, callbackUrl: h.receiver.url },
    });
    await waitForOccurrences(h.receiver, scheduleId, 2);
    await stopServer();
    const down = Date.now();
    await waitFor(() => Date.now() - down >= OUTAGE_MS, { timeoutMs: OUTAGE_MS + 5000, what: 'the outage' });
    await startServer();
    const up = Date.now();
    // Nominal times before the stop ran before it, whenever their callback landed (one in flight at
    // the stop may land during the outage or, on a loaded machine, after it: seen in CI); the later
    // nominal times are the caught-up and on-time runs. A nominal time due before the stop that had
    // not started by then is older than the window when Temporal is back, so it must not run.
    const nominalOf = (call: ReceivedCallback) => Date.parse(call.body.schedule!.scheduledAt);
    const ranBefore = new Set(
      firstCalls(h.receiver, scheduleId)
        .map(nominalOf)
        .filter((at) => at < down),
    );
    const runsAfter = () => [
      ...new Set(
        firstCalls(h.receiver, scheduleId)
          .map(nominalOf)
          .filter((at) => !ranBefore.has(at)),
      ),
    ];
    await waitFor(() => runsAfter().length >= 6, {
      timeoutMs: 90_000,
      what: `6 runs of ${scheduleId} after the outage`,
    });
    const schedule = await getSchedule(h, scheduleId);
    const gauged = await runsSkippedGauge(h, 'outage.sched', 'catchup_window');
    await deleteSchedule(h, scheduleId);

    // Once each, as delivery allows: a server stopped as its scheduler starts a run may start that
    // nominal time again (at least once), but never as another task: one task id and one
    // idempotency key per nominal time, so a receiver deduplicates the repeat.
    const byNominal = new Map<number, Set<string>>();
    for (const call of occurrenceCalls(h.receiver, scheduleId)) {
      const identity = `${call.body.taskId} ${String(call.headers['idempotency-key'])}`;
      byNominal.set(nominalOf(call), (byNominal.get(nominalOf(call)) ?? new Set()).add(identity));
    }
    for (const identities of byNominal.values()) expect(identities.size).toBe(1);
    const keys = [...byNominal.values()].map((identities) => [...identities][0]);
    expect(new Set(keys).size).toBe(keys.length);
    const lastBefore = Math.max(...ranBefore);
    const after = runsAfter().sort((a, b) => a - b);
    const caughtUp = after.filter((at) => at < up);
    // Runs due during the outage ran after it: those inside the window, counted back from when the
    // scheduler woke (seconds after the server answered on a loaded machine: one run or five).
    expect(caughtUp.length).toBeGreaterThanOrEqual(1);
    // None outside it: nothing older than the window before Temporal was back.
    expect(Math.min(...after)).toBeGreaterThanOrEqual(up - WINDOW_MS - EVERY_MS);
    // The runs between the last one before the outage and the window were dropped, and counted.
    expect(Math.min(...after) - lastBefore).toBeGreaterThan(OUTAGE_MS - WINDOW_MS - EVERY_MS);
    expect(schedule.missedCatchupWindow).toBeGreaterThanOrEqual(3);
    // And the API's metrics say so, for an alert to see.
    expect(gauged).toBe(schedule.missedCatchupWindow);
    // The caught-up runs are consecutive on the 2 s grid up to the present.
    for (let i = 1; i < after.length; i++) expect(after[i]! - after[i - 1]!).toBe(EVERY_MS);
  }, 150_000);
});
