/**
 * No secret in logs, answers or history: the real API and worker processes run a full flow with
 * known secrets (signing secret, header secrets from an environment variable and a file, a token in
 * a callback URL's query string, credentials in a refused URL, the codec token, the encryption key),
 * at debug level; then every captured log line is searched for each of them. Header secrets reach
 * the receiver, and not Temporal's history.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintPayloadKey } from '../../src/security/payload-codec.js';
import { mintWebhookSecret } from '../../src/security/webhook-signature.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const unique = () => randomUUID().replace(/-/g, '');
const SECRETS = {
  webhook: mintWebhookSecret(),
  headerEnv: `envtoken${unique()}`,
  headerFile: `filetoken${unique()}`,
  query: `querytoken${unique()}`,
  password: `password${unique()}`,
  codec: `codectoken${unique()}`,
  key: mintPayloadKey(),
};

let api: ServiceProcess;
let worker: ServiceProcess;
let receiver: CallbackReceiver;
let apiUrl: string;
const taskType = 'orders.notify';

beforeAll(async () => {
  receiver = await CallbackReceiver.start();
  const dir = mkdtempSync(join(tmpdir(), 'secrets-test-'));
  const tokenFile = join(dir, 'api-key');
  writeFileSync(tokenFile, `${SECRETS.headerFile}\n`);
  const policies = join(dir, 'policies.json');
  writeFileSync(
    policies,
    JSON.stringify({
      taskTypes: {
        [taskType]: {
          headers: { Authorization: { env: 'ORDERS_TOKEN' }, 'X-Api-Key': { file: tokenFile } },
        },
      },
    }),
  );
  const apiPort = await freePort();
  const env = {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TASK_QUEUE: `secrets-${randomUUID()}`,
    LOG_LEVEL: 'debug',
    WEBHOOK_SECRET: SECRETS.webhook,
    TASK_POLICIES_FILE: policies,
    ORDERS_TOKEN: `Bearer ${SECRETS.headerEnv}`,
    PAYLOAD_ENCRYPTION_KEYS: `k1:${SECRETS.key}`,
    PAYLOAD_ENCRYPTION_CURRENT_KEY_ID: 'k1',
    CODEC_AUTH_TOKEN: SECRETS.codec,
  };
  api = new ServiceProcess('api', 'src/api/main.ts', { ...env, PORT: String(apiPort) });
  apiUrl = `http://127.0.0.1:${apiPort}`;
  const [workerPort, sdkPort] = await Promise.all([freePort(), freePort()]);
  worker = new ServiceProcess('worker', 'src/worker/main.ts', {
    ...env,
    WORKER_PORT: String(workerPort),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
  });
  await Promise.all([
    api.waitUntilHealthy(`${apiUrl}/readyz`),
    worker.waitUntilHealthy(`http://127.0.0.1:${workerPort}/readyz`),
  ]);
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await receiver?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('secrets', () => {
  const taskId = `secret-${randomUUID()}`;
  const retried = `secret-retried-${randomUUID()}`;

  it('header secrets reach the receiver, signed, and never the answers or the history', async () => {
    receiver.script(retried, [{ status: 500 }, { status: 200 }]);
    for (const id of [taskId, retried]) {
      const response = await post('/api/v1/tasks', {
        taskType,
        taskId: id,
        payload: { n: 1 },
        delaySeconds: 0,
        callbackUrl: `${receiver.url}/hook?token=${SECRETS.query}`,
      });
      expect(response.status).toBe(201);
      expect(await response.text()).not.toContain(SECRETS.headerEnv);
    }
    const refused = await post('/api/v1/tasks', {
      taskType,
      payload: {},
      delaySeconds: 0,
      callbackUrl: `http://user:${SECRETS.password}@127.0.0.1:9/`,
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).not.toContain(SECRETS.password);

    const [call] = await receiver.waitForCalls(taskId, 1);
    await receiver.waitForCalls(retried, 2);
    expect(call!.headers.authorization).toBe(`Bearer ${SECRETS.headerEnv}`);
    expect(call!.headers['x-api-key']).toBe(SECRETS.headerFile);
    expect(call!.path).toBe(`/hook?token=${SECRETS.query}`);
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
        name,
        String(call!.headers[name]),
      ]),
    );
    expect(() => new Webhook(SECRETS.webhook).verify(call!.raw, headers)).not.toThrow();

    const task = await waitFor(async () => {
      const body = (await (await fetch(`${apiUrl}/api/v1/tasks/${taskId}`)).json()) as { status: string };
      return body.status === 'SUCCEEDED' && body;
    });
    expect(JSON.stringify(task)).not.toContain(SECRETS.headerEnv);

    // The history, decoded through the codec endpoint as an operator reads it.
    const codecAnswer = await post(
      '/codec/decode',
      { payloads: [] },
      { authorization: `Bearer ${SECRETS.codec}` },
    );
    expect(codecAnswer.status).toBe(200);
    expect((await post('/codec/decode', { payloads: [] }, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    const { stdout } = await run(
      inject('temporalCliPath'),
      [
        'workflow',
        'show',
        '-w',
        taskId,
        '-o',
        'json',
        '--address',
        inject('temporalAddress'),
        '--codec-endpoint',
        `${apiUrl}/codec`,
        '--codec-auth',
        `Bearer ${SECRETS.codec}`,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const decoded = [
      stdout,
      ...(stdout.match(/"[A-Za-z0-9+/]{16,}={0,2}"/g) ?? []).map((quoted) =>
        Buffer.from(quoted.slice(1, -1), 'base64').toString('utf8'),
      ),
    ].join('\n');
    expect(decoded).toContain(taskId); // decoding worked
    for (const secret of [SECRETS.headerEnv, SECRETS.headerFile, SECRETS.webhook]) {
      expect(decoded).not.toContain(secret);
    }
  });

  it('appear in no log line of the API or the worker', () => {
    const lines = [...api.lines, ...worker.lines].map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(20);
    // The lines that would carry them exist: callback URLs are logged without their query string.
    expect(lines.some((line) => line.includes('/hook?[redacted]'))).toBe(true);
    expect(lines.some((line) => line.includes('callback attempt failed'))).toBe(true);
    const signatures = receiver.received.map((call) => String(call.headers['webhook-signature']));
    const forbidden = [
      ...Object.values(SECRETS),
      SECRETS.webhook.slice('whsec_'.length),
      ...signatures.flatMap((value) => value.split(' ').map((sig) => sig.slice(3))),
    ];
    for (const secret of forbidden) {
      const leaking = lines.filter((line) => line.includes(secret));
      expect(leaking, `a log line contains a secret: ${leaking[0]?.slice(0, 200)}`).toEqual([]);
    }
  });
});
