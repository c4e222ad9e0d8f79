/**
 * What this service knows about the Temporal SDK and server that no public API says: a marker name,
 * two error texts and one internal decoder. Kept here alone, for the SDK version pinned below;
 * test/unit/temporal/sdk-knowledge.test.ts fails when the installed SDK is another version (look again at
 * each item, then move the pin), and the integration tests named on each item exercise it.
 */
import type { ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { LoadedDataConverter, Priority, Workflow } from '@temporalio/common';
import {
  decodeFromPayloadsAtIndex,
  encodeErrorToFailure,
  encodeToPayloads,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { temporal } from '@temporalio/proto';

/** The `@temporalio/*` version every item below was checked against. */
export const PINNED_SDK_VERSION = '1.24.0';

/**
 * Name of the marker the SDK records for each local activity (a callback attempt of workflow shape
 * v2). Exercised by test/integration/reschedule.test.ts ("RUNNING (callback in flight)": reads while an attempt holds the workflow task).
 */
export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * The server's answer to a query of a workflow whose start delay is not over (no workflow task yet):
 * FAILED_PRECONDITION with this text. Exercised by test/integration/legacy-start-delay.test.ts.
 */
export const NOT_STARTED_YET = /workflow task is not scheduled yet/i;

/** How a connection failure reads when the SDK does not wrap it as a gRPC error. */
export const CONNECT_FAILURE = /failed to connect|deadline/i;

/**
 * The first argument of a workflow's start event, decoded through the client's converter and codecs
 * (the SDK does this only inside its own calls; its helper is internal).
 */
export async function decodeStartArgument<T>(
  converter: LoadedDataConverter,
  payloads: temporal.api.common.v1.IPayload[],
): Promise<T> {
  return decodeFromPayloadsAtIndex<T>(converter, 0, payloads);
}

/**
 * A schedule's start-workflow action with the workflow's priority. The SDK's type leaves `priority`
 * out of what a schedule's action takes, yet its encoder sends it and `describe()` reads it back
 * (`ScheduleDescriptionStartWorkflowAction` has it): each occurrence then starts with it, as a
 * one-shot task does. Exercised by test/integration/schedules.test.ts ("starts each occurrence with
 * the task's priority").
 */
export type ScheduleActionWithPriority = ScheduleOptionsStartWorkflowAction<Workflow> & {
  priority?: Priority;
};

/**
 * Payloads and failures of a raw activity-task call (the pull lease route answers activity tasks that
 * no SDK worker runs), through the client's converter and codecs as a worker would encode them. The
 * SDK's helpers are internal. Exercised by test/integration/pull-lease.test.ts (an encrypted stack).
 */
export function encodeActivityPayloads(
  converter: LoadedDataConverter,
  ...values: unknown[]
): Promise<temporal.api.common.v1.IPayload[] | undefined> {
  return encodeToPayloads(converter, ...values);
}

export function encodeActivityFailure(
  converter: LoadedDataConverter,
  error: Error,
): Promise<temporal.api.failure.v1.IFailure> {
  return encodeErrorToFailure(converter, error);
}
