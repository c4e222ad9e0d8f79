/**
 * scripts/test.sh's closing line, which CI reads: it must say FAILED whenever the run failed, also
 * when no test failed but a suite could not load, and when vitest wrote no report at all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'test-summary-'));

function summary(report: object | undefined, status: number): { code: number | null; line: string } {
  const path = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  if (report) writeFileSync(path, JSON.stringify(report));
  const run = spawnSync(process.execPath, ['scripts/test-summary.mjs', path, String(status)], {
    cwd: root,
    encoding: 'utf8',
  });
  // The last line is the one CI reads.
  return { code: run.status, line: run.stdout.trim().split('\n').at(-1) ?? '' };
}

const passing = {
  success: true,
  numPassedTests: 12,
  numFailedTests: 0,
  numPendingTests: 1,
  numTodoTests: 0,
  numFailedTestSuites: 0,
  testResults: [{ status: 'passed' }, { status: 'passed' }],
};

describe('closing line of scripts/test.sh', () => {
  it.each([
    {
      name: 'all passed',
      report: passing,
      status: 0,
      code: 0,
      line: 'tests: 12 passed, 0 failed, 1 skipped',
    },
    {
      name: 'a failed test',
      report: {
        ...passing,
        success: false,
        numFailedTests: 2,
        numFailedTestSuites: 2,
        testResults: [{ status: 'failed' }],
      },
      status: 1,
      code: 1,
      line: 'tests: 12 passed, 2 failed, 1 skipped',
    },
    {
      name: 'a suite that failed to load, no failed test',
      report: {
        ...passing,
        success: false,
        numFailedTestSuites: 1,
        testResults: [{ status: 'failed' }, { status: 'passed' }],
      },
      status: 1,
      code: 1,
      line: 'tests: 12 passed, 1 failed, 1 skipped',
    },
    {
      name: 'no report written',
      report: undefined,
      status: 137,
      code: 1,
      line: 'tests: FAILED, no report written (vitest exited 137)',
    },
  ])('$name', ({ report, status, code, line }) => {
    expect(summary(report, status)).toEqual({ code, line });
  });

  it('deletes the previous report before vitest runs, and fails when the summary does', () => {
    const script = readFileSync(new URL('scripts/test.sh', root), 'utf8');
    const removed = script.indexOf('rm -f "$report"');
    const vitest = script.indexOf('npx vitest run');
    expect(removed).toBeGreaterThan(-1);
    expect(removed).toBeLessThan(vitest);
    expect(script).toMatch(
      /node scripts\/test-summary\.mjs "\$report" "\$status" "\$sdk_totals" \|\| status=/,
    );
  });
});
