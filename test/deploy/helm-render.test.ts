/**
 * The Helm chart as helm renders it (helm from scripts/chart-tools.sh: built once into .tools/, as CI's
 * chart check does before the tests), read for what each pod may see: the broker passwords and TLS
 * keys reach the worker pods, which publish, and not the API pods, which only check creates against
 * the declarations. The API boots on the declarations file alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { isRecord, repoPath } from './support.js';

interface Pod {
  env: Record<string, string>;
  mounts: Record<string, string>;
  volumes: Record<string, Record<string, unknown>>;
}

let pods: Record<'api' | 'worker', Pod>;

beforeAll(() => {
  const helm =
    process.env.HELM_PATH ??
    execFileSync('bash', [repoPath('scripts/chart-tools.sh')], { encoding: 'utf8', timeout: 900_000 }).split(
      '\n',
    )[0]!;
  const rendered = execFileSync(
    helm,
    [
      'template',
      'delayed-tasks',
      repoPath('deploy/helm/delayed-tasks'),
      '--namespace',
      'delayed-tasks',
      '-f',
      repoPath('deploy/helm/values/everything.yaml'),
    ],
    { encoding: 'utf8' },
  );
  const found: Partial<Record<'api' | 'worker', Pod>> = {};
  // YAML 1.1, as Kubernetes reads it: `defaultMode: 0440` is octal there.
  for (const document of parseAllDocuments(rendered, { version: '1.1' })) {
    const object = document.toJS() as unknown;
    if (!isRecord(object) || object.kind !== 'Deployment') continue;
    const spec = (object as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
    const [container] = spec.containers;
    const component = container!.name as 'api' | 'worker';
    found[component] = {
      env: Object.fromEntries((container!.env ?? []).map((e) => [e.name, e.value ?? ''])),
      mounts: Object.fromEntries((container!.volumeMounts ?? []).map((m) => [m.name, m.mountPath])),
      volumes: Object.fromEntries((spec.volumes ?? []).map((v) => [v.name, v])),
    };
  }
  pods = found as Record<'api' | 'worker', Pod>;
}, 900_000);

interface PodSpec {
  containers: {
    name: string;
    env?: { name: string; value?: string }[];
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  volumes?: ({ name: string } & Record<string, unknown>)[];
}

describe('the rendered chart with secrets.brokers set', () => {
  it('gives both processes the same BROKERS_FILE, in the brokers volume', () => {
    for (const pod of [pods.api, pods.worker]) {
      expect(pod.env.BROKERS_FILE).toBe('/etc/delayed-tasks/secrets/brokers/brokers.json');
      expect(pod.mounts.brokers).toBe('/etc/delayed-tasks/secrets/brokers');
    }
  });

  it('mounts the whole Secret in the worker pods: the declarations and the password and TLS files they name', () => {
    expect(pods.worker.volumes.brokers).toEqual({
      name: 'brokers',
      secret: { secretName: 'delayed-tasks-brokers', defaultMode: 0o440 },
    });
  });

  it('mounts only the declarations in the API pods: no broker password or key there', () => {
    expect(pods.api.volumes.brokers).toEqual({
      name: 'brokers',
      secret: {
        secretName: 'delayed-tasks-brokers',
        defaultMode: 0o440,
        items: [{ key: 'brokers.json', path: 'brokers.json' }],
      },
    });
  });

  it('lets the API boot on the declarations alone, the files they name absent', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'api-brokers-')), 'brokers.json');
    const missing = '/etc/delayed-tasks/secrets/brokers';
    writeFileSync(
      file,
      JSON.stringify({
        brokers: {
          events: {
            kind: 'redis-streams',
            url: 'rediss://redis.internal:6380',
            username: 'delayed-tasks',
            passwordFile: `${missing}/redis-password`,
            tls: {
              caFile: `${missing}/redis-ca.pem`,
              certFile: `${missing}/c.pem`,
              keyFile: `${missing}/k.pem`,
            },
            owners: { orders: ['orders.*'] },
          },
        },
      }),
    );
    const config = loadConfig({ TEMPORAL_ADDRESS: 'localhost:7233', BROKERS_FILE: file });
    expect([...config.brokers.keys()]).toEqual(['events']);
  });
});
