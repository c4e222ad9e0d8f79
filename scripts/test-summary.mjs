// The closing lines of scripts/test.sh, from vitest's JSON report and the SDKs' totals:
//   vitest: N passed, N failed, N skipped, N test files failed
//   tests: N passed, N failed, N skipped          (vitest plus every SDK: the line CI reads)
// A test file that fails to load has no failed test but counts as a failure; a missing report (vitest
// crashed or was killed) is a failure too. Exits 1 on any failure.
// Usage: node scripts/test-summary.mjs <report.json> <vitest exit status> [<sdk totals: "P F S">]
import console from 'node:console';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';

const [reportPath, statusText = '0', sdkTotalsPath] = process.argv.slice(2);
const status = Number(statusText);
if (!reportPath || !existsSync(reportPath)) {
  console.log(`tests: FAILED, no report written (vitest exited ${status})`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// Test files that failed, a file that failed to load included (vitest's numFailedTestSuites also
// counts each describe block around a failed test).
const failedFiles = (report.testResults ?? []).filter((file) => file.status === 'failed').length;
// A file that failed to load contributes no failed test: count it as one, so the total cannot pass.
const failed = report.numFailedTests > 0 ? report.numFailedTests : failedFiles;
const [sdkPassed, sdkFailed, sdkSkipped] =
  sdkTotalsPath && existsSync(sdkTotalsPath)
    ? readFileSync(sdkTotalsPath, 'utf8').trim().split(/\s+/).map(Number)
    : [0, 0, 0];
console.log(
  `vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped, ` +
    `${failedFiles} test files failed`,
);
console.log(
  `tests: ${report.numPassedTests + sdkPassed} passed, ${failed + sdkFailed} failed, ${skipped + sdkSkipped} skipped`,
);
const broken = status !== 0 || failed > 0 || sdkFailed > 0 || report.success === false;
process.exit(broken ? 1 : 0);
