/**
 * Every metric of our own that the API and the worker export is named, with its labels, in
 * docs/operating.md's metrics list: a new metric cannot ship undocumented.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiMetrics } from '../../../src/api/metrics.js';
import { WorkerMetrics } from '../../../src/worker/metrics.js';

const operating = readFileSync(fileURLToPath(new URL('../../../docs/operating.md', import.meta.url)), 'utf8');

/** `name{label,label}` of each `delayed_tasks_*` metric of a registry, as the docs write it. */
async function documentedForms(registry: ApiMetrics['registry']): Promise<string[]> {
  return (await registry.getMetricsAsJSON())
    .filter((metric) => metric.name.startsWith('delayed_tasks_'))
    .map((metric) => {
      const labels = [...new Set(metric.values.flatMap((value) => Object.keys(value.labels)))].filter(
        (label) => label !== 'le',
      );
      return labels.length > 0 ? `${metric.name}{${labels.join(',')}}` : metric.name;
    });
}

describe('docs/operating.md', () => {
  it('names every delayed_tasks_* metric of the API and the worker, with its labels', async () => {
    const api = new ApiMetrics({
      readCounts: async () => ({ byStatus: {}, overdue: 0, oldestOverdueSeconds: 0 }),
      readScheduleTally: async () => ({
        byTaskType: new Map([
          ['t', { schedules: 1, paused: 0, skippedByOverlap: 0, missedCatchupWindow: 0 }],
        ]),
        truncated: false,
      }),
    });
    const worker = new WorkerMetrics();
    // One sample of each labelled series, so that its labels show.
    api.taskCreated('t');
    api.payloadSchemaRejected('t', 1, true);
    api.taskLeased({ taskType: 't', executeAt: new Date().toISOString(), attempt: 1 });
    worker.taskFinished('t', 'SUCCEEDED');
    worker.observer.attempted('t', 'success', 0.1);
    worker.observer.fired('t', 0.1);
    worker.occurrenceStarted('t', 0.1);
    worker.brokerObserver.published('b', 'redis', 'published', 0.1);
    const forms = [...(await documentedForms(api.registry)), ...(await documentedForms(worker.registry))];
    expect(forms).toContain('delayed_tasks_lease_outcomes_total{outcome}');
    expect(forms).toContain('delayed_tasks_lease_lag_seconds{task_type}');
    expect(forms.filter((form) => !operating.includes(`\`${form}\``))).toEqual([]);
  });
});
