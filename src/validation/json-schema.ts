/**
 * JSON Schema validation shared by the API and the policy file: one Ajv setup, one error format.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface FieldProblem {
  /** Dotted path of the offending field (`payload.items.0`), or `body` for the whole document. */
  field: string;
  reason: string;
}

/** Strict by default: no coercion, no removal of unknown properties, every error reported. */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

/** Ajv errors as field problems a caller can act on; one entry per field. */
export function toFieldProblems(
  errors: readonly ErrorObject[] | null | undefined,
  root = '',
): FieldProblem[] {
  const problems = new Map<string, string>();
  for (const error of errors ?? []) {
    let path = error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    let reason = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      path = [...path, String(error.params.additionalProperty)];
      reason = 'is not a known field';
    } else if (error.keyword === 'required') {
      path = [...path, String(error.params.missingProperty)];
      reason = 'is required';
    } else if (error.keyword === 'pattern') {
      reason = `must match ${String(error.params.pattern)}`;
    }
    const field = [root, ...path].filter(Boolean).join('.') || 'body';
    if (!problems.has(field)) problems.set(field, reason);
  }
  return [...problems].map(([field, reason]) => ({ field, reason }));
}
