/**
 * The engine's floor (`temporal-floor`): the smallest workflow that does what a task does. It sleeps
 * until the due time and runs one local activity that POSTs the callback. No search attributes, no
 * memo, no signal, query or update handlers, no payload codec, the SDK's default retry of a local
 * activity. What ours costs above it is our overhead over Temporal itself.
 */
import { proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { FloorActivities, FloorTask } from './floor-activities.js';

const { post } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '35s' });

export async function floorTask(task: FloorTask): Promise<void> {
  await sleep(Math.max(1, Date.parse(task.executeAt) - Date.now()));
  await post(task);
}
