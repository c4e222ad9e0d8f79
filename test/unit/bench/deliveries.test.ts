/** The benchmark's `lag` scenario: its lag per span of the window, and how the targets table judges it. */
import { describe, expect, it } from 'vitest';
import { lagBySpan } from '../../../bench/deliveries.js';
import type { Arrival } from '../../../bench/receiver-client.js';
import { targets } from '../../../bench/report.js';
import type { ScenarioResult, SystemRow } from '../../../bench/scenarios/scenario.js';
import type { BenchTask } from '../../../bench/systems/system.js';

const START = 1_000_000;

/** A task due `dueS` after START and, unless `lagMs` is undefined, its callback `lagMs` after that. */
function fired(id: string, dueS: number, lagMs: number | undefined): [BenchTask, Arrival[]] {
  const executeAtMs = START + dueS * 1000;
  const task = {
    taskId: id,
    taskType: 'bench.lag',
    executeAtMs,
    callbackUrl: '',
    maxRetries: 3,
    payload: {},
  };
  const arrivals =
    lagMs === undefined
      ? []
      : [{ taskId: id, attempt: 1, dueMs: executeAtMs, arrivedMs: executeAtMs + lagMs, status: 200 }];
  return [task, arrivals];
}

function spansOf(cases: [string, number, number | undefined][], spans: number) {
  const all = cases.map(([id, dueS, lagMs]) => fired(id, dueS, lagMs));
  return lagBySpan(
    all.map(([task]) => task),
    all.flatMap(([, arrivals]) => arrivals),
    { startMs: START, spanMs: 60_000, spans },
  ).map((summary) => summary && { count: summary.count, p99: summary.p99 });
}

describe('lagBySpan', () => {
  it.each([
    {
      what: 'tasks go to the span they are due in',
      tasks: [
        ['a', 2, 10],
        ['b', 59, 20],
        ['c', 61, 30],
        ['d', 119, 40],
      ] as [string, number, number][],
      spans: 2,
      expected: [
        { count: 2, p99: 20 },
        { count: 2, p99: 40 },
      ],
    },
    {
      what: 'a task due after the last span counts in it, one due before the first in the first',
      tasks: [
        ['a', -1, 10],
        ['b', 30, 20],
        ['c', 124, 500],
      ] as [string, number, number][],
      spans: 2,
      expected: [
        { count: 2, p99: 20 },
        { count: 1, p99: 500 },
      ],
    },
    {
      what: 'a span with no task due has no figures',
      tasks: [['a', 2, 10]] as [string, number, number][],
      spans: 2,
      expected: [{ count: 1, p99: 10 }, undefined],
    },
  ])('$what', ({ tasks, spans, expected }) => {
    expect(spansOf(tasks, spans)).toEqual(expected);
  });

  it('a task that never arrived puts its span at an unknown p99', () => {
    expect(
      spansOf(
        [
          ['a', 2, 10],
          ['b', 3, undefined],
          ['c', 70, 15],
        ],
        2,
      ),
    ).toEqual([
      { count: 2, p99: Infinity },
      { count: 1, p99: 15 },
    ]);
  });
});

function lagResult(rows: SystemRow[]): ScenarioResult {
  return { name: 'lag', title: 'lag', params: {}, rows, notes: [], seconds: 1 };
}

const lagRow = (system: SystemRow['system'], p50: number, p99: number, extra = {}): SystemRow => ({
  system,
  lagMs: { count: 2400, p50, p95: p99, p99, max: p99 },
  extra: { 'target /s': 20, ...extra },
});

describe('targets: lag at 20/s', () => {
  it.each([
    { p50: 35, p99: 140, met: true },
    { p50: 40, p99: 150, met: true },
    { p50: 41, p99: 140, met: false },
    { p50: 35, p99: 151, met: false },
    { p50: 35, p99: Infinity, met: false },
  ])('ours-api p50 $p50 ms, p99 $p99 ms: met $met', ({ p50, p99, met }) => {
    const [target] = targets([lagResult([lagRow('ours-api', p50, p99)])]);
    expect(target).toMatchObject({
      goal: expect.stringMatching(/^lag at 20\/s p50 \/ p99 ≤ 40 \/ 150 ms/),
      met,
    });
  });

  it('shows the API ÷ direct ratio of p99 when ours-direct ran', () => {
    const rows = [lagRow('ours-api', 30, 120, { 'p99 ÷ ours-direct': 1.2 }), lagRow('ours-direct', 25, 100)];
    expect(targets([lagResult(rows)])).toEqual([
      expect.objectContaining({
        measured: 'ours-api 30 ms / 120 ms; ours-direct p99 100 ms (2400 tasks)',
        ratio: 1.2,
        met: true,
      }),
    ]);
  });

  it('has no ratio when only ours-api ran (a quick run), and no row at another rate', () => {
    expect(targets([lagResult([lagRow('ours-api', 30, 120)])])[0]?.ratio).toBeNull();
    expect(targets([lagResult([{ ...lagRow('ours-api', 30, 120), extra: { 'target /s': 50 } }])])).toEqual(
      [],
    );
  });
});
