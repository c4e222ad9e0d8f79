/**
 * The API's task gauges when Temporal cannot answer the count queries, and the bounded task-type label.
 */
import { apiConnection } from '../../../src/temporal/connection.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiMetrics, taskCountsReader } from '../../../src/api/metrics.js';
import { TaskService } from '../../../src/tasks/service.js';
import { loadConfig } from '../../../src/config/environment.js';
import { Policies } from '../../../src/task-types/policies.js';

const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_RPC_TIMEOUT_MS: '300' });
const connection = apiConnection(config.temporal);
afterAll(async () => {
  await connection.close().catch(() => undefined);
});

async function sample(metrics: ApiMetrics, name: string, labels = ''): Promise<string | undefined> {
  const text = await metrics.registry.metrics();
  return new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1];
}

describe('task gauges', () => {
  it('say NaN, not 0, and count the failure when Temporal does not answer the count queries', async () => {
    const tasks = new TaskService({ connection, config, policies: new Policies() });
    const metrics = new ApiMetrics({ readCounts: taskCountsReader(tasks.visibility, 60_000), cacheMs: 0 });
    // prom-client writes `Nan`, which Prometheus reads as NaN (case-insensitive).
    for (const [name, labels] of [
      ['delayed_tasks_current', '{status="SCHEDULED"}'],
      ['delayed_tasks_overdue', ''],
      ['delayed_tasks_oldest_overdue_seconds', ''],
    ] as const) {
      expect(await sample(metrics, name, labels), name).toMatch(/^nan$/i);
    }
    expect(Number(await sample(metrics, 'delayed_tasks_count_query_failures_total'))).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('show what the counts say when they are read', async () => {
    const counts = { SCHEDULED: 4, RUNNING: 1, FAILED: 2 };
    const reader = taskCountsReader(
      {
        countByStatus: async () => counts,
        countOverdue: async (before) => (before <= 1_000_000 - 90_000 ? 0 : 3),
      },
      3_600_000,
      () => 1_000_000,
    );
    const metrics = new ApiMetrics({ readCounts: reader, cacheMs: 0 });
    expect(await sample(metrics, 'delayed_tasks_current', '{status="FAILED"}')).toBe('2');
    expect(await sample(metrics, 'delayed_tasks_overdue')).toBe('3');
    // Due 90 s ago at the oldest; bisection stops within 5 %.
    expect(Number(await sample(metrics, 'delayed_tasks_oldest_overdue_seconds'))).toBeGreaterThanOrEqual(85);
    expect(Number(await sample(metrics, 'delayed_tasks_oldest_overdue_seconds'))).toBeLessThanOrEqual(90);
    expect(await sample(metrics, 'delayed_tasks_count_query_failures_total')).toBe('0');
  });
});

describe('schedule gauges', () => {
  const noCounts = async () => ({ byStatus: {}, oldestOverdueSeconds: 0 });
  const tally = (skipped: number) => ({
    truncated: false,
    byTaskType: new Map([
      ['report.daily', { schedules: 3, paused: 1, skippedByOverlap: skipped, missedCatchupWindow: 4 }],
    ]),
  });

  it("sum Temporal's run counts by task type and reason, and read them at most once per cache period", async () => {
    let reads = 0;
    const metrics = new ApiMetrics({
      readCounts: noCounts,
      readScheduleTally: async () => tally(++reads),
      scheduleCacheMs: 60_000,
    });
    const skipped = '{task_type="report.daily",reason="overlap"}';
    expect(await sample(metrics, 'delayed_tasks_schedule_runs_skipped', skipped)).toBe('1');
    expect(
      await sample(
        metrics,
        'delayed_tasks_schedule_runs_skipped',
        '{task_type="report.daily",reason="catchup_window"}',
      ),
    ).toBe('4');
    expect(await sample(metrics, 'delayed_tasks_schedules', '{task_type="report.daily",paused="true"}')).toBe(
      '1',
    );
    expect(
      await sample(metrics, 'delayed_tasks_schedules', '{task_type="report.daily",paused="false"}'),
    ).toBe('2');
    expect(await sample(metrics, 'delayed_tasks_schedules_truncated')).toBe('0');
    expect(await sample(metrics, 'delayed_tasks_schedule_runs_skipped', skipped)).toBe('1');
    expect(reads).toBe(1);
  });

  it('have no series, and count the failure, when the schedules cannot be read', async () => {
    const metrics = new ApiMetrics({
      readCounts: noCounts,
      readScheduleTally: () => Promise.reject(new Error('Temporal is down')),
    });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^delayed_tasks_schedule_runs_skipped\{/m);
    expect(await sample(metrics, 'delayed_tasks_schedules_truncated')).toMatch(/^nan$/i);
    // The failure is counted as the gauges collect, after the counter was written: the next scrape shows it.
    expect(Number(await sample(metrics, 'delayed_tasks_count_query_failures_total'))).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('are absent when the API has no schedule reader', async () => {
    const text = await new ApiMetrics({ readCounts: noCounts }).registry.metrics();
    expect(text).not.toContain('delayed_tasks_schedule');
  });
});

describe('task_type label', () => {
  it('folds task types past the 200th into other', async () => {
    const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
    for (let i = 0; i < 205; i++) metrics.taskCreated(`type.${i}`);
    metrics.taskCreated('type.0');
    expect(await sample(metrics, 'delayed_tasks_created_total', '{task_type="type.0"}')).toBe('2');
    expect(await sample(metrics, 'delayed_tasks_created_total', '{task_type="type.199"}')).toBe('1');
    expect(await sample(metrics, 'delayed_tasks_created_total', '{task_type="type.200"}')).toBeUndefined();
    expect(await sample(metrics, 'delayed_tasks_created_total', '{task_type="other"}')).toBe('5');
  });
});
