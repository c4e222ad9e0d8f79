/** The benchmark's delivery variants: pull's create request, their ratios to the callback path, the herd plan by size. */
import { describe, expect, it } from 'vitest';
import { herdPlan, PLANS } from '../../../bench/plan.js';
import { addCallbackRatios, ratioColumns } from '../../../bench/ratio.js';
import type { SystemRow } from '../../../bench/scenarios/scenario.js';
import { pullRequest } from '../../../bench/systems/ours-pull.js';

const lag = (p50: number, p99: number) => ({ count: 100, p50, p95: p99, p99, max: p99 });

describe('pullRequest', () => {
  it('asks for pull delivery instead of a callback URL', () => {
    const request = pullRequest({
      taskId: 't-1',
      taskType: 'bench.lag',
      executeAtMs: Date.UTC(2026, 11, 5, 4, 0, 0),
      callbackUrl: 'http://127.0.0.1:1/run',
      maxRetries: 3,
      payload: { i: 1 },
    });
    expect(request).not.toHaveProperty('callbackUrl');
    expect(request).toMatchObject({
      taskId: 't-1',
      executeAt: '2026-12-05T04:00:00.000Z',
      delivery: { mode: 'pull', queue: 'bench-pull', leaseSeconds: 60 },
    });
  });
});

describe('ratioColumns', () => {
  const api: SystemRow = { system: 'ours-api', lagMs: lag(40, 150), cpuMsPerTask: { api: 2, worker: 8 } };

  it('divides p50, p99 and the CPU of all processes by the base row', () => {
    const pull: SystemRow = { system: 'ours-pull', lagMs: lag(60, 150), cpuMsPerTask: { api: 6, worker: 9 } };
    expect(ratioColumns(pull, api)).toEqual({
      'p50 ÷ ours-api': 1.5,
      'p99 ÷ ours-api': 1,
      'CPU/task ÷ ours-api': 1.5,
    });
  });

  it('is null where a figure is missing, not finite, or the base is 0', () => {
    const pull: SystemRow = { system: 'ours-pull', lagMs: lag(60, Infinity) };
    const zero: SystemRow = { system: 'ours-api', lagMs: lag(0, 150), cpuMsPerTask: { api: 1 } };
    expect(ratioColumns(pull, zero)).toEqual({
      'p50 ÷ ours-api': null,
      'p99 ÷ ours-api': null,
      'CPU/task ÷ ours-api': null,
    });
  });

  it("leaves a broker's own server out of the CPU ratio (it is in the row's CPU column)", () => {
    const kafka: SystemRow = {
      system: 'ours-kafka',
      lagMs: lag(40, 150),
      cpuMsPerTask: { api: 2, worker: 7, kafka: 30 },
    };
    expect(ratioColumns(kafka, api)['CPU/task ÷ ours-api']).toBe(0.9);
  });

  it('is added to each delivery variant only when both rows were measured', () => {
    const rows: SystemRow[] = [
      api,
      { system: 'ours-pull', lagMs: lag(80, 300), extra: { tasks: 5 } },
      { system: 'ours-redis', lagMs: lag(20, 75) },
      { system: 'bullmq', lagMs: lag(20, 75) },
    ];
    addCallbackRatios(rows);
    expect(rows[1]!.extra).toMatchObject({ tasks: 5, 'p50 ÷ ours-api': 2, 'p99 ÷ ours-api': 2 });
    expect(rows[2]!.extra).toMatchObject({ 'p50 ÷ ours-api': 0.5, 'p99 ÷ ours-api': 0.5 });
    expect(rows[0]!.extra).toBeUndefined();
    expect(rows[3]!.extra).toBeUndefined();
    const skipped: SystemRow[] = [
      { system: 'ours-api', notApplicable: 'not measured' },
      { system: 'ours-pull' },
    ];
    addCallbackRatios(skipped);
    expect(skipped[1]!.extra).toBeUndefined();
  });
});

describe('herdPlan', () => {
  it('keeps the full lead and scales the wait from 5,000 tasks, at least 30 s', () => {
    expect(herdPlan(PLANS.quick.herd, 1000)).toEqual({ tasks: 1000, maxLeadS: 40, waitS: 30 });
    expect(herdPlan(PLANS.quick.herd, 5000)).toEqual({ tasks: 5000, maxLeadS: 40, waitS: 150 });
  });
});
