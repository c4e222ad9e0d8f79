/**
 * Our own configuration faults never spend a task's retries: a worker with no signing secret at all
 * refuses to start, and a callback whose owner has no secret yet is held (not sent, no attempt
 * counted, visible in the task and the metrics) until the secret exists, then delivered once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mintWebhookSecret } from '../../src/security/webhook-signature.js';
import { Harness } from '../helpers/harness.js';
import { freePort, ServiceProcess } from '../helpers/processes.js';
import { uniqueId, waitForStatus } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

describe('a worker without any webhook signing secret', () => {
  it('refuses to start, saying why', async () => {
    const [workerPort, sdkPort] = await Promise.all([freePort(), freePort()]);
    const worker = new ServiceProcess('worker', 'src/worker/main.ts', {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TASK_QUEUE: `no-secret-${randomUUID()}`,
      WEBHOOK_SECRET: '',
      WEBHOOK_SECRETS_FILE: '',
      WORKER_PORT: String(workerPort),
      WORKER_SDK_METRICS_PORT: String(sdkPort),
    });
    expect(await worker.exitCode()).toBe(1);
    expect(JSON.stringify(worker.lines)).toContain('no webhook signing secret');
  });
});

describe('a worker with a missing or broken secrets file', () => {
  it('stops with one line naming the file and what is wrong, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-secrets-'));
    const files = {
      missing: join(dir, 'absent.json'),
      'not JSON': join(dir, 'garbled.json'),
      'a bad secret': join(dir, 'bad-secret.json'),
    };
    writeFileSync(files['not JSON'], '{"owners": {"orders": [');
    writeFileSync(files['a bad secret'], JSON.stringify({ owners: { orders: ['not-a-secret'] } }));
    const workers = await Promise.all(
      Object.entries(files).map(async ([what, file]) => {
        const [workerPort, sdkPort] = await Promise.all([freePort(), freePort()]);
        const worker = new ServiceProcess('worker', 'src/worker/main.ts', {
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TASK_QUEUE: `bad-secrets-${randomUUID()}`,
          WEBHOOK_SECRETS_FILE: file,
          WORKER_PORT: String(workerPort),
          WORKER_SDK_METRICS_PORT: String(sdkPort),
        });
        return { what, file, worker };
      }),
    );
    for (const { what, file, worker } of workers) {
      expect(await worker.exitCode(), what).toBe(1);
      const fatal = worker.lines.filter((line) => line.level === 'fatal' || line.level === 60);
      expect(fatal, what).toHaveLength(1);
      expect(String(fatal[0]!.msg), what).toContain(file);
      // Nothing else but JSON log lines: no uncaught error printed with its stack.
      const raw = worker.lines.filter((line) => 'raw' in line && String(line.raw).trim() !== '');
      expect(raw, what).toEqual([]);
      expect(JSON.stringify(worker.lines), what).not.toMatch(/\bat .+\.ts:\d+/);
    }
  }, 90_000);
});

describe("a callback whose owner's secret is missing", () => {
  let h: Harness;
  let secretsFile: string;

  beforeAll(async () => {
    secretsFile = join(mkdtempSync(join(tmpdir(), 'held-secrets-')), 'secrets.json');
    writeFileSync(secretsFile, JSON.stringify({ owners: {} }));
    // The default owner's secret comes from the file only, and the file has none yet.
    h = await Harness.start({ env: { WEBHOOK_SECRET: '', WEBHOOK_SECRETS_FILE: secretsFile } });
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  });

  it('is held without spending retries, then delivered once when the secret exists', async () => {
    const ids = Array.from({ length: 5 }, () => uniqueId('held'));
    for (const taskId of ids) {
      // No retries at all: one attempt spent on our configuration would dead-letter the task.
      const created = await h.create({
        taskType: h.taskType(),
        taskId,
        payload: { n: 1 },
        delaySeconds: 0,
        maxRetries: 0,
        callbackUrl: h.receiver.url,
      });
      expect(created.status).toBe(201);
    }
    for (const taskId of ids) {
      const held = await waitFor(
        async () => {
          const { body } = await h.get(taskId);
          return body.lastError?.message.includes('held') ? body : undefined;
        },
        { timeoutMs: 30_000, what: `${taskId} held` },
      );
      expect(held.status).toBe('RUNNING');
      expect(held.attempts).toBe(0);
      expect(held.lastError!.message).toContain('no webhook signing secret for owner default');
      expect(held.nextAttemptAt).not.toBeNull();
    }
    expect(ids.flatMap((id) => h.receiver.callsFor(id))).toHaveLength(0);
    expect(await h.workerMetrics.registry.metrics()).toMatch(
      /delayed_tasks_callback_attempts_total\{[^}]*outcome="held"[^}]*\} [1-9]/,
    );

    // The operator fixes the configuration; the worker re-reads the file, no restart.
    const secret = mintWebhookSecret();
    writeFileSync(secretsFile, JSON.stringify({ owners: { default: [secret] } }));
    for (const taskId of ids) {
      const task = await waitForStatus(h, taskId, 'SUCCEEDED', 90_000);
      expect(task.attempts).toBe(1);
      const calls = h.receiver.callsFor(taskId);
      expect(calls).toHaveLength(1);
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
          name,
          String(calls[0]!.headers[name]),
        ]),
      );
      expect(() => new Webhook(secret).verify(calls[0]!.raw, headers)).not.toThrow();
    }
  });
});
