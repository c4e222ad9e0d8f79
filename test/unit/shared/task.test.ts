/** The attempt history keeps the newest attempts, oldest first, and never grows past its limit. */
import { describe, expect, it } from 'vitest';
import { ATTEMPT_HISTORY_LIMIT } from '../../../src/shared/constants.js';
import { recordAttempt, type AttemptRecord } from '../../../src/shared/task.js';

const attemptNo = (attempt: number): AttemptRecord => ({
  attempt,
  startedAt: new Date(attempt * 1000).toISOString(),
  finishedAt: new Date(attempt * 1000 + 500).toISOString(),
  outcome: 'RETRYABLE_ERROR',
  statusCode: 503,
  error: `attempt ${attempt}: HTTP 503`,
});

describe('recordAttempt', () => {
  it.each([
    { recorded: 1, kept: [1] },
    { recorded: ATTEMPT_HISTORY_LIMIT, kept: [1, ATTEMPT_HISTORY_LIMIT] },
    { recorded: ATTEMPT_HISTORY_LIMIT + 1, kept: [2, ATTEMPT_HISTORY_LIMIT + 1] },
    { recorded: 3 * ATTEMPT_HISTORY_LIMIT, kept: [2 * ATTEMPT_HISTORY_LIMIT + 1, 3 * ATTEMPT_HISTORY_LIMIT] },
  ])('after $recorded attempts keeps $kept.0 to the newest', ({ recorded, kept }) => {
    const history: AttemptRecord[] = [];
    for (let n = 1; n <= recorded; n++) recordAttempt(history, attemptNo(n));
    expect(history).toHaveLength(Math.min(recorded, ATTEMPT_HISTORY_LIMIT));
    expect(history[0]?.attempt).toBe(kept[0]);
    expect(history.at(-1)).toEqual(attemptNo(kept.at(-1)!));
  });
});
