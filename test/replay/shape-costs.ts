/**
 * Engine work per task of each recorded workflow shape, read from the recorded histories (load
 * independent): history events, workflow tasks, activity tasks, local activities (markers), timers
 * and the workflow's own visibility writes (search attribute and memo upserts; start and close are
 * one write each in every shape). Prints a markdown table, one row per scenario and shape.
 *
 *   npx tsx test/replay/shape-costs.ts
 */
import { historyFiles, loadFixture, recordedShapes } from './fixtures.js';

interface JsonEvent {
  eventType: string;
  markerRecordedEventAttributes?: { markerName?: string };
}

function costs(events: JsonEvent[]) {
  const count = (type: string) => events.filter((e) => e.eventType === `EVENT_TYPE_${type}`).length;
  const markers = (name: string) =>
    events.filter((e) => e.markerRecordedEventAttributes?.markerName === name).length;
  return {
    events: events.length,
    workflowTasks: count('WORKFLOW_TASK_COMPLETED'),
    activityTasks: count('ACTIVITY_TASK_SCHEDULED'),
    localActivities: markers('core_local_activity'),
    timers: count('TIMER_STARTED'),
    upserts: count('UPSERT_WORKFLOW_SEARCH_ATTRIBUTES') + count('WORKFLOW_PROPERTIES_MODIFIED'),
  };
}

const shapes = recordedShapes();
const scenarios = [...new Set(shapes.flatMap((shape) => historyFiles(shape)))].sort();
console.log(
  '| scenario | shape | events | workflow tasks | activity tasks | local activities | timers | upserts |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const scenario of scenarios) {
  for (const shape of shapes) {
    if (!historyFiles(shape).includes(scenario)) continue;
    const c = costs(loadFixture(shape, scenario).history.events as JsonEvent[]);
    console.log(
      `| ${scenario} | ${shape} | ${c.events} | ${c.workflowTasks} | ${c.activityTasks} | ${c.localActivities} | ${c.timers} | ${c.upserts} |`,
    );
  }
}
