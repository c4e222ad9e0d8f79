/**
 * The catalog part of a task type's policy: its payload JSON Schemas per `payloadVersion` and its
 * retry schedule. The sections of the policy file, how they resolve, and the compiled validators.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';
import Type, { type Static } from 'typebox';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../shared/backoff.js';
import { toFieldProblems, type FieldProblem } from '../validation/json-schema.js';

/** `payloadVersion` as a key of the `schemas` section. */
export const PAYLOAD_VERSION_KEY_PATTERN = '^[1-9][0-9]{0,9}$';

export const RetrySectionSchema = Type.Object(
  {
    initialIntervalMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 86_400_000,
        description: `Wait before the first backoff retry, ms (default ${DEFAULT_RETRY_POLICY.initialIntervalMs})`,
      }),
    ),
    multiplier: Type.Optional(
      Type.Number({
        minimum: 1,
        maximum: 10,
        description: `Growth of the wait per retry; 1 is a fixed interval (default ${DEFAULT_RETRY_POLICY.multiplier})`,
      }),
    ),
    maxIntervalMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 86_400_000,
        description: `Longest wait between attempts, ms (default ${DEFAULT_RETRY_POLICY.maxIntervalMs})`,
      }),
    ),
    immediateRetries: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description: 'Retries made at once before the backoff starts (default 0)',
      }),
    ),
    maxTotalSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 7_776_000,
        description:
          'No attempt starts later than this after the first one: the task is dead-lettered whatever maxRetries says (default: no limit)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RetrySection = Static<typeof RetrySectionSchema>;

export const SchemasSectionSchema = Type.Record(
  Type.String({ pattern: PAYLOAD_VERSION_KEY_PATTERN }),
  Type.Union([
    Type.String({ minLength: 1, description: 'Path of a JSON Schema file, relative to the policy file' }),
    Type.Object({}, { additionalProperties: true, description: 'An inline JSON Schema (draft-07)' }),
  ]),
  {
    additionalProperties: false,
    description: 'JSON Schema of the payload per payloadVersion ("1", "2"...), inline or by path',
  },
);
export type SchemasSection = Static<typeof SchemasSectionSchema>;

export class CatalogError extends Error {
  override name = 'CatalogError';
}

/** The retry schedule of a type: its section over the default section's over today's schedule. */
export function resolveRetryPolicy(
  name: string,
  own: RetrySection | undefined,
  base: RetrySection | undefined,
): RetryPolicy {
  const merged = { ...DEFAULT_RETRY_POLICY, ...base, ...own };
  if (merged.maxIntervalMs < merged.initialIntervalMs) {
    throw new CatalogError(
      `task policy ${name}: retry.maxIntervalMs (${merged.maxIntervalMs}) is below retry.initialIntervalMs (${merged.initialIntervalMs})`,
    );
  }
  return merged;
}

/** Outcome of checking a payload against its type's schemas. */
export type SchemaCheck =
  | { ok: true }
  | { ok: false; unknownVersion: true; declared: number[] }
  | { ok: false; unknownVersion: false; problems: FieldProblem[] };

interface CompiledSchema {
  schema: Record<string, unknown>;
  validate: ValidateFunction;
}

/** The compiled payload schemas of one task type, by version. */
export class PayloadSchemas {
  private constructor(private readonly byVersion: ReadonlyMap<number, CompiledSchema>) {}

  /**
   * Loads (paths relative to `baseDir`) and compiles every schema of a type once. A schema that
   * cannot be read or does not compile throws, naming its file or its place in the policy file.
   */
  static compile(taskType: string, section: SchemasSection, baseDir: string, ajv: Ajv): PayloadSchemas {
    const byVersion = new Map<number, CompiledSchema>();
    for (const [key, given] of Object.entries(section)) {
      const where =
        typeof given === 'string'
          ? isAbsolute(given)
            ? given
            : resolvePath(baseDir, given)
          : `taskTypes.${taskType}.schemas.${key}`;
      let schema: Record<string, unknown>;
      if (typeof given === 'string') {
        try {
          schema = JSON.parse(readFileSync(where, 'utf8')) as Record<string, unknown>;
        } catch (err) {
          throw new CatalogError(`cannot read the payload schema ${where}: ${(err as Error).message}`, {
            cause: err,
          });
        }
        if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
          throw new CatalogError(`the payload schema ${where} is not a JSON object`);
        }
      } else {
        schema = given as Record<string, unknown>;
      }
      try {
        byVersion.set(Number(key), { schema, validate: ajv.compile(schema) });
      } catch (err) {
        throw new CatalogError(`the payload schema ${where} does not compile: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    return new PayloadSchemas(byVersion);
  }

  /** Declared versions, ascending. */
  versions(): number[] {
    return [...this.byVersion.keys()].sort((a, b) => a - b);
  }

  /** The schema of a version as declared; undefined when the version is not declared. */
  schema(version: number): Record<string, unknown> | undefined {
    return this.byVersion.get(version)?.schema;
  }

  /** Checks a payload; problems are named from `field` (`payload.orderId`). */
  check(version: number, payload: unknown, field = 'payload'): SchemaCheck {
    const compiled = this.byVersion.get(version);
    if (!compiled) return { ok: false, unknownVersion: true, declared: this.versions() };
    if (compiled.validate(payload)) return { ok: true };
    return { ok: false, unknownVersion: false, problems: toFieldProblems(compiled.validate.errors, field) };
  }
}
