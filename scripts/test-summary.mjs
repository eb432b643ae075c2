// The closing line of `npm test`, read from vitest's JSON report: one plain line any CI can read,
// whatever the runner printed above it. A test file that never loaded (an import error, ENOENT
// while collecting) runs no test, so counting tests alone hides it: it said "1430 passed,
// 1 failed" once while eleven files had not loaded. Such files are counted, and fail the line.

/** First line of a file-level error, enough to say why without the stack. */
const firstLine = (message) =>
  String(message ?? '')
    .trim()
    .split('\n')[0] ?? '';

/**
 * `report` is vitest's JSON report, or undefined when vitest wrote none (it stopped before
 * running, e.g. a globalSetup failure). Returns the closing line, whether the run failed, and
 * the files that failed outside any test, with their reason.
 */
export function summarize(report) {
  if (!report) return { line: 'Tests: did not run (see the error above)', failed: true, broken: [] };
  const files = report.testResults ?? [];
  // A file marked failed while none of its tests failed: the failure is the file's own.
  const broken = files
    .filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((t) => t.status === 'failed'))
    .map((f) => ({
      file: f.name,
      loaded: (f.assertionResults ?? []).length > 0,
      reason: firstLine(f.message) || 'no reason given',
    }));
  const unloaded = broken.filter((f) => !f.loaded).length;
  const outside = broken.length - unloaded;
  const passed = report.numPassedTests ?? 0;
  const failedTests = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const parts = [`${passed} passed`, `${failedTests} failed`];
  if (unloaded) parts.push(`${plural(unloaded, 'file', 'files')} failed to load`);
  if (outside) parts.push(`${plural(outside, 'file', 'files')} failed outside a test`);
  if (skipped) parts.push(`${skipped} skipped`);
  const failed = failedTests > 0 || broken.length > 0 || report.success === false;
  // vitest can fail a run for a reason no count shows (an unhandled error between tests).
  if (failed && !failedTests && !broken.length) parts.push('run failed (see the errors above)');
  return { line: `Tests: ${parts.join(', ')}`, failed, broken };
}

/**
 * Several runs' JSON reports (the suite on SQLite, then on PostgreSQL) as one, so the closing
 * line counts every test of every run. A run that wrote no report makes the whole one missing:
 * "did not run" must not be hidden behind the other run's counts.
 */
export function mergeReports(reports) {
  if (reports.some((r) => !r)) return undefined;
  const sum = (key) => reports.reduce((n, r) => n + (r[key] ?? 0), 0);
  return {
    testResults: reports.flatMap((r) => r.testResults ?? []),
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numPendingTests: sum('numPendingTests'),
    numTodoTests: sum('numTodoTests'),
    success: reports.every((r) => r.success !== false),
  };
}
