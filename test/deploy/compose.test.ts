/**
 * docker-compose.yml: valid against the Compose Specification, and the project's own rules on top.
 * Each rule is a function returning the problems it finds, tested on a bad sample before being
 * applied to the real file, so a rule that can no longer fail is noticed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { ALL_SEARCH_ATTRIBUTES } from '../../src/shared/constants.js';
import {
  CLI_SEARCH_ATTRIBUTE_TYPES,
  cliSearchAttributes,
  searchAttributeArgs,
} from '../../src/temporal/dev-server.js';
import { isRecord, readRepoText, readRepoYaml, REPO_ROOT, repoFileExists } from './support.js';

interface PortMapping {
  target: number;
  published?: string | number;
  host_ip?: string;
}

interface DependsOnEntry {
  condition?: string;
}

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  ports?: (string | number | PortMapping)[];
  depends_on?: string[] | Record<string, DependsOnEntry>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  volumes?: (string | { type?: string; source?: string; target: string })[];
  restart?: string;
  container_name?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
}

interface ComposeFile {
  services: Record<string, ComposeService>;
}

const require = createRequire(import.meta.url);

/**
 * The Compose Specification schema as shipped in the `dclint` package (a copy of
 * compose-spec/compose-spec's schema/compose-spec.json), so that tests need no network.
 */
function loadComposeSchema(): Record<string, unknown> {
  let packageJson: string;
  try {
    packageJson = require.resolve('dclint/package.json');
  } catch (cause) {
    throw new Error('the Compose schema comes from the dclint package: npm install --save-dev dclint', {
      cause,
    });
  }
  const schema = JSON.parse(
    readFileSync(join(dirname(packageJson), 'schemas', 'compose.schema.json'), 'utf8'),
  ) as Record<string, unknown>;
  // The file names draft-07 by its https URL; Ajv registers the meta-schema under the http one.
  return { ...schema, $schema: 'http://json-schema.org/draft-07/schema#' };
}

let composeValidator: ValidateFunction | undefined;

/** Schema errors of a Compose document; ajv-formats is left out, the schema uses no format. */
function validateCompose(document: unknown): string[] {
  composeValidator ??= new Ajv({ allErrors: true, strict: false }).compile(loadComposeSchema());
  const validate = composeValidator;
  if (validate(document)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

/** Why an image reference is not pinned to a release, or undefined when it is. */
function imagePinProblem(reference: string): string | undefined {
  if (/@sha256:[0-9a-f]{64}$/.test(reference)) return undefined;
  const lastSlash = reference.lastIndexOf('/');
  const colon = reference.indexOf(':', lastSlash + 1);
  if (colon === -1) return 'has no tag';
  const tag = reference.slice(colon + 1);
  if (tag === 'latest') return 'uses latest';
  if (!/\d+\.\d+/.test(tag)) return `tag ${tag} floats: name a release such as 1.2 or 1.2.3`;
  return undefined;
}

function imageProblems(compose: ComposeFile): string[] {
  return Object.entries(compose.services).flatMap(([name, service]) => {
    if (service.image === undefined) {
      return service.build === undefined ? [`${name}: neither image nor build`] : [];
    }
    // The name a local build is tagged with, not an image pulled from a registry.
    if (service.build !== undefined) return [];
    const problem = imagePinProblem(service.image);
    return problem === undefined ? [] : [`${name}: ${service.image} ${problem}`];
  });
}

/** Normalizes both forms of depends_on; the short list form carries no condition. */
function dependencies(service: ComposeService): [string, DependsOnEntry][] {
  const dependsOn = service.depends_on ?? {};
  return Array.isArray(dependsOn) ? dependsOn.map((target) => [target, {}]) : Object.entries(dependsOn);
}

/** Services others wait on to exit successfully: run-once jobs, which need no healthcheck. */
function oneShotServices(compose: ComposeFile): Set<string> {
  const oneShots = new Set<string>();
  for (const service of Object.values(compose.services)) {
    for (const [target, entry] of dependencies(service)) {
      if (entry.condition === 'service_completed_successfully') oneShots.add(target);
    }
  }
  return oneShots;
}

function hasHealthcheck(service: ComposeService): boolean {
  const test = service.healthcheck?.test;
  if (service.healthcheck?.disable === true || test === undefined) return false;
  return !(Array.isArray(test) && test[0] === 'NONE');
}

function healthcheckProblems(compose: ComposeFile): string[] {
  const oneShots = oneShotServices(compose);
  return Object.entries(compose.services)
    .filter(([name, service]) => !oneShots.has(name) && !hasHealthcheck(service))
    .map(([name]) => `${name}: long-running service without a healthcheck`);
}

function dependsOnProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    for (const [targetName, entry] of dependencies(service)) {
      const target = compose.services[targetName];
      if (target === undefined) {
        problems.push(`${name} -> ${targetName}: no such service`);
      } else if (entry.condition === undefined || entry.condition === 'service_started') {
        problems.push(`${name} -> ${targetName}: waits only for the container to start`);
      } else if (entry.condition === 'service_healthy' && !hasHealthcheck(target)) {
        problems.push(`${name} -> ${targetName}: waits for health but ${targetName} has no healthcheck`);
      } else if (
        entry.condition === 'service_completed_successfully' &&
        (target.restart === 'always' || target.restart === 'unless-stopped')
      ) {
        problems.push(`${name} -> ${targetName}: waits for an exit that restart: ${target.restart} undoes`);
      }
    }
  }
  return problems;
}

interface PublishedPort {
  hostIp: string | undefined;
  host: number;
  container: number;
}

/** Host-published ports of a service, from the short (`[ip:]host:container`) or long syntax. */
function publishedPorts(service: ComposeService): PublishedPort[] {
  return (service.ports ?? []).flatMap((port): PublishedPort[] => {
    if (typeof port === 'object') {
      if (port.published === undefined) return [];
      return [{ hostIp: port.host_ip, host: Number(port.published), container: port.target }];
    }
    const match = /^(?:(.+):)?(\d+):(\d+)(?:\/\w+)?$/.exec(String(port));
    if (match === null) return [];
    return [{ hostIp: match[1], host: Number(match[2]), container: Number(match[3]) }];
  });
}

function bindSources(service: ComposeService): string[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume === 'object') return volume.type === 'bind' && volume.source ? [volume.source] : [];
    const source = volume.split(':')[0] ?? '';
    return source.startsWith('.') || source.startsWith('/') ? [source] : [];
  });
}

/** A service's environment as a map, from either the map or the `KEY=value` list form. */
function environmentOf(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, String(value ?? '')]));
}

/** Environment keys through which each kind of service is told the Temporal namespace. */
const NAMESPACE_KEYS = ['TEMPORAL_NAMESPACE', 'NAMESPACE', 'TEMPORAL_DEFAULT_NAMESPACE'];

/** Every service that talks to Temporal is told the same namespace (the Web UI included). */
function namespaceProblems(compose: ComposeFile): string[] {
  const named = new Map<string, string>();
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    const environment = environmentOf(service);
    if (environment.TEMPORAL_ADDRESS === undefined) continue;
    const key = NAMESPACE_KEYS.find((candidate) => environment[candidate] !== undefined);
    if (key === undefined) problems.push(`${name}: talks to Temporal without being told the namespace`);
    else named.set(name, environment[key] ?? '');
  }
  if (new Set(named.values()).size > 1) {
    problems.push(`namespaces differ: ${[...named].map(([name, value]) => `${name}=${value}`).join(', ')}`);
  }
  return problems;
}

/** Named volumes a service mounts: [volume, target, read-only]. */
function namedMounts(service: ComposeService): { volume: string; target: string; readOnly: boolean }[] {
  return (service.volumes ?? []).flatMap((volume) => {
    if (typeof volume === 'object') return [];
    const [source = '', target = '', mode] = volume.split(':');
    if (source.startsWith('.') || source.startsWith('/')) return [];
    return [{ volume: source, target, readOnly: mode === 'ro' }];
  });
}

/**
 * The API starts with a keys file (it refuses to serve on 0.0.0.0 without one): API_KEYS_FILE lies in
 * a volume the API mounts read-only, which a one-shot service that the API waits for mints into
 * with the keys CLI, only when the file has no key yet.
 */
function apiKeyProblems(compose: ComposeFile): string[] {
  const api = compose.services.api;
  if (!api) return ['no api service'];
  const file = environmentOf(api).API_KEYS_FILE;
  if (!file) return ['api: API_KEYS_FILE is not set'];
  const dir = file.slice(0, file.lastIndexOf('/'));
  const mount = namedMounts(api).find((entry) => entry.target === dir);
  if (!mount) return [`api: ${dir} is not a volume`];
  const problems: string[] = [];
  if (!mount.readOnly) problems.push(`api: ${mount.volume} is mounted writable`);
  const minters = Object.entries(compose.services).filter(
    ([name, service]) =>
      name !== 'api' &&
      environmentOf(service).API_KEYS_FILE === file &&
      namedMounts(service).some((entry) => entry.volume === mount.volume && !entry.readOnly),
  );
  if (minters.length !== 1) return [...problems, `no single service mints into ${mount.volume}`];
  const [minterName, minter] = minters[0]!;
  const command = [minter.command ?? []].flat().join(' ');
  if (!/^node dist\/cli\/keys\.js create --if-none /.test(command)) {
    problems.push(`${minterName}: does not run the keys CLI's create --if-none`);
  }
  if (
    !dependencies(api).some(
      ([name, entry]) => name === minterName && entry.condition === 'service_completed_successfully',
    )
  ) {
    problems.push(`api: does not wait for ${minterName} to complete`);
  }
  return problems;
}

/** Run-once jobs try again after a transient failure, a bounded number of times. */
function oneShotRestartProblems(compose: ComposeFile): string[] {
  return [...oneShotServices(compose)]
    .filter((name) => !/^on-failure(:\d+)?$/.test(compose.services[name]?.restart ?? ''))
    .map((name) => `${name}: run-once job without restart: on-failure`);
}

/**
 * The Web UI's CSRF cookie: Secure by default, which some browsers drop on plain-http localhost
 * (Cancel and Reset then fail). Insecure only while the UI is published on loopback alone.
 */
function uiCookieProblems(compose: ComposeFile): string[] {
  return Object.entries(compose.services)
    .filter(([, service]) => (service.image ?? '').startsWith('temporalio/ui:'))
    .flatMap(([name, service]) => {
      const insecure = environmentOf(service).TEMPORAL_CSRF_COOKIE_INSECURE === 'true';
      const loopbackOnly = publishedPorts(service).every((port) => port.hostIp === '127.0.0.1');
      if (loopbackOnly && !insecure) return [`${name}: Secure CSRF cookie on plain-http loopback`];
      if (!loopbackOnly && insecure) return [`${name}: insecure CSRF cookie on a published port`];
      return [];
    });
}

/** Services built from the same context and Dockerfile share one image name, so it is built once. */
function sharedBuildProblems(compose: ComposeFile): string[] {
  const byBuild = new Map<string, [string, ComposeService][]>();
  for (const [name, service] of Object.entries(compose.services)) {
    if (service.build === undefined) continue;
    const key = JSON.stringify(service.build);
    byBuild.set(key, [...(byBuild.get(key) ?? []), [name, service]]);
  }
  return [...byBuild.values()]
    .filter((group) => group.length > 1)
    .filter(
      (group) =>
        group.some(([, service]) => service.image === undefined) ||
        new Set(group.map(([, s]) => s.image)).size > 1,
    )
    .map((group) => `${group.map(([name]) => name).join(', ')}: one build, not one image name`);
}

/** Files whose checkout may not keep LF line ends (git's `eol` attribute is not `lf`). */
function lineEndingProblems(paths: readonly string[]): string[] {
  if (paths.length === 0) return [];
  const run = spawnSync('git', ['check-attr', 'eol', '--', ...paths], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git check-attr failed: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .filter((line) => !line.endsWith(': eol: lf'))
    .map((line) => `${line.split(':')[0]}: not checked out with LF line ends`);
}

function loadCompose(): ComposeFile {
  const document = readRepoYaml('docker-compose.yml');
  if (!isRecord(document) || !isRecord(document.services))
    throw new Error('docker-compose.yml has no services');
  // The shape is checked against the Compose schema in its own test.
  return document as unknown as ComposeFile;
}

const compose = loadCompose();

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

describe('Compose Specification schema', () => {
  it('accepts docker-compose.yml', () => {
    expect(validateCompose(readRepoYaml('docker-compose.yml'))).toEqual([]);
  });

  it.each([
    { name: 'an unknown service key', document: { services: { api: { image: 'x:1.0', imagee: 'y' } } } },
    {
      name: 'an unknown depends_on condition',
      document: { services: { api: { image: 'x:1.0', depends_on: { db: { condition: 'service_ready' } } } } },
    },
    {
      name: 'a healthcheck test of the wrong type',
      document: { services: { db: { image: 'x:1.0', healthcheck: { test: 1 } } } },
    },
  ])('rejects $name', ({ document }) => {
    expect(validateCompose(document)).not.toEqual([]);
  });
});

describe('image pinning', () => {
  it.each([
    { reference: 'postgres', pinned: false },
    { reference: 'postgres:latest', pinned: false },
    { reference: 'postgres:16', pinned: false },
    { reference: 'localhost:5000/app', pinned: false },
    { reference: 'postgres:16.13', pinned: true },
    { reference: 'prom/prometheus:v3.5.0', pinned: true },
    { reference: 'localhost:5000/app:1.2.3', pinned: true },
    { reference: `temporalio/ui@sha256:${'a'.repeat(64)}`, pinned: true },
  ])('$reference pinned: $pinned', ({ reference, pinned }) => {
    expect(imagePinProblem(reference) === undefined).toBe(pinned);
  });

  it('pins every image of docker-compose.yml to a release', () => {
    expect(imageProblems(compose)).toEqual([]);
  });
});

describe('healthchecks', () => {
  it('flags a long-running service without one, not a run-once job', () => {
    const sample: ComposeFile = {
      services: {
        db: { image: 'postgres:16.13' },
        migrate: { image: 'tools:1.0', depends_on: { db: { condition: 'service_started' } } },
        app: { image: 'app:1.0', depends_on: { migrate: { condition: 'service_completed_successfully' } } },
      },
    };
    expect(healthcheckProblems(sample)).toEqual([
      'db: long-running service without a healthcheck',
      'app: long-running service without a healthcheck',
    ]);
  });

  it('gives every long-running service of docker-compose.yml a healthcheck', () => {
    expect(healthcheckProblems(compose)).toEqual([]);
  });
});

interface DependsOnCase {
  name: string;
  services: ComposeFile['services'];
  problem: string;
}

const BAD_DEPENDENCIES: DependsOnCase[] = [
  {
    name: 'the short list form',
    services: { app: { image: 'a:1.0', depends_on: ['db'] }, db: { image: 'd:1.0' } },
    problem: 'app -> db: waits only for the container to start',
  },
  {
    name: 'service_healthy on a service without healthcheck',
    services: {
      app: { image: 'a:1.0', depends_on: { db: { condition: 'service_healthy' } } },
      db: { image: 'd:1.0' },
    },
    problem: 'app -> db: waits for health but db has no healthcheck',
  },
  {
    name: 'service_completed_successfully on a service that restarts',
    services: {
      app: { image: 'a:1.0', depends_on: { job: { condition: 'service_completed_successfully' } } },
      job: { image: 'j:1.0', restart: 'unless-stopped' },
    },
    problem: 'app -> job: waits for an exit that restart: unless-stopped undoes',
  },
  {
    name: 'an unknown service',
    services: { app: { image: 'a:1.0', depends_on: { gone: { condition: 'service_healthy' } } } },
    problem: 'app -> gone: no such service',
  },
];

describe('depends_on', () => {
  it.each(BAD_DEPENDENCIES)('flags $name', ({ services, problem }) => {
    expect(dependsOnProblems({ services })).toEqual([problem]);
  });

  it('makes every dependency of docker-compose.yml wait on a condition its target can meet', () => {
    expect(dependsOnProblems(compose)).toEqual([]);
  });
});

describe('published ports', () => {
  it.each([
    { port: '127.0.0.1:8233:8080', expected: [{ hostIp: '127.0.0.1', host: 8233, container: 8080 }] },
    { port: '3000:3000', expected: [{ hostIp: undefined, host: 3000, container: 3000 }] },
    { port: '9090', expected: [] },
    {
      port: { target: 8080, published: '8233' },
      expected: [{ hostIp: undefined, host: 8233, container: 8080 }],
    },
  ])('reads $port', ({ port, expected }) => {
    expect(publishedPorts({ ports: [port] })).toEqual(expected);
  });

  it.each([
    { name: 'temporal-ui', host: 8233, container: 8080 },
    { name: 'api', host: 3000, container: 3000 },
  ])('$name is on host port $host', ({ name, host, container }) => {
    expect(publishedPorts(service(name))).toContainEqual(expect.objectContaining({ host, container }));
  });

  it('publishes nothing on all interfaces', () => {
    const exposed = Object.entries(compose.services).flatMap(([name, entry]) =>
      publishedPorts(entry)
        .filter((port) => port.hostIp !== '127.0.0.1')
        .map((port) => `${name}:${port.host}`),
    );
    expect(exposed).toEqual([]);
  });
});

describe('api and worker', () => {
  it.each([
    { name: 'api', entry: 'dist/api/main.js' },
    { name: 'worker', entry: 'dist/worker/main.js' },
  ])('$name is built from the Dockerfile and runs $entry', ({ name, entry }) => {
    const app = service(name);
    expect(app.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(app.command).toEqual(['node', entry]);
    expect([app.healthcheck?.test ?? []].flat().join(' ')).toContain('/readyz');
    expect(dependencies(app)).toContainEqual([
      'register-search-attributes',
      { condition: 'service_completed_successfully' },
    ]);
  });

  it('lets the worker scale: no host port, no fixed container name', () => {
    const worker = service('worker');
    expect(publishedPorts(worker)).toEqual([]);
    expect(worker.container_name).toBeUndefined();
  });
});

describe("the five fixes after reading Temporal's reference compose", () => {
  const sample = (services: ComposeFile['services']): ComposeFile => ({ services });

  it('shell scripts keep LF line ends on Windows checkouts (the schema job runs them with sh)', () => {
    expect(lineEndingProblems(['notes.txt'])).toEqual(['notes.txt: not checked out with LF line ends']);
    const tracked = spawnSync('git', ['ls-files', '*.sh'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .filter(Boolean);
    expect(tracked).toContain('deploy/temporal/setup-schema.sh');
    expect(lineEndingProblems(tracked)).toEqual([]);
  });

  it('tells the Web UI the namespace the services use', () => {
    const ns = '${TEMPORAL_NAMESPACE:-default}';
    expect(
      namespaceProblems(
        sample({
          api: { image: 'a:1.0', environment: { TEMPORAL_ADDRESS: 't:7233', TEMPORAL_NAMESPACE: ns } },
          ui: { image: 'temporalio/ui:2.34.0', environment: ['TEMPORAL_ADDRESS=t:7233'] },
        }),
      ),
    ).toEqual(['ui: talks to Temporal without being told the namespace']);
    expect(
      namespaceProblems(
        sample({
          api: { image: 'a:1.0', environment: { TEMPORAL_ADDRESS: 't:7233', TEMPORAL_NAMESPACE: ns } },
          ui: {
            image: 'u:1.0',
            environment: { TEMPORAL_ADDRESS: 't:7233', TEMPORAL_DEFAULT_NAMESPACE: 'x' },
          },
        }),
      ),
    ).toEqual([`namespaces differ: api=${ns}, ui=x`]);
    expect(namespaceProblems(compose)).toEqual([]);
    expect(environmentOf(service('temporal-ui')).TEMPORAL_DEFAULT_NAMESPACE).toBe(ns);
  });

  it('lets run-once jobs, the schema job first, try again after a transient failure', () => {
    const job = (restart?: string): ComposeFile =>
      sample({
        app: { image: 'a:1.0', depends_on: { job: { condition: 'service_completed_successfully' } } },
        job: { image: 'j:1.0', ...(restart ? { restart } : {}) },
      });
    expect(oneShotRestartProblems(job())).toEqual(['job: run-once job without restart: on-failure']);
    expect(oneShotRestartProblems(job('on-failure:5'))).toEqual([]);
    expect(oneShotServices(compose)).toContain('temporal-schema');
    expect(oneShotRestartProblems(compose)).toEqual([]);
  });

  it("marks the UI's CSRF cookie insecure exactly while the UI is on loopback only", () => {
    const ui = (port: string, insecure: boolean): ComposeFile =>
      sample({
        ui: {
          image: 'temporalio/ui:2.34.0',
          ports: [port],
          environment: insecure ? { TEMPORAL_CSRF_COOKIE_INSECURE: 'true' } : {},
        },
      });
    expect(uiCookieProblems(ui('127.0.0.1:8233:8080', false))).toEqual([
      'ui: Secure CSRF cookie on plain-http loopback',
    ]);
    expect(uiCookieProblems(ui('8233:8080', true))).toEqual(['ui: insecure CSRF cookie on a published port']);
    expect(uiCookieProblems(compose)).toEqual([]);
  });

  it('builds the image of api and worker once, under one name', () => {
    const build = { context: '.', dockerfile: 'Dockerfile' };
    expect(sharedBuildProblems(sample({ api: { build }, worker: { build } }))).toEqual([
      'api, worker: one build, not one image name',
    ]);
    expect(
      sharedBuildProblems(sample({ api: { build, image: 'x:1' }, worker: { build, image: 'y:1' } })),
    ).toEqual(['api, worker: one build, not one image name']);
    expect(sharedBuildProblems(compose)).toEqual([]);
    expect(service('api').image).toEqual(expect.any(String));
    expect(service('worker').image).toBe(service('api').image);
  });
});

describe('files the stack mounts', () => {
  const mounts = Object.entries(compose.services).flatMap(([name, entry]) =>
    bindSources(entry).map((source) => ({ name, source })),
  );

  it('mounts something', () => {
    expect(mounts.length).toBeGreaterThan(0);
  });

  it.each(mounts)('$name mounts $source, which exists', ({ source }) => {
    expect(repoFileExists(source)).toBe(true);
  });
});

describe('API keys', () => {
  const minter: ComposeService = {
    image: 'app:1.0',
    command: ['node', 'dist/cli/keys.js', 'create', '--if-none', '--owner', 'default', '--scopes', 'admin'],
    environment: { API_KEYS_FILE: '/keys/api-keys.json' },
    volumes: ['keys:/keys'],
  };
  const api: ComposeService = {
    image: 'app:1.0',
    environment: ['API_KEYS_FILE=/keys/api-keys.json'],
    volumes: ['keys:/keys:ro'],
    depends_on: { mint: { condition: 'service_completed_successfully' } },
  };
  it.each<{ name: string; services: ComposeFile['services']; problem: string }>([
    {
      name: 'no keys file',
      services: { api: { image: 'app:1.0' } },
      problem: 'api: API_KEYS_FILE is not set',
    },
    {
      name: 'a writable mount',
      services: { api: { ...api, volumes: ['keys:/keys'] }, mint: minter },
      problem: 'api: keys is mounted writable',
    },
    { name: 'nothing minting', services: { api }, problem: 'no single service mints into keys' },
    {
      name: 'a minter that mints on every start',
      services: { api, mint: { ...minter, command: ['node', 'dist/cli/keys.js', 'create', '--owner', 'x'] } },
      problem: "mint: does not run the keys CLI's create --if-none",
    },
    {
      name: 'an API that does not wait for the key',
      services: { api: { ...api, depends_on: {} }, mint: minter },
      problem: 'api: does not wait for mint to complete',
    },
  ])('flags $name', ({ services, problem }) => {
    expect(apiKeyProblems({ services })).toContain(problem);
  });

  it('the sample passes', () => {
    expect(apiKeyProblems({ services: { api, mint: minter } })).toEqual([]);
  });

  it('docker-compose.yml mints the first key and starts the API on it', () => {
    expect(apiKeyProblems(compose)).toEqual([]);
  });

  it('the image has the keys directory, owned by the process user, so a fresh volume is writable', () => {
    const file = environmentOf(service('api')).API_KEYS_FILE ?? '';
    const dir = file.slice(0, file.lastIndexOf('/'));
    expect(readRepoText('Dockerfile')).toContain(`RUN mkdir -p ${dir} && chown node:node ${dir}`);
  });
});

describe('search attributes', () => {
  it('registers exactly those of ALL_SEARCH_ATTRIBUTES, with their types (src/shared/constants.ts)', () => {
    const script = readRepoText('deploy/temporal/register-search-attributes.sh');
    const specs = /^for spec in (.+); do$/m.exec(script)?.[1]?.split(' ') ?? [];
    expect(
      specs,
      `the \`for spec in\` line of deploy/temporal/register-search-attributes.sh must read: ${cliSearchAttributes().join(' ')}`,
    ).toEqual(cliSearchAttributes());
  });

  it('start the dev server with the same attributes and types', () => {
    expect(searchAttributeArgs().filter((arg) => arg !== '--search-attribute')).toEqual(
      ALL_SEARCH_ATTRIBUTES.map((key) => `${key.name}=${CLI_SEARCH_ATTRIBUTE_TYPES[key.type]}`),
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = readRepoText('Dockerfile');
  const args = new Map(
    [...dockerfile.matchAll(/^ARG (\w+)=(\S+)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
  );
  const stages = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gim)].map((match) => match[1]));
  const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)]
    .map((match) => (match[1] ?? '').replace(/^\$\{(\w+)\}$/, (_, arg: string) => args.get(arg) ?? arg))
    .filter((base) => !stages.has(base));

  it('pins every base image', () => {
    expect(bases.length).toBeGreaterThan(0);
    expect(bases.map((base) => [base, imagePinProblem(base)])).toEqual(
      bases.map((base) => [base, undefined]),
    );
  });

  it('builds on a Node line that still gets security fixes (22 or 24 LTS; 20 ended in April 2026)', () => {
    expect(bases.filter((base) => !/^node:(22|24)\.\d+\.\d+-/.test(base))).toEqual([]);
  });

  it('builds on glibc, since the Temporal SDK does not run on musl', () => {
    expect(bases.filter((base) => /alpine/i.test(base))).toEqual([]);
  });

  it('runs the API as a non-root user by default', () => {
    const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(lastStage).toMatch(/^USER node$/m);
    expect(lastStage).toMatch(/^CMD \["node", "dist\/api\/main\.js"\]$/m);
  });
});
