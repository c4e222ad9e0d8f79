/**
 * One delayed task: sleep durably until its time, then call back over HTTP with retries until
 * success, a permanent error, exhausted retries (dead letter) or cancellation. The run's state and
 * the messages that change it are in `task-run.ts`, the attempts in `deliver.ts`.
 *
 * Tasks sleep for days: every shape this workflow ever had must still replay
 * (test/replay/histories.test.ts); change it with a patch (docs/development.md).
 */
import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { TASK_FAILED_TYPE, type TaskSpec, type TaskState } from '../shared/task.js';
import { deliver } from './deliver.js';
import { startsOccurrence } from '../shared/schedule.js';
import { recordOccurrence, taskOfRun } from './occurrence.js';
import { TaskRun } from './task-run.js';

export { cancelSignal, rescheduleUpdate, statusQuery } from './definitions.js';

export async function delayedTask(input: TaskSpec): Promise<TaskState> {
  // A schedule's occurrence takes its own id and due time; any other input is the task as given.
  const spec = taskOfRun(input);
  const run = new TaskRun(spec);
  run.listen();
  if (startsOccurrence(input)) recordOccurrence(spec);
  let result: TaskState;
  try {
    await run.waitUntilDue();
    result = run.cancelRequested ? run.finish('CANCELLED') : await deliver(run);
  } catch (err) {
    if (isCancellation(err)) {
      // `temporal workflow cancel`: record the outcome, then end the run as cancelled.
      await CancellationScope.nonCancellable(async () => run.finish('CANCELLED'));
    }
    throw err;
  }
  if (result.status === 'FAILED') {
    // Dead letter: the run ends Failed, so the Web UI and `ExecutionStatus='Failed'` show it too.
    throw ApplicationFailure.create({
      type: TASK_FAILED_TYPE,
      message: `callback failed after ${result.attempts} attempt(s): ${result.lastError?.message ?? 'unknown error'}`,
      details: [result],
      nonRetryable: true,
    });
  }
  return result;
}
