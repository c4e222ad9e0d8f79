/**
 * What a task's history says about the engine work it cost: events, workflow tasks, activity tasks,
 * local callbacks, visibility writes made by the workflow, patch markers.
 */
import type { Client } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';

const { EventType } = proto.temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Marker names the SDK records: one per local activity, one per `patched()` id first met. */
export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
export const PATCH_MARKER = 'core_patch';

export async function historyEvents(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

export interface HistoryCounts {
  events: number;
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
  /** Search attribute and memo upserts: each one a visibility write (besides start and close). */
  upserts: number;
  timers: number;
  patchMarkers: string[];
}

const count = (events: HistoryEvent[], type: number) => events.filter((e) => e.eventType === type).length;

/** Marker events of one name. */
export function markers(events: HistoryEvent[], name: string): HistoryEvent[] {
  return events.filter(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
      e.markerRecordedEventAttributes?.markerName === name,
  );
}

/** The patch ids of a history's patch markers (the SDK writes the id into the marker's details). */
export function patchIds(events: HistoryEvent[]): string[] {
  return markers(events, PATCH_MARKER).map((e) => {
    const texts = Object.values(e.markerRecordedEventAttributes?.details ?? {}).flatMap((payloads) =>
      (payloads.payloads ?? []).map((payload) =>
        Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'),
      ),
    );
    for (const text of texts) {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'string') return value;
      const id = (value as { id?: unknown; patchId?: unknown; patch_id?: unknown } | null) ?? {};
      const found = id.id ?? id.patchId ?? id.patch_id;
      if (typeof found === 'string') return found;
    }
    return `? ${texts.join(' ')}`;
  });
}

export function historyCounts(events: HistoryEvent[]): HistoryCounts {
  return {
    events: events.length,
    workflowTasks: count(events, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
    activityTasks: count(events, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    localActivities: markers(events, LOCAL_ACTIVITY_MARKER).length,
    upserts:
      count(events, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) +
      count(events, EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED),
    timers: count(events, EventType.EVENT_TYPE_TIMER_STARTED),
    patchMarkers: patchIds(events),
  };
}

export { EventType };
