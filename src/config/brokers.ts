/**
 * Broker declarations (docs/brokers.md): the brokers an operator lets tasks publish to, by name, with
 * their connection and, per owner, the destinations (streams, exchanges, topics) that owner may name.
 * Read from the JSON file BROKERS_FILE once at boot and validated here; a task only ever names a
 * declared broker and an allowed destination, so no task can make the service connect anywhere else.
 *
 * ```json
 * { "brokers": { "events": {
 *     "kind": "redis-streams", "url": "redis://10.0.0.5:6379",
 *     "username": "delayed-tasks", "passwordFile": "/run/secrets/redis-password",
 *     "tls": { "caFile": "/run/secrets/redis-ca.pem" },
 *     "owners": { "orders": ["orders.due", "orders.*"] } } } }
 * ```
 */
import { readFileSync } from 'node:fs';
import { BROKER_KINDS, type BrokerKind } from '../shared/delivery.js';

/** TLS to a broker: file paths, read when the worker connects. */
export interface BrokerTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Name checked in the broker's certificate; the URL's host by default. */
  serverName?: string;
}

/** One declared broker. */
export interface BrokerDeclaration {
  name: string;
  kind: BrokerKind;
  /**
   * `redis://` or `rediss://` (Redis Streams), `amqp://` or `amqps://` (RabbitMQ), or
   * `kafka://host:port[,host:port]` (Kafka's bootstrap servers). No credentials in it.
   */
  url: string;
  username?: string;
  /** The password: read from this file when the worker connects (a mounted secret). */
  passwordFile?: string;
  /** The password, from this environment variable, read at boot. */
  password?: string;
  tls?: BrokerTls;
  /**
   * Owners allowed to publish here, each with the destinations it may name: exact names, or a
   * prefix ending in `*` (`orders.*` allows `orders.due`).
   */
  owners: Readonly<Record<string, readonly string[]>>;
}

export type BrokerDeclarations = ReadonlyMap<string, BrokerDeclaration>;

export class BrokerConfigError extends Error {
  override name = 'BrokerConfigError';
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const URL_SCHEMES: Readonly<Record<BrokerKind, readonly string[]>> = {
  'redis-streams': ['redis:', 'rediss:'],
  rabbitmq: ['amqp:', 'amqps:'],
  kafka: ['kafka:'],
};

/** True when `destination` is one of `allowed` (exact, or a `prefix*`). */
export function destinationAllowed(destination: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) =>
    pattern.endsWith('*') ? destination.startsWith(pattern.slice(0, -1)) : destination === pattern,
  );
}

/** Reads and validates BROKERS_FILE; `env` resolves `passwordEnv`. Empty when no file is named. */
export function readBrokersFile(
  path: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): BrokerDeclarations {
  if (path === undefined) return new Map();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrokerConfigError(`BROKERS_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  return parseBrokers(text, env, `BROKERS_FILE ${path}`);
}

/** Parses a declarations file's text; throws BrokerConfigError naming the broker and field. */
export function parseBrokers(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  source = 'BROKERS_FILE',
): BrokerDeclarations {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BrokerConfigError(`${source} is not JSON: ${(err as Error).message}`);
  }
  const brokers = isObject(parsed) ? parsed.brokers : undefined;
  if (!isObject(brokers)) throw new BrokerConfigError(`${source}: expected {"brokers": {"<name>": {...}}}`);
  const result = new Map<string, BrokerDeclaration>();
  for (const [name, raw] of Object.entries(brokers)) {
    result.set(name, parseDeclaration(name, raw, env, source));
  }
  return result;
}

function parseDeclaration(
  name: string,
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
): BrokerDeclaration {
  const fail = (field: string, reason: string): never => {
    throw new BrokerConfigError(`${source}: brokers.${name}.${field} ${reason}`);
  };
  if (!NAME.test(name)) fail('', 'is not a name (letters, digits, . _ -; at most 63)');
  if (!isObject(raw)) return fail('', 'must be an object');
  const known = ['kind', 'url', 'username', 'passwordFile', 'passwordEnv', 'tls', 'owners'];
  for (const key of Object.keys(raw)) if (!known.includes(key)) fail(key, 'is not a known field');
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(BROKER_KINDS as readonly string[]).includes(kind)) {
    fail('kind', `must be one of ${BROKER_KINDS.join(', ')}`);
  }
  const brokerKind = kind as BrokerKind;
  if (typeof raw.url !== 'string') return fail('url', 'is required');
  let url: URL;
  try {
    url = new URL(raw.url);
  } catch {
    return fail('url', 'is not a URL');
  }
  if (!URL_SCHEMES[brokerKind].includes(url.protocol)) {
    fail('url', `must start with ${URL_SCHEMES[brokerKind].join(' or ')} for ${brokerKind}`);
  }
  if (url.username || url.password)
    fail('url', 'must not carry credentials: use username and passwordFile or passwordEnv');
  const optionalString = (field: string): string | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') fail(field, 'must be a non-empty string');
    return value as string;
  };
  const username = optionalString('username');
  const passwordFile = optionalString('passwordFile');
  const passwordEnv = optionalString('passwordEnv');
  if (passwordFile && passwordEnv) fail('passwordEnv', 'cannot be combined with passwordFile');
  let password: string | undefined;
  if (passwordEnv !== undefined) {
    password = env[passwordEnv];
    if (password === undefined || password === '')
      fail('passwordEnv', `names ${passwordEnv}, which is not set`);
  }
  const tls = parseTls(raw.tls, (field, reason) => fail(`tls.${field}`, reason));
  if (tls && !['rediss:', 'amqps:', 'kafka:'].includes(url.protocol)) {
    fail('tls', `needs a TLS URL (rediss: or amqps:), not ${url.protocol}`);
  }
  const owners = raw.owners;
  if (!isObject(owners) || Object.keys(owners).length === 0) {
    return fail('owners', 'must name at least one owner: {"<owner>": ["<destination>", "<prefix>*"]}');
  }
  // No prototype: an owner named `constructor` (a valid owner name) finds nothing it was not given.
  const allowed: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  for (const [owner, list] of Object.entries(owners)) {
    if (!Array.isArray(list) || list.length === 0 || !list.every((d) => typeof d === 'string' && d !== '')) {
      fail(`owners.${owner}`, 'must be a non-empty list of destinations (exact, or a prefix ending in *)');
    }
    allowed[owner] = Object.freeze([...(list as string[])]);
  }
  return Object.freeze({
    name,
    kind: brokerKind,
    url: raw.url,
    ...(username !== undefined && { username }),
    ...(passwordFile !== undefined && { passwordFile }),
    ...(password !== undefined && { password }),
    ...(tls && { tls }),
    owners: Object.freeze(allowed),
  });
}

function parseTls(raw: unknown, fail: (field: string, reason: string) => never): BrokerTls | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) return fail('', 'must be an object');
  const tls: BrokerTls = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!['caFile', 'certFile', 'keyFile', 'serverName'].includes(key)) fail(key, 'is not a known field');
    if (typeof value !== 'string' || value === '') fail(key, 'must be a non-empty string');
    tls[key as keyof BrokerTls] = value as string;
  }
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined))
    fail('keyFile', 'and certFile go together');
  return tls;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
