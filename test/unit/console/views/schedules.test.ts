/** The schedules page's words for a spec, and the forecast's bucketing of run times. Pure. */
import { describe, expect, it } from 'vitest';
import { bucketTimes, ranges } from '../../../../src/console/charts/buckets.js';
import { cronInWords } from '../../../../src/console/views/schedules.js';

describe('cronInWords', () => {
  it.each([
    { input: '* * * * *', expected: 'every minute' },
    { input: '*/5 * * * *', expected: 'every 5 minutes' },
    { input: '7 * * * *', expected: 'every hour at minute 7' },
    { input: '@hourly', expected: 'every hour at minute 0' },
    { input: '0 2 * * *', expected: 'every day at 02:00' },
    { input: '@daily', expected: 'every day at 00:00' },
    { input: '30 9 * * 1', expected: 'every Monday at 09:30' },
    { input: '0 6 15 * *', expected: 'on day 15 of every month at 06:00' },
    { input: '@yearly', expected: 'every 1 January at 00:00' },
    { input: '0 9-17 * * 1-5', expected: 'on cron 0 9-17 * * 1-5' },
  ])('$input: $expected', ({ input, expected }) => {
    expect(cronInWords(input)).toBe(expected);
  });
});

describe('bucketTimes', () => {
  it('counts each time in its half-open range and leaves out times outside every range', () => {
    const spans = ranges(new Date(0), 60_000, 3);
    const buckets = bucketTimes(spans, [-1, 0, 59_999, 60_000, 150_000, 180_000, 999_999]);
    expect(buckets.map((bucket) => bucket.count)).toEqual([2, 1, 1]);
  });
});
