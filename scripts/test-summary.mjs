// The closing line of scripts/test.sh, from vitest's JSON report: `tests: N passed, N failed, N
// skipped, N test files failed`. A suite that fails to load has no failed test but counts as failed; a
// missing report (vitest crashed or was killed) is a failure too. Exits 1 on any failure.
// Usage: node scripts/test-summary.mjs <report.json> <vitest exit status>
import console from 'node:console';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';

const [reportPath, statusText = '0'] = process.argv.slice(2);
const status = Number(statusText);
if (!reportPath || !existsSync(reportPath)) {
  console.log(`tests: FAILED, no report written (vitest exited ${status})`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// Test files that failed, a file that failed to load included (vitest's numFailedTestSuites also
// counts each describe block around a failed test).
const failedSuites = (report.testResults ?? []).filter((file) => file.status === 'failed').length;
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped, ` +
    `${failedSuites} test files failed`,
);
const failed = status !== 0 || report.numFailedTests > 0 || failedSuites > 0 || report.success === false;
process.exit(failed ? 1 : 0);
