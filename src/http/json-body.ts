/**
 * JSON as the API accepts it, for request bodies and for the console's replay form alike: nesting
 * bounded before parsing, a parser that refuses prototype poisoning (`__proto__`,
 * `constructor.prototype`: the parser Fastify itself uses), then a walk that refuses numbers other
 * languages cannot carry exactly: non-finite values (`1e400`) and integers beyond ±(2^53-1).
 */
import sjson from 'secure-json-parse';
import { ApiError, ErrorCode, invalidArgument } from '../errors/catalog.js';

export interface ParseJsonOptions {
  /** Where the text sits, for error details: `body`, or a form field such as `payload`. */
  field: string;
  /** Deepest nesting of arrays and objects accepted. */
  maxDepth: number;
  /** Check the numbers too (a batch checks its items one by one instead). @defaultValue true */
  checkNumbers?: boolean;
}

/** Parses JSON text as the API accepts it, or throws INVALID_ARGUMENT naming `field`. */
export function parseJsonText(text: string, options: ParseJsonOptions): unknown {
  const { field, maxDepth } = options;
  const depth = jsonDepth(text);
  if (depth > maxDepth) throw invalidArgument(field, `is nested ${depth} levels deep; at most ${maxDepth}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw field === 'body' ? malformedJson() : invalidArgument(field, 'is not valid JSON');
  }
  try {
    // Valid JSON by now: the scan throws only for a prototype-poisoning key (no message text read).
    if (parsed !== null && typeof parsed === 'object') {
      sjson.scan(parsed as Record<string, unknown>, { protoAction: 'error', constructorAction: 'error' });
    }
  } catch {
    throw invalidArgument(field, 'has a __proto__ or constructor.prototype key, which is refused');
  }
  if (options.checkNumbers !== false) checkNumbers(parsed, field === 'body' ? [] : [field]);
  return parsed;
}

/** Throws INVALID_ARGUMENT at the first number that will not survive a trip through other languages. */
export function checkNumbers(value: unknown, path: string[] = []): void {
  if (typeof value === 'number') {
    const field = path.join('.') || 'body';
    if (!Number.isFinite(value)) throw invalidArgument(field, 'is not a finite number');
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw invalidArgument(field, 'is an integer beyond ±(2^53-1); send large ids and amounts as strings');
    }
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) checkNumbers(child, [...path, key]);
  }
}

export function malformedJson(): ApiError {
  return new ApiError(ErrorCode.InvalidArgument, 'body is not valid JSON', [
    { field: 'body', reason: 'is not valid JSON' },
  ]);
}

/**
 * The deepest nesting of arrays and objects in JSON text, read without parsing or recursion (a
 * string's brackets do not count). Checked before anything walks a body: a body nested thousands of
 * levels deep fits under the size limit and would overflow a recursive walk.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Levels of a request around its payload: a batch `{"tasks": [{"payload": ...}]}` has three. */
export const BODY_LEVELS_ABOVE_PAYLOAD = 3;

/**
 * A route's `preValidation` hook for a body whose every field is optional: a request without one is
 * validated, and handled, as `{}`.
 */
export async function absentBodyAsEmpty(request: { body: unknown }): Promise<void> {
  if (request.body === undefined) request.body = {};
}
