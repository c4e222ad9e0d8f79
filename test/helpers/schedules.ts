/**
 * Schedules as a user sees them: the API's answers and the callbacks of their occurrences.
 */
import type { Schedule } from '../../src/contract/schedules.js';
import type { Harness } from './harness.js';
import type { CallbackReceiver, ReceivedCallback } from './receiver.js';
import { uniqueId } from './tasks.js';
import { waitFor } from './wait.js';

export { uniqueId };

/** The callbacks of one schedule's occurrences, in arrival order. */
export function occurrenceCalls(receiver: CallbackReceiver, scheduleId: string): ReceivedCallback[] {
  return receiver.received.filter((call) => call.body.schedule?.scheduleId === scheduleId);
}

/** First attempts only: one per occurrence that called back. */
export function firstCalls(receiver: CallbackReceiver, scheduleId: string): ReceivedCallback[] {
  return occurrenceCalls(receiver, scheduleId).filter((call) => call.body.attempt === 1);
}

export async function waitForOccurrences(
  receiver: CallbackReceiver,
  scheduleId: string,
  count: number,
  timeoutMs = 30_000,
): Promise<ReceivedCallback[]> {
  return waitFor(
    () => {
      const calls = firstCalls(receiver, scheduleId);
      return calls.length >= count && calls;
    },
    { timeoutMs, what: `${count} occurrence(s) of schedule ${scheduleId}` },
  );
}

/** POST /api/v1/schedules; the status and body as answered. */
export async function createSchedule(
  h: Harness,
  body: Record<string, unknown>,
  key?: string,
): Promise<{ status: number; body: Schedule & { error?: { code: string; details?: { field: string }[] } } }> {
  return h.call('POST', '/api/v1/schedules', { payload: body, ...(key ? { key } : {}) });
}

export async function getSchedule(h: Harness, scheduleId: string): Promise<Schedule> {
  const { status, body } = await h.call('GET', `/api/v1/schedules/${scheduleId}`);
  if (status !== 200) throw new Error(`GET schedule ${scheduleId}: ${status} ${JSON.stringify(body)}`);
  return body as Schedule;
}

/** DELETE /api/v1/schedules/{id}; its status (204 has no body to parse). */
export async function deleteSchedule(
  h: Harness,
  scheduleId: string,
  options: { owner?: string; key?: string } = {},
): Promise<number> {
  const response = await h.app.inject({
    method: 'DELETE',
    url: `/api/v1/schedules/${scheduleId}${options.owner ? `?owner=${options.owner}` : ''}`,
    headers: options.key ? { authorization: `Bearer ${options.key}` } : {},
  });
  return response.statusCode;
}

/** Whether Temporal has a schedule of this id (any owner prefix given), asked directly, not through the API. */
export async function temporalHasSchedule(h: Harness, temporalId: string): Promise<boolean> {
  try {
    await h.client.schedule.getHandle(temporalId).describe();
    return true;
  } catch {
    return false;
  }
}

/** The API's `delayed_tasks_schedule_runs_skipped` for a task type and reason, from GET /metrics. */
export async function runsSkippedGauge(
  h: Harness,
  taskType: string,
  reason: 'overlap' | 'catchup_window',
): Promise<number> {
  const response = await h.app.inject({ method: 'GET', url: '/metrics' });
  const series = `delayed_tasks_schedule_runs_skipped{task_type="${taskType}",reason="${reason}"}`;
  const line = response.body.split('\n').find((text) => text.startsWith(`${series} `));
  if (line === undefined) {
    const related = response.body
      .split('\n')
      .filter((text) => /^delayed_tasks_(schedule|count_query)/.test(text));
    throw new Error(`${series} not in /metrics:\n${related.join('\n')}`);
  }
  return Number(line.slice(series.length + 1));
}
