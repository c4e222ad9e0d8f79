/**
 * Task-type policies: per-type callback defaults, caps, concurrency and rate limit, each declared
 * type on its own callback task queue. Loaded from a JSON file and validated once at boot.
 */
import { readFileSync } from 'node:fs';
import Type, { type Static } from 'typebox';
import { callbackTaskQueue, DEFAULT_POLICY_NAME } from './shared/constants.js';
import { MAX_RETRIES, TASK_TYPE_PATTERN, TIMEOUT_MS } from './shared/limits.js';
import { createAjv, toFieldProblems } from './validation.js';
import { HEADER_NAME_PATTERN, headerProblems, type HeaderSource } from './security/header-secrets.js';

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
    // --- security: header secrets ---
    headers: Type.Optional(HeadersSchema),
  },
  { additionalProperties: false },
);

export const PolicyFileSchema = Type.Object(
  {
    strict: Type.Optional(Type.Boolean({ description: 'Reject task types the file does not declare' })),
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
  /** Header name → where the worker reads its value when it sends (security). */
  headers: Readonly<Record<string, HeaderSource>>;
}

export const DEFAULT_CONCURRENCY = 100;

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export class Policies {
  readonly strict: boolean;
  private readonly fallback: TaskTypePolicy;
  private readonly declared: ReadonlyMap<string, TaskTypePolicy>;

  constructor(file: PolicyFile = {}) {
    const problems = toFieldProblems(validateFile(file) ? [] : validateFile.errors);
    if (problems.length > 0) {
      throw new PolicyError(
        `invalid task policies: ${problems.map((p) => `${p.field} ${p.reason}`).join('; ')}`,
      );
    }
    this.strict = file.strict ?? false;
    this.fallback = resolve(DEFAULT_POLICY_NAME, file.default ?? {}, undefined);
    this.declared = new Map(
      Object.entries(file.taskTypes ?? {}).map(([name, policy]) => [
        name,
        resolve(name, policy, file.default),
      ]),
    );
  }

  /** The policy of a task type; undefined when strict and the type is not declared. */
  forType(taskType: string): TaskTypePolicy | undefined {
    return this.declared.get(taskType) ?? (this.strict ? undefined : this.fallback);
  }

  /** Every policy, the default one first: one callback worker each. */
  all(): TaskTypePolicy[] {
    return [this.fallback, ...this.declared.values()];
  }

  /** Callback task queue of a policy under the given workflow task queue. */
  static taskQueue(taskQueue: string, policy: TaskTypePolicy): string {
    return callbackTaskQueue(taskQueue, policy.name);
  }
}

const validateFile = createAjv().compile(PolicyFileSchema);

function resolve(
  name: string,
  policy: Static<typeof PolicySchema>,
  base: Static<typeof PolicySchema> | undefined,
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
    headers: checkedHeaders(name, pick('headers') ?? {}),
  };
}

function checkedHeaders(name: string, headers: Record<string, HeaderSource>): Record<string, HeaderSource> {
  const problems = headerProblems(headers);
  if (problems.length > 0) throw new PolicyError(`task policy ${name}: ${problems.join('; ')}`);
  return headers;
}

/** Reads and validates the policy file; no path means defaults for every type. */
export function loadPolicies(path: string | undefined): Policies {
  if (!path) return new Policies();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PolicyError(`cannot read task policies from ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return new Policies(parsed as PolicyFile);
}
