/**
 * The messages a task's workflow answers: what the API, the console and the `temporal` CLI send it.
 * Their names are part of the contract with tasks already sleeping: never rename one.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CancelRequest, RescheduleRequest, TaskState } from '../shared/task.js';

/** Stop the task: a scheduled task never calls back, a running one makes no further attempt. */
export const cancelSignal = defineSignal<[CancelRequest?]>('cancel');
/** The task as it is now. */
export const statusQuery = defineQuery<TaskState>('status');
/** Move a SCHEDULED task to another time; the validator rejects any other state without a trace. */
export const rescheduleUpdate = defineUpdate<TaskState, [RescheduleRequest]>('reschedule');
