/**
 * The task policy file as the real entry points read it: missing or invalid, the API and the worker
 * each refuse to start with one fatal line naming the file and the field; a file broken while they
 * run changes nothing (it is read at start only; SIGHUP reloads the API keys, not the policies).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { freePort, ServiceProcess } from '../helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'delayed-task-policies-'));
const started: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((process) => process.stop()));
});

function policyFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function spawn(
  entry: 'api' | 'worker',
  env: Record<string, string>,
): Promise<{ service: ServiceProcess; url: string }> {
  const [port, sdkPort] = await Promise.all([freePort(), freePort()]);
  const service = new ServiceProcess(entry, `src/${entry}/main.ts`, {
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    TASK_QUEUE: `policies-${randomUUID()}`,
    LOG_LEVEL: 'info',
    PORT: String(port),
    WORKER_PORT: String(port),
    WORKER_SDK_METRICS_PORT: String(sdkPort),
    ...env,
  });
  started.push(service);
  return { service, url: `http://127.0.0.1:${port}` };
}

const cases = [
  { name: 'missing', file: () => join(dir, 'absent.json'), says: ['no such file'] },
  { name: 'not JSON', file: () => policyFile('broken.json', '{"taskTypes": {'), says: ['JSON'] },
  {
    name: 'an invalid field',
    file: () =>
      policyFile('invalid.json', JSON.stringify({ taskTypes: { 'orders.close': { concurrency: 0 } } })),
    says: ['taskTypes.orders.close.concurrency', '>= 1'],
  },
  {
    name: 'an unknown field',
    file: () => policyFile('unknown.json', JSON.stringify({ default: { retries: 3 } })),
    says: ['default.retries', 'is not a known field'],
  },
  {
    name: 'a callbackUrl the SSRF guard refuses',
    file: () =>
      policyFile(
        'metadata.json',
        JSON.stringify({
          taskTypes: { 'orders.close': { callbackUrl: 'http://169.254.169.254/latest/meta-data' } },
        }),
      ),
    says: ['taskTypes.orders.close.callbackUrl', 'metadata'],
  },
];

describe.concurrent('a missing or invalid policy file stops the start', () => {
  it.each(cases.flatMap((c) => (['api', 'worker'] as const).map((entry) => ({ ...c, entry }))))(
    '$entry with a policy file that is $name: exit 1, one fatal line naming file and field',
    async ({ entry, file, says }) => {
      const path = file();
      const { service } = await spawn(entry, { TASK_POLICIES_FILE: path });
      expect(await service.exitCode()).toBe(1);
      const fatal = service.lines.filter((line) => line.level === 60);
      expect(fatal, JSON.stringify(service.lines)).toHaveLength(1);
      const message = String(fatal[0]!.msg);
      expect(message).toContain(path);
      for (const text of says) expect(message).toContain(text);
      // Refused before anything else: no stack trace, nothing listening.
      expect(service.lines.some((line) => typeof line.raw === 'string' && /^\s+at /.test(line.raw))).toBe(
        false,
      );
    },
  );
});

describe('a policy file broken while the processes run', () => {
  it('changes nothing: the API keeps its task types across SIGHUP, the worker ignores SIGHUP', async () => {
    const taskType = `kept.${randomUUID().slice(0, 8)}`;
    const path = policyFile('live.json', JSON.stringify({ strict: true, taskTypes: { [taskType]: {} } }));
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_POLICIES_FILE: path };
    const [{ service: api, url: apiUrl }, { service: worker, url: workerUrl }] = await Promise.all([
      spawn('api', env),
      spawn('worker', env),
    ]);
    await api.waitUntilHealthy(`${apiUrl}/readyz`);
    const typesBefore = await (await fetch(`${apiUrl}/api/v1/task-types`)).json();
    expect(JSON.stringify(typesBefore)).toContain(taskType);
    await worker.waitUntilHealthy(`${workerUrl}/readyz`, 120_000);

    writeFileSync(path, '{"taskTypes": {"x": {"concurrency": 0}}');
    api.signal('SIGHUP');
    worker.signal('SIGHUP');
    await api.waitForLine((line) => String(line.msg).startsWith('SIGHUP'), 'the API to see SIGHUP');
    await worker.waitForLine(
      (line) => String(line.msg).startsWith('SIGHUP ignored'),
      'the worker to see SIGHUP',
    );

    expect(await (await fetch(`${apiUrl}/api/v1/task-types`)).json()).toEqual(typesBefore);
    expect((await fetch(`${apiUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${workerUrl}/readyz`)).status).toBe(200);
    // Both still run and stop cleanly.
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  });
});
