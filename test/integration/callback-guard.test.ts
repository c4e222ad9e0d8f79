/**
 * The SSRF guard from the attacker's side, against the real API, worker and Temporal: a refused
 * callback URL creates nothing and nothing reaches the receiver; a name that rebinds to a refused
 * address after create ends the task FAILED before any connection; redirects are not followed;
 * proxy variables are ignored; an endless response body does not hold an attempt.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/security/callback-guard.js';
import { typeQueuePrefix } from '../../src/shared/task-queues.js';
import { Harness } from '../helpers/harness.js';
import { CallbackReceiver } from '../helpers/receiver.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';

/** DNS as the test says: `<name>` → addresses; `rebind.test` answers a public address once, then loopback. */
const dnsQueries: string[] = [];
const resolve: Resolver = async (hostname) => {
  dnsQueries.push(hostname);
  if (hostname === 'loopback-name.test' || hostname === 'partner.test')
    return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'rebind.test') {
    const first = dnsQueries.filter((name) => name === 'rebind.test').length === 1;
    // 93.184.215.14 is never connected to: the first answer is only seen by the create check.
    return [{ address: first ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  }
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

let strict: Harness; // the guard as shipped: loopback refused, one host allowed by name
let open: Harness; // loopback allowed, as the other tests run
let bystander: CallbackReceiver;

beforeAll(async () => {
  [strict, open] = await Promise.all([
    Harness.start({ env: { CALLBACK_ALLOW_CIDRS: '', CALLBACK_ALLOW_HOSTS: 'partner.test' }, resolve }),
    Harness.start({ env: { CALLBACK_MAX_RESPONSE_BYTES: '65536' } }),
  ]);
  bystander = await CallbackReceiver.start();
});

afterAll(async () => {
  await Promise.all([strict?.stop(), open?.stop(), bystander?.close()]);
});

function portOf(receiver: CallbackReceiver): string {
  return new URL(receiver.url).port;
}

/** Creates a task due now with this callback URL; returns its id and the API's status code. */
async function createTo(
  h: Harness,
  callbackUrl: string,
  extra: Record<string, unknown> = {},
): Promise<{ taskId: string; status: number; raw: unknown }> {
  const taskId = uniqueId('ssrf');
  const { status, raw } = await h.create({
    taskType: h.taskType(),
    taskId,
    payload: {},
    delaySeconds: 0,
    callbackUrl,
    ...extra,
  });
  return { taskId, status, raw };
}

describe('at create', () => {
  const refused = (port: string) => [
    { url: 'http://169.254.169.254/latest/meta-data', reason: /cloud metadata/ },
    { url: 'http://metadata.google.internal/computeMetadata/v1/', reason: /cloud metadata/ },
    { url: `http://[::1]:${port}/`, reason: /loopback/ },
    { url: `http://[::ffff:127.0.0.1]:${port}/`, reason: /IPv4-mapped/ },
    { url: `http://2130706433:${port}/`, reason: /127\.0\.0\.1 is a loopback/ },
    { url: `http://0x7f.1:${port}/`, reason: /127\.0\.0\.1 is a loopback/ },
    { url: `http://0177.0.0.1:${port}/`, reason: /127\.0\.0\.1 is a loopback/ },
    { url: `http://localhost:${port}/`, reason: /loopback/ },
    // A name: the answer says a refused address, never which one it resolved to (only the log does).
    {
      url: `http://loopback-name.test:${port}/`,
      reason: /^(?!.*127\.0\.0\.1).*loopback-name\.test resolves to an address callbacks may not reach/,
    },
    { url: `http://user:hunter2@127.0.0.1:${port}/`, reason: /credentials/ },
  ];

  it('refuses every spelling of a refused address with 400, and nothing is created or sent', async () => {
    for (const { url, reason } of refused(portOf(strict.receiver))) {
      const response = await createTo(strict, url);
      const { taskId } = response;
      expect(response.status, url).toBe(400);
      const body = response.raw as { error: { code: string; message: string; details: { field: string }[] } };
      expect(body.error.code).toBe('INVALID_ARGUMENT');
      expect(body.error.details[0]?.field).toBe('callbackUrl');
      expect(body.error.message, url).toMatch(reason);
      expect(body.error.message).not.toContain('hunter2');
      expect((await strict.get(taskId)).status, url).toBe(404);
    }
    // Had any of them been started, its callback would have arrived by now (delay 0).
    const describeAll = await strict.client.workflow.count(
      `TaskQueue = '${strict.taskQueue}' OR TaskQueue STARTS_WITH '${typeQueuePrefix(strict.taskQueue)}'`,
    );
    expect(describeAll.count).toBe(0);
    expect(strict.receiver.received).toHaveLength(0);
  });

  it('accepts a host CALLBACK_ALLOW_HOSTS names although it resolves to loopback, and delivers to it', async () => {
    const { taskId, status } = await createTo(strict, `http://partner.test:${portOf(strict.receiver)}/hook`);
    expect(status).toBe(201);
    await strict.receiver.waitForCalls(taskId, 1);
    await waitForStatus(strict, taskId, 'SUCCEEDED');
  });
});

describe('at send time', () => {
  it('a name that resolved to a public address at create and to loopback now: FAILED at once, nothing sent', async () => {
    const { taskId, status } = await createTo(strict, `http://rebind.test:${portOf(strict.receiver)}/hook`, {
      maxRetries: 5,
    });
    expect(status).toBe(201);
    const task = await waitForStatus(strict, taskId, 'FAILED');
    expect(task.attempts).toBe(1);
    // The owner learns which rule refused, not what the name resolves to inside our network.
    expect(task.lastError?.message).toMatch(
      /^callback refused: host rebind\.test resolves to a loopback address/,
    );
    expect(JSON.stringify(task)).not.toContain('127.0.0.1');
    expect(strict.receiver.callsFor(taskId)).toHaveLength(0);
    expect(dnsQueries.filter((name) => name === 'rebind.test').length).toBeGreaterThanOrEqual(2);
  });

  it('does not follow a redirect to a refused address: 3xx is permanent and its target receives nothing', async () => {
    // The allowed partner answers with a redirect to loopback, which this guard refuses.
    strict.receiver.script('/redirect', [
      { status: 302, headers: { location: `${bystander.url}/internal` } },
    ]);
    const { taskId } = await createTo(strict, `http://partner.test:${portOf(strict.receiver)}/redirect`);
    const task = await waitForStatus(strict, taskId, 'FAILED');
    expect(task.lastError).toEqual({ message: 'callback answered HTTP 302', statusCode: 302 });
    expect(bystander.received).toHaveLength(0);
  });

  it('ignores HTTP_PROXY and friends', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      HTTP_PROXY: bystander.url,
      http_proxy: bystander.url,
      HTTPS_PROXY: bystander.url,
      ALL_PROXY: bystander.url,
    });
    try {
      const { taskId } = await createTo(open, open.receiver.url);
      await open.receiver.waitForCalls(taskId, 1);
      await waitForStatus(open, taskId, 'SUCCEEDED');
      expect(bystander.received).toHaveLength(0);
    } finally {
      for (const key of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'ALL_PROXY']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });

  it('stops reading an endless response body at the cap, and the attempt still counts', async () => {
    let written = 0;
    let closedAt: number | undefined;
    const endless: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Bounded: at most 256 MiB, and it stops when the client drops the connection.
      const pump = () => {
        while (written < 256 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closedAt ??= Date.now()));
      pump();
    });
    await new Promise<void>((ready) => endless.listen(0, '127.0.0.1', ready));
    try {
      const { port } = endless.address() as AddressInfo;
      const { taskId } = await createTo(open, `http://127.0.0.1:${port}/`, { timeoutMs: 20_000 });
      const task = await waitForStatus(open, taskId, 'SUCCEEDED');
      expect(task.attempts).toBe(1);
      expect(closedAt).toBeDefined();
      // Socket buffers hold a few MiB; without the cap the whole 256 MiB would be read.
      expect(written).toBeLessThan(32 * 1024 * 1024);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });
});
