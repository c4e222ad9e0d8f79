/**
 * The console's charts: buckets counted with few queries (a sparse backlog costs little, a budget
 * bounds a dense one), and SVG whose numbers match what was counted, escaped, with a table fallback.
 */
import { describe, expect, it } from 'vitest';
import {
  countBuckets,
  CountBudgetExceeded,
  forecastRanges,
  lastHours,
  ranges,
  type CountRange,
} from '../../../../src/console/charts/buckets.js';
import { niceMax, renderBarChart } from '../../../../src/console/charts/svg.js';

const T0 = new Date('2026-12-04T10:00:00Z');

/** A count over due times in `dues`, recording each query. */
function counter(dues: Date[]): { count: CountRange; asked: number } {
  const state = {
    asked: 0,
    count: async (start: Date, end: Date) => {
      state.asked++;
      return dues.filter((d) => d >= start && d < end).length;
    },
  };
  return state;
}

describe('countBuckets', () => {
  const spans = ranges(T0, 60_000, 60);
  const table: { name: string; dues: Date[]; maxQueries: number }[] = [
    { name: 'empty backlog: one query', dues: [], maxQueries: 1 },
    {
      name: 'one task: a path down the halves',
      dues: [new Date(T0.getTime() + 17 * 60_000 + 5)],
      maxQueries: 8,
    },
    {
      name: 'a task in every minute: about twice the buckets',
      dues: spans.map((s) => new Date(s.start.getTime() + 1)),
      maxQueries: 2 * 60,
    },
  ];
  for (const { name, dues, maxQueries } of table) {
    it(name, async () => {
      const c = counter(dues);
      const { buckets, queries } = await countBuckets(spans, c.count, 500);
      expect(queries).toBe(c.asked);
      expect(queries).toBeLessThanOrEqual(maxQueries);
      expect(buckets.map((b) => b.count)).toEqual(
        spans.map((s) => dues.filter((d) => d >= s.start && d < s.end).length),
      );
    });
  }

  it('stops at its budget', async () => {
    const c = counter(spans.map((s) => s.start));
    await expect(countBuckets(spans, c.count, 10)).rejects.toBeInstanceOf(CountBudgetExceeded);
    expect(c.asked).toBe(10);
  });
});

describe('time ranges', () => {
  it('forecasts the next hour by minute and the next day by hour, from whole minutes and hours', () => {
    const { byMinute, byHour } = forecastRanges(new Date('2026-12-04T10:17:42Z'));
    expect(byMinute).toHaveLength(60);
    expect(byMinute[0]!.start.toISOString()).toBe('2026-12-04T10:17:00.000Z');
    expect(byHour).toHaveLength(24);
    expect(byHour[23]!.end.toISOString()).toBe('2026-12-05T10:00:00.000Z');
  });

  it('looks back over the last 24 hours including the current one', () => {
    const hours = lastHours(new Date('2026-12-04T10:17:42Z'));
    expect(hours[0]!.start.toISOString()).toBe('2026-12-03T11:00:00.000Z');
    expect(hours[23]!.end.toISOString()).toBe('2026-12-04T11:00:00.000Z');
  });
});

describe('renderBarChart', () => {
  const chart = renderBarChart({
    id: 'outcomes',
    title: 'Outcomes <per hour>',
    description: 'SUCCEEDED, FAILED and CANCELLED by close time',
    series: ['SUCCEEDED', 'FAILED'],
    bars: [
      {
        label: '10:00',
        title: '10:00–11:00',
        segments: [
          { series: 'SUCCEEDED', value: 7 },
          { series: 'FAILED', value: 3 },
        ],
        href: '/console/tasks?a=1&b=2',
      },
      { label: '11:00', title: '11:00–12:00', segments: [] },
    ],
    line: { name: 'failure rate', values: [0.3, null] },
  }).text;

  it('carries the counts in the SVG and in the table', () => {
    expect(chart).toContain('data-total="10"');
    expect(chart).toContain('data-total="0"');
    expect(chart).toContain('<title>10:00–11:00: 7 SUCCEEDED, 3 FAILED</title>');
    expect(chart).toContain('<td>30.0%</td>');
    expect(chart).toMatch(/<table data-chart-table="outcomes">/);
  });

  it('escapes text and links, and uses no inline style or script', () => {
    expect(chart).toContain('Outcomes &lt;per hour&gt;');
    expect(chart).toContain('href="/console/tasks?a=1&amp;b=2"');
    expect(chart).not.toMatch(/style=|<script|on[a-z]+=/i);
  });

  it('scales to a round maximum', () => {
    expect([0, 1, 3, 7, 10, 11, 240].map(niceMax)).toEqual([1, 1, 5, 10, 10, 20, 500]);
  });
});
