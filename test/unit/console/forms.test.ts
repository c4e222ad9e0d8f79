import { describe, expect, it } from 'vitest';
import { utcTime } from '../../../src/console/forms.js';

describe('utcTime', () => {
  it.each([
    { input: '2026-12-02T10:00', expected: '2026-12-02T10:00:00.000Z' },
    { input: '2026-12-02T10:00:05.5', expected: '2026-12-02T10:00:05.500Z' },
    { input: '0099-01-01T00:00', expected: '0099-01-01T00:00:00.000Z' },
    { input: '0000-01-01T00:00', expected: '0000-01-01T00:00:00.000Z' },
    { input: '0100-01-01T00:00', expected: '0100-01-01T00:00:00.000Z' },
  ])('reads $input as UTC, the year as written', ({ input, expected }) => {
    expect(new Date(utcTime(input)!).toISOString()).toBe(expected);
  });

  it.each(['2026-02-30T00:00', '0100-02-29T00:00', '99-01-01T00:00', '2026-12-02 10:00', ''])(
    'refuses %j',
    (input) => {
      expect(utcTime(input)).toBeUndefined();
    },
  );
});
