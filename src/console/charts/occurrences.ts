/**
 * The upcoming occurrences of schedules, for the due-time forecast: each schedule's next run times
 * as Temporal's describe lists them (its next 10: an every-minute schedule shows 10 of its 60 in the
 * next hour), never recomputed from the spec. Paused schedules fire nothing and are left out; a key
 * limited to task types counts only its types' schedules, as the schedule list shows it.
 */
import { ownerAccess } from '../../auth/principal.js';
import type { ScheduleSummary } from '../../contract/schedules.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import type { ScheduleService } from '../../schedules/service.js';
import type { TaskFilter } from '../../tasks/visibility.js';

/** At most this many schedules are described for one forecast; the chart says when there were more. */
export const FORECAST_MAX_SCHEDULES = 200;
const PAGE_SIZE = 100;
const CONCURRENCY = 8;

export interface Upcoming {
  /** The next run times (ms since the epoch) of every schedule counted. */
  times: number[];
  /** How many schedules were counted. */
  schedules: number;
  /** More schedules matched than FORECAST_MAX_SCHEDULES. */
  truncated: boolean;
}

export async function upcomingOccurrences(schedules: ScheduleService, filter: TaskFilter): Promise<Upcoming> {
  const matched: ScheduleSummary[] = [];
  let pageToken: string | undefined;
  let truncated = false;
  do {
    const page = await schedules.list(
      { owner: filter.owner, allowedTaskTypes: filter.taskTypes, allowedCallbackHosts: undefined },
      {
        paused: false,
        pageSize: PAGE_SIZE,
        ...(filter.taskType && { taskType: filter.taskType }),
        ...(pageToken && { pageToken }),
      },
    );
    matched.push(...page.schedules);
    pageToken = page.nextPageToken ?? undefined;
    if (matched.length > FORECAST_MAX_SCHEDULES) {
      truncated = true;
      matched.length = FORECAST_MAX_SCHEDULES;
      break;
    }
  } while (pageToken);
  const times: number[] = [];
  for (let i = 0; i < matched.length; i += CONCURRENCY) {
    const described = await Promise.all(
      matched.slice(i, i + CONCURRENCY).map((summary) => nextRunTimes(schedules, summary)),
    );
    for (const list of described) times.push(...list);
  }
  return { times, schedules: matched.length, truncated };
}

async function nextRunTimes(schedules: ScheduleService, summary: ScheduleSummary): Promise<number[]> {
  try {
    const schedule = await schedules.get(ownerAccess(summary.owner), summary.scheduleId);
    return schedule.paused ? [] : schedule.nextRunTimes.map((time) => Date.parse(time));
  } catch (err) {
    // Deleted since the list: nothing to count.
    if (err instanceof ApiError && err.code === ErrorCode.ScheduleNotFound) return [];
    throw err;
  }
}
