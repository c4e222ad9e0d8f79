/** The polling helper of the tests says why the last check failed when it gives up. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait.js';

describe('waitFor', () => {
  it('reports the error of the check it polls', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('GET /tasks/x answered 503');
        },
        { timeoutMs: 100, intervalMs: 10, what: 'task x' },
      ),
    ).rejects.toThrow(/waiting for task x: Error: GET \/tasks\/x answered 503$/);
  });

  it('reports no stale error once the check ran without one', async () => {
    let calls = 0;
    const probe = () => {
      if (calls++ === 0) throw new Error('first');
      return false;
    };
    await expect(waitFor(probe, { timeoutMs: 100, intervalMs: 10, what: 'y' })).rejects.toThrow(
      /waiting for y$/,
    );
  });
});
