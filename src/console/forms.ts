/** What the console's forms send, read into what the task domain takes. Pure. */
import type { ReplayBody } from '../contract/tasks.js';
import { ApiError } from '../errors/catalog.js';
import { parseJsonText } from '../http/json-body.js';
import { parseRfc3339 } from '../tasks/input.js';
import type { FieldProblem } from '../validation/json-schema.js';
import type { ReplayForm } from './views/actions.js';

/** A `datetime-local` value read as UTC (the pages say so); undefined when it is not one. */
export function utcTime(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  // The API's parser: the year as written (0099 is not 1999) and no 2026-02-30.
  return parseRfc3339(`${value.length === 16 ? `${value}:00` : value}Z`);
}

/** The replay form as a ReplayBody, or the problems of each field; the API's own rules follow. */
export function parseReplayForm(
  form: ReplayForm,
  maxPayloadDepth: number,
): { body: ReplayBody; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const body: Record<string, unknown> = {};
  if (form.reason.trim() === '') problems.push({ field: 'reason', reason: 'is required' });
  try {
    // The API's own JSON checks: no __proto__, no 1e400 turned into null, no integer rounded.
    const payload = parseJsonText(form.payload, { field: 'payload', maxDepth: maxPayloadDepth });
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      problems.push({ field: 'payload', reason: 'must be a JSON object' });
    } else body.payload = payload;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    problems.push(...(err.details ?? [{ field: 'payload', reason: err.message }]));
  }
  for (const field of ['payloadVersion', 'maxRetries'] as const) {
    const text = form[field].trim();
    if (text === '') continue;
    if (!/^-?\d+$/.test(text)) problems.push({ field, reason: 'must be an integer' });
    else body[field] = Number(text);
  }
  return { body: body as ReplayBody, problems };
}
