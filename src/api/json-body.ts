/**
 * JSON bodies: Fastify's safe parser (rejects __proto__ poisoning), then a walk that rejects numbers
 * other languages cannot carry exactly: non-finite values and integers beyond ±(2^53-1).
 */
import { ApiError, ErrorCode, invalidArgument } from './errors.js';

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
