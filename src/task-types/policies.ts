/**
 * Task-type policies: per-type callback defaults, caps, concurrency and rate limit, each declared
 * type on its own callback task queue. Loaded from a JSON file and validated once at boot.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Ajv } from 'ajv';
import Type, { type Static } from 'typebox';
import { DEFAULT_POLICY_NAME } from '../shared/constants.js';
import { MAX_RETRIES, TASK_TYPE_PATTERN, TIMEOUT_MS } from '../shared/limits.js';
import type { RetryPolicy } from '../shared/backoff.js';
import {
  CatalogError,
  PayloadSchemas,
  resolveRetryPolicy,
  RetrySectionSchema,
  SchemasSectionSchema,
} from './catalog.js';
import { invalidArgument } from '../errors/catalog.js';
import { createAjv, toFieldProblems } from '../validation/json-schema.js';
import { type CallbackGuard, CallbackRefusedError } from '../security/callback-guard.js';
import { HEADER_NAME_PATTERN, headerProblems, type HeaderSource } from '../security/header-secrets.js';

const range = (limits: { min: number; max: number }, what: string) =>
  Type.Object(
    {
      default: Type.Optional(
        Type.Integer({ minimum: limits.min, maximum: limits.max, description: `Default ${what}` }),
      ),
      max: Type.Optional(
        Type.Integer({
          minimum: limits.min,
          maximum: limits.max,
          description: `Largest ${what} a caller may ask for`,
        }),
      ),
    },
    { additionalProperties: false },
  );

// --- security: header secrets (values from the worker's environment or files, never from a task) ---
const HeaderSourceSchema = Type.Union([
  Type.Object(
    { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Environment variable' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { file: Type.String({ minLength: 1, description: 'File whose content (trimmed) is the value' }) },
    { additionalProperties: false },
  ),
]);
const HeadersSchema = Type.Record(Type.String({ pattern: HEADER_NAME_PATTERN }), HeaderSourceSchema, {
  additionalProperties: false,
  description: 'Static headers added to each callback, e.g. {"Authorization": {"env": "ORDERS_TOKEN"}}',
});
// --- end security ---

export const PolicySchema = Type.Object(
  {
    callbackUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description: 'Used when a task omits callbackUrl',
      }),
    ),
    allowedCallbackHosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Host names a callbackUrl may point at; absent: any',
      }),
    ),
    maxRetries: Type.Optional(range(MAX_RETRIES, 'retries after the first attempt')),
    timeoutMs: Type.Optional(range(TIMEOUT_MS, 'limit of one callback attempt, ms')),
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Callbacks in flight at once, per worker process',
      }),
    ),
    ratePerSecond: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 100_000,
        description: 'Callback attempts per second across all workers',
      }),
    ),
    // Catalog (src/task-types/catalog.ts): retry schedule and payload schemas.
    retry: Type.Optional(RetrySectionSchema),
    schemas: Type.Optional(SchemasSectionSchema),
    // --- security: header secrets ---
    headers: Type.Optional(HeadersSchema),
  },
  { additionalProperties: false },
);

export const PolicyFileSchema = Type.Object(
  {
    strict: Type.Optional(Type.Boolean({ description: 'Reject task types the file does not declare' })),
    requireSchemas: Type.Optional(
      Type.Boolean({ description: 'Every declared task type must declare payload schemas' }),
    ),
    default: Type.Optional(PolicySchema),
    taskTypes: Type.Optional(
      Type.Record(Type.String({ pattern: TASK_TYPE_PATTERN }), PolicySchema, {
        additionalProperties: false,
        description: `Declared task types; names match ${TASK_TYPE_PATTERN}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type PolicyFile = Static<typeof PolicyFileSchema>;

export interface TaskTypePolicy {
  /** The task type, or `_default` for undeclared types. */
  name: string;
  callbackUrl: string | undefined;
  allowedCallbackHosts: readonly string[] | undefined;
  maxRetries: { default: number; max: number };
  timeoutMs: { default: number; max: number };
  concurrency: number;
  ratePerSecond: number | undefined;
  /** Retry schedule of its callbacks (today's schedule unless the file says otherwise). */
  retry: RetryPolicy;
  /** Payload schemas by version; undefined when the type declares none (payloads unchecked). */
  payloadSchemas: PayloadSchemas | undefined;
  /** Header name → where the worker reads its value when it sends (security). */
  headers: Readonly<Record<string, HeaderSource>>;
}

export const DEFAULT_CONCURRENCY = 100;

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export interface PoliciesOptions {
  /** Directory that schema paths are relative to: the policy file's. @defaultValue the working directory */
  baseDir?: string;
}

export class Policies {
  readonly strict: boolean;
  private readonly fallback: TaskTypePolicy;
  private readonly declared: ReadonlyMap<string, TaskTypePolicy>;

  constructor(file: PolicyFile = {}, options: PoliciesOptions = {}) {
    const problems = toFieldProblems(validateFile(file) ? [] : validateFile.errors);
    if (problems.length > 0) {
      throw new PolicyError(
        `invalid task policies: ${problems.map((p) => `${p.field} ${p.reason}`).join('; ')}`,
      );
    }
    this.strict = file.strict ?? false;
    const catalog = { baseDir: options.baseDir ?? process.cwd(), ajv: createAjv() };
    checkCatalogRules(file);
    this.fallback = resolve(DEFAULT_POLICY_NAME, file.default ?? {}, undefined, catalog);
    this.declared = new Map(
      Object.entries(file.taskTypes ?? {}).map(([name, policy]) => [
        name,
        resolve(name, policy, file.default, catalog),
      ]),
    );
  }

  /** Declared task types by name, in file order. */
  declaredTypes(): ReadonlyMap<string, TaskTypePolicy> {
    return this.declared;
  }

  /** The policy of task types the file does not declare; undefined when strict. */
  defaultPolicy(): TaskTypePolicy | undefined {
    return this.strict ? undefined : this.fallback;
  }

  /** The policy of a task type; undefined when strict and the type is not declared. */
  forType(taskType: string): TaskTypePolicy | undefined {
    return this.declared.get(taskType) ?? (this.strict ? undefined : this.fallback);
  }

  /** The policy of a task type; refuses (400) a type that a strict file does not declare. */
  require(taskType: string): TaskTypePolicy {
    const policy = this.forType(taskType);
    if (!policy) throw invalidArgument('taskType', 'is not a declared task type (the policy file is strict)');
    return policy;
  }

  /** Every policy, the default one first: one callback worker each. */
  all(): TaskTypePolicy[] {
    return [this.fallback, ...this.declared.values()];
  }
}

const validateFile = createAjv().compile(PolicyFileSchema);

/** Catalog rules the JSON Schema of the file cannot say. */
function checkCatalogRules(file: PolicyFile): void {
  if (file.default?.schemas) {
    throw new PolicyError(
      'invalid task policies: default.schemas: payload schemas belong to a declared task type',
    );
  }
  if (file.requireSchemas) {
    const missing = Object.entries(file.taskTypes ?? {})
      .filter(([, policy]) => !policy.schemas || Object.keys(policy.schemas).length === 0)
      .map(([name]) => name);
    if (missing.length > 0) {
      throw new PolicyError(
        `invalid task policies: requireSchemas is on but these task types declare no schemas: ${missing.join(', ')}`,
      );
    }
  }
}

function resolveCatalog(
  name: string,
  policy: Static<typeof PolicySchema>,
  base: Static<typeof PolicySchema> | undefined,
  catalog: { baseDir: string; ajv: Ajv },
): Pick<TaskTypePolicy, 'retry' | 'payloadSchemas'> {
  try {
    return {
      retry: resolveRetryPolicy(name, policy.retry, base?.retry),
      payloadSchemas: policy.schemas
        ? PayloadSchemas.compile(name, policy.schemas, catalog.baseDir, catalog.ajv)
        : undefined,
    };
  } catch (err) {
    if (err instanceof CatalogError) throw new PolicyError(err.message, { cause: err });
    throw err;
  }
}

function resolve(
  name: string,
  policy: Static<typeof PolicySchema>,
  base: Static<typeof PolicySchema> | undefined,
  catalog: { baseDir: string; ajv: Ajv },
): TaskTypePolicy {
  const pick = <K extends keyof Static<typeof PolicySchema>>(key: K) => policy[key] ?? base?.[key];
  const bounds = (
    given: { default?: number; max?: number } | undefined,
    limits: { default: number; max: number },
    field: string,
  ) => {
    const max = given?.max ?? limits.max;
    const fallback = given?.default ?? Math.min(limits.default, max);
    if (fallback > max)
      throw new PolicyError(
        `task policy ${name}: ${field}.default (${fallback}) exceeds ${field}.max (${max})`,
      );
    return { default: fallback, max };
  };
  return {
    name,
    callbackUrl: pick('callbackUrl'),
    allowedCallbackHosts: pick('allowedCallbackHosts'),
    maxRetries: bounds(pick('maxRetries'), MAX_RETRIES, 'maxRetries'),
    timeoutMs: bounds(pick('timeoutMs'), TIMEOUT_MS, 'timeoutMs'),
    concurrency: pick('concurrency') ?? DEFAULT_CONCURRENCY,
    ratePerSecond: pick('ratePerSecond'),
    ...resolveCatalog(name, policy, base, catalog),
    headers: checkedHeaders(name, pick('headers') ?? {}),
  };
}

function checkedHeaders(name: string, headers: Record<string, HeaderSource>): Record<string, HeaderSource> {
  const problems = headerProblems(headers);
  if (problems.length > 0) throw new PolicyError(`task policy ${name}: ${problems.join('; ')}`);
  return headers;
}

/**
 * Reads and validates the policy file; no path means defaults for every type. Read once at start:
 * a changed file takes effect at the next start (no reload), where an invalid one stops the start.
 * `guard`: the SSRF rules every default `callbackUrl` must pass as written (a policy cannot point
 * every task of a type at 169.254.169.254); names are checked again as they resolve, at create and send.
 */
export function loadPolicies(path: string | undefined, guard?: CallbackGuard): Policies {
  if (!path) return new Policies();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PolicyError(`cannot read task policies from ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    const policies = new Policies(parsed as PolicyFile, { baseDir: dirname(path) });
    if (guard) checkCallbackUrls(policies, guard);
    return policies;
  } catch (err) {
    // Name the file: the message already names the field (`taskTypes.orders.concurrency must be >= 1`).
    if (err instanceof PolicyError) throw new PolicyError(`${path}: ${err.message}`, { cause: err });
    throw err;
  }
}

function checkCallbackUrls(policies: Policies, guard: CallbackGuard): void {
  for (const policy of policies.all()) {
    if (policy.callbackUrl === undefined) continue;
    try {
      guard.checkUrl(policy.callbackUrl);
    } catch (err) {
      if (!(err instanceof CallbackRefusedError)) throw err;
      const where = policy.name === DEFAULT_POLICY_NAME ? 'default' : `taskTypes.${policy.name}`;
      throw new PolicyError(`${where}.callbackUrl: ${err.message}`, { cause: err });
    }
  }
}
