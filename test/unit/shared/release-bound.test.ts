/**
 * The bound on a pull task's releases (docs/workers.md, "Releases are bounded"): what the n-th
 * release of one attempt does. The integration test (test/integration/pull-lease.test.ts) sees the
 * first waits on the dev server; the limit is six minutes of waits away, so it is checked here.
 */
import { describe, expect, it } from 'vitest';
import { RELEASE_BOUND, releaseOutcome } from '../../../src/shared/constants.js';

describe('releaseOutcome', () => {
  it.each([
    { release: 1, expected: 0 },
    { release: 3, expected: 0 },
    { release: 4, expected: 1_000 },
    { release: 5, expected: 2_000 },
    { release: 9, expected: 32_000 },
    { release: 10, expected: 60_000 },
    { release: 14, expected: 60_000 },
    { release: 15, expected: 'spend-attempt' },
    { release: 16, expected: 'spend-attempt' },
  ])('release $release of an attempt: $expected', ({ release, expected }) => {
    expect(releaseOutcome(release)).toBe(expected);
  });

  it('lets an attempt be released for longer than an SDK store claim (5 minutes) before it is spent', () => {
    let waited = 0;
    for (let release = 1; release < RELEASE_BOUND.limit; release++) {
      const outcome = releaseOutcome(release);
      if (outcome !== 'spend-attempt') waited += outcome;
    }
    expect(waited).toBeGreaterThan(5 * 60_000);
    // At most this many releases per attempt, 6 history events each plus a timer's: with the most
    // retries a task may have (50), far below the 51,200 events at which Temporal ends a run.
    expect(RELEASE_BOUND.limit * 51 * 9).toBeLessThan(51_200 / 4);
  });
});
