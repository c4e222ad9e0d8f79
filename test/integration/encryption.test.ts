/**
 * Payloads encrypted at rest, against a dev server of this file's own whose SQLite file the test
 * reads: no payload, callback URL, memo or failure message is in clear there; the codec endpoint
 * decodes for the Web UI (CORS, authentication) and for `temporal workflow show --codec-endpoint`;
 * keys rotate (old tasks still run and read after the current key changed); a key that is missing
 * gives a clear error; an API replay and a CLI reset still work on encrypted tasks.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import type { Resolver } from '../../src/security/callback-guard.js';
import { loadPayloadKeyring, mintPayloadKey } from '../../src/security/payload-codec.js';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import { createDataConverter } from '../../src/temporal/data-converter.js';
import { dynamicConfigArgs, sqlitePragmaArgs } from '../../src/temporal/dev-server.js';
import { Harness, quietRuntime } from '../helpers/harness.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const K1 = mintPayloadKey();
const K2 = mintPayloadKey();
const TOKEN = `codec-${randomUUID()}`;
const UI_ORIGIN = 'http://localhost:8233';
/** What must never be found in clear in Temporal's database. */
const MARKER = `marker${randomUUID().replace(/-/g, '')}`;

let server: TestWorkflowEnvironment;
let dbDir: string;
let h: Harness;
let codecUrl: string;

/** `receiver.test` is the receiver; `rebind-*` names answer a public address once, then loopback. */
const seen = new Map<string, number>();
const resolve: Resolver = async (hostname) => {
  seen.set(hostname, (seen.get(hostname) ?? 0) + 1);
  if (hostname === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname.startsWith('rebind-'))
    return [{ address: seen.get(hostname) === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

function env(current: 'k1' | 'k2'): Record<string, string> {
  return {
    PAYLOAD_ENCRYPTION_KEYS: current === 'k1' ? `k1:${K1}` : `k1:${K1},k2:${K2}`,
    PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: current,
    CODEC_AUTH_TOKEN: TOKEN,
    CODEC_CORS_ORIGINS: UI_ORIGIN,
    // Only the receiver's name reaches loopback.
    CALLBACK_ALLOW_CIDRS: '',
    CALLBACK_ALLOW_HOSTS: 'receiver.test',
  };
}

beforeAll(async () => {
  dbDir = mkdtempSync(join(tmpdir(), 'encrypted-db-'));
  quietRuntime();
  server = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: inject('temporalCliPath') },
      ip: '127.0.0.1',
      dbFilename: join(dbDir, 'temporal.db'),
      searchAttributes: ALL_SEARCH_ATTRIBUTES,
      extraArgs: [...dynamicConfigArgs(), ...sqlitePragmaArgs(), '--log-level', 'error'],
    },
  });
  h = await Harness.start({ server: bundled(), env: env('k1'), resolve });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  codecUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/codec`;
}, 180_000);

afterAll(async () => {
  await h?.stop();
  await server?.teardown().catch(() => undefined);
});

/** This file's server, with the run's workflow bundle. */
function bundled(): { address: string; workflowBundlePath: string } {
  return { address: server.address, workflowBundlePath: inject('workflowBundlePath') };
}

function callbackUrl(path = ''): string {
  return `http://receiver.test:${new URL(h.receiver.url).port}/${path}`;
}

/** Every byte of the dev server's database files (SQLite, its WAL and shared memory). */
function databaseBytes(): Buffer {
  return Buffer.concat(readdirSync(dbDir).map((name) => readFileSync(join(dbDir, name))));
}

function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(inject('temporalCliPath'), [...args, '--address', server.address], {
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Whether the CLI's JSON shows the marker, in clear or in a decoded payload's base64. */
function reveals(json: string): boolean {
  if (json.includes(MARKER)) return true;
  return (json.match(/"[A-Za-z0-9+/]{16,}={0,2}"/g) ?? []).some((quoted) =>
    Buffer.from(quoted.slice(1, -1), 'base64').toString('utf8').includes(MARKER),
  );
}

async function firstInput(workflowId: string) {
  const history = await h.client.workflowService.getWorkflowExecutionHistory({
    namespace: 'default',
    execution: { workflowId },
  });
  return history.history!.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
}

describe('encrypted at rest', () => {
  const delivered = uniqueId('enc-ok');
  const refused = uniqueId('enc-refused');
  const taskType = `enc.${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    expect(
      (
        await h.create({
          taskType,
          taskId: delivered,
          payload: { secret: MARKER },
          delaySeconds: 0,
          callbackUrl: callbackUrl(`hook-${MARKER}`),
        })
      ).status,
    ).toBe(201);
    // Refused at send time: its lastError names the host, and so quotes the marker.
    expect(
      (
        await h.create({
          taskType,
          taskId: refused,
          payload: {},
          delaySeconds: 0,
          callbackUrl: `http://rebind-${MARKER}.test:${new URL(h.receiver.url).port}/`,
        })
      ).status,
    ).toBe(201);
    const [call] = await h.receiver.waitForCalls(delivered, 1);
    expect(call!.body.payload).toEqual({ secret: MARKER });
    await waitForStatus(h, delivered, 'SUCCEEDED');
    const failed = await waitForStatus(h, refused, 'FAILED');
    expect(failed.lastError?.message).toContain(MARKER);
    // Both closed runs are in the list, read from visibility (memo decoded through the codec).
    await waitFor(async () => {
      const response = await h.app.inject({ url: `/api/v1/tasks?taskType=${taskType}&status=FAILED` });
      const tasks = (response.json() as { tasks: { taskId: string; lastError: { message: string } }[] })
        .tasks;
      return tasks.some((task) => task.taskId === refused && task.lastError.message.includes(MARKER));
    });
  });

  it("leaves no payload, URL, memo or failure message in clear in the dev server's SQLite file", () => {
    const bytes = databaseBytes();
    // The file is readable and holds what is meant to be in clear: a search attribute.
    expect(bytes.includes(Buffer.from(taskType))).toBe(true);
    expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
  });

  it('answers a repeated create from the encrypted memo: 200 for the same spec, 409 for another', async () => {
    const spec = {
      taskType: 'enc.idempotent',
      taskId: uniqueId('enc-again'),
      payload: { secret: MARKER },
      delaySeconds: 3600,
      callbackUrl: callbackUrl(),
    };
    expect((await h.create(spec)).status).toBe(201);
    expect((await h.create(spec)).status).toBe(200);
    expect((await h.create({ ...spec, payload: { other: true } })).status).toBe(409);
  });

  it("replays a delivered task's encrypted history with the worker's data converter (determinism)", async () => {
    const history = await h.client.workflow.getHandle(delivered).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter: h.dataConverter },
      history,
      delivered,
    );
  });

  it('stores payloads with the encrypted encoding and the key id', async () => {
    const payload = await firstInput(delivered);
    expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(payload.metadata!['encryption-key-id']!).toString()).toBe('k1');
    expect(Buffer.from(payload.data!).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('the codec endpoint decodes for the Web UI: CORS for its origin, and only with the token', async () => {
    const payload = await firstInput(delivered);
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(payload.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(payload.data!).toString('base64'),
        },
      ],
    });
    const headers = { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN };

    const preflight = await fetch(`${codecUrl}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);

    const anonymous = await fetch(`${codecUrl}/decode`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain(Buffer.from(MARKER).toString('base64').slice(0, 12));
    const wrong = await fetch(`${codecUrl}/decode`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer not-the-token' },
      body,
    });
    expect(wrong.status).toBe(401);

    const decoded = await fetch(`${codecUrl}/decode`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const [plain] = (
      (await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }
    ).payloads;
    expect(Buffer.from(plain!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(plain!.data, 'base64').toString())).toMatchObject({
      taskId: delivered,
      payload: { secret: MARKER },
    });

    const elsewhere = await fetch(`${codecUrl}/decode`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.example', authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a guessed codec token counts against the address: after 30 failures a minute the next guess gets 429 and nothing decoded, the right token still decodes', async () => {
    const payload = await firstInput(delivered);
    const body = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(payload.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(payload.data!).toString('base64'),
        },
      ],
    };
    const decode = (token: string, remoteAddress: string) =>
      h.app.inject({
        method: 'POST',
        url: '/codec/decode',
        remoteAddress,
        headers: {
          'content-type': 'application/json',
          'x-namespace': 'default',
          authorization: `Bearer ${token}`,
        },
        payload: body,
      });
    const attacker = '10.0.3.1';
    for (let i = 0; i < 30; i++) expect((await decode(`guess-${i}`, attacker)).statusCode).toBe(401);
    const locked = await decode('guess-30', attacker);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(locked.body).not.toContain('payloads');
    expect((await decode(TOKEN, attacker)).statusCode).toBe(200);
    // Another address is not held back by it.
    expect((await decode(TOKEN, '10.0.3.2')).statusCode).toBe(200);
  });

  it('temporal workflow show reads the task through --codec-endpoint, and not without it', async () => {
    const opaque = await cli(['workflow', 'show', '-w', refused, '-o', 'json']);
    expect(reveals(opaque.stdout)).toBe(false);
    const clear = await cli([
      'workflow',
      'show',
      '-w',
      refused,
      '-o',
      'json',
      '--codec-endpoint',
      codecUrl,
      '--codec-auth',
      `Bearer ${TOKEN}`,
    ]);
    expect(reveals(clear.stdout)).toBe(true);
  });
});

describe('key rotation', () => {
  it('a task written under the old key runs and reads after the current key changed; a missing key is a clear error', async () => {
    const old = uniqueId('enc-old');
    await h.create({
      taskType: 'enc.rotation',
      taskId: old,
      payload: { n: MARKER },
      delaySeconds: 4,
      callbackUrl: callbackUrl(),
    });
    expect(Buffer.from((await firstInput(old)).metadata!['encryption-key-id']!).toString()).toBe('k1');

    // Rotate: the workers restart with k1 and k2, k2 current; the API follows.
    await h.stopWorkers();
    const rotated = createDataConverter(loadPayloadKeyring(loadConfig(env('k2')).encryption));
    await h.startWorkers(rotated);
    const h2 = await Harness.start({ server: bundled(), env: env('k2'), resolve });
    try {
      const [call] = await h.receiver.waitForCalls(old, 1, 30_000);
      expect(call!.body.payload).toEqual({ n: MARKER });
      // Read through h2: the rotated workers answer queries under k2, which h (k1 only) lacks.
      await waitForStatus(h2, old, 'SUCCEEDED');

      const fresh = uniqueId('enc-new');
      expect(
        (
          await h2.create({
            taskType: 'enc.rotation',
            taskId: fresh,
            payload: {},
            delaySeconds: 3600,
            callbackUrl: callbackUrl(),
          })
        ).status,
      ).toBe(201);
      expect(Buffer.from((await firstInput(fresh)).metadata!['encryption-key-id']!).toString()).toBe('k2');
      // h2 reads an old-key task; a process that lacks k2 cannot read a new one and says why.
      expect((await h2.get(old)).body.status).toBe('SUCCEEDED');
      const k1Only = createDataConverter(loadPayloadKeyring(loadConfig(env('k1')).encryption));
      const payload = await firstInput(fresh);
      await expect(k1Only.payloadCodecs![0]!.decode([payload as never])).rejects.toThrow(
        /encrypted with key "k2", which this process does not have/,
      );
    } finally {
      await h2.stop();
      await h.stopWorkers();
      await h.startWorkers();
    }
  });
});

describe('operations on encrypted tasks', () => {
  it('an API replay and a CLI reset re-deliver a dead letter', async () => {
    const replayed = uniqueId('enc-replay');
    const reset = uniqueId('enc-reset');
    h.receiver.script(replayed, [{ status: 404 }, { status: 200 }]);
    h.receiver.script(reset, [{ status: 404 }, { status: 200 }]);
    for (const taskId of [replayed, reset])
      await h.create({
        taskType: 'enc.ops',
        taskId,
        payload: { secret: MARKER },
        delaySeconds: 0,
        callbackUrl: callbackUrl(),
      });
    await waitForStatus(h, replayed, 'FAILED');
    await waitForStatus(h, reset, 'FAILED');

    expect((await h.post(`/api/v1/tasks/${replayed}/replay`, {})).status).toBe(200);
    await cli([
      'workflow',
      'reset',
      '-w',
      reset,
      '-t',
      'FirstWorkflowTask',
      '--reason',
      'encrypted reset test',
    ]);

    for (const taskId of [replayed, reset]) {
      const calls = await h.receiver.waitForCalls(taskId, 2);
      expect(calls[1]!.body.payload).toEqual({ secret: MARKER });
      await waitForStatus(h, taskId, 'SUCCEEDED');
    }
    expect(databaseBytes().includes(Buffer.from(MARKER))).toBe(false);
  });
});

describe('the operator CLI through the codec endpoint (what scripts/dev.sh tells operators to run)', () => {
  /** `temporal <args>` with the codec endpoint and its token, failing on a non-zero exit. */
  const viaCodec = (args: string[]) =>
    cli([...args, '--codec-endpoint', codecUrl, '--codec-auth', `Bearer ${TOKEN}`]);

  it('query, list, show, signal, cancel and reset all work on an encrypted, sleeping task', async () => {
    const queried = uniqueId('enc-cli-query');
    const cancelled = uniqueId('enc-cli-cancel');
    const reset = uniqueId('enc-cli-reset');
    for (const taskId of [queried, cancelled, reset])
      await h.create({
        taskType: 'enc.cli',
        taskId,
        payload: { secret: MARKER },
        delaySeconds: 3600,
        callbackUrl: callbackUrl(),
      });

    // A query with no arguments: the CLI encodes an empty argument list (`{}` on the wire).
    const status = await viaCodec(['workflow', 'query', '-w', queried, '--name', 'status', '-o', 'json']);
    expect(reveals(status.stdout)).toBe(true);
    expect(status.stdout).toContain('SCHEDULED');

    const listed = await viaCodec(['workflow', 'list', '-q', `WorkflowId='${queried}'`, '-o', 'json']);
    expect(JSON.parse(listed.stdout || '[]')).toHaveLength(1);
    expect(reveals((await viaCodec(['workflow', 'show', '-w', queried, '-o', 'json'])).stdout)).toBe(true);

    // A signal with no arguments, as operators cancel a task.
    await viaCodec(['workflow', 'signal', '-w', cancelled, '--name', 'cancel']);
    await waitForStatus(h, cancelled, 'CANCELLED');

    await viaCodec(['workflow', 'cancel', '-w', queried]);
    await waitForStatus(h, queried, 'CANCELLED');

    await viaCodec([
      'workflow',
      'reset',
      '-w',
      reset,
      '-t',
      'FirstWorkflowTask',
      '--reason',
      'cli via codec',
    ]);
    // The reset run is the task again, still sleeping: SCHEDULED, the same payload.
    const afterReset = await h.get(reset);
    expect(afterReset.body.status).toBe('SCHEDULED');
    expect(afterReset.body.payload).toEqual({ secret: MARKER });
    expect(h.receiver.callsFor(cancelled)).toHaveLength(0);
    expect(databaseBytes().includes(Buffer.from(MARKER))).toBe(false);
  });
});
