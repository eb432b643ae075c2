import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeReports, summarize } from '../test-summary.mjs';

// Real vitest JSON reports (paths shortened to /repo/): a run over four files where one test
// passes, one is skipped, one fails, one file has an import error and one hits ENOENT while
// collecting; and a run where the only failure is a file that never loaded.
const report = (name) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8'));

describe('the closing line of npm test', () => {
  it('counts files that failed to load, and names each with its reason', () => {
    const { line, failed, broken } = summarize(report('vitest-report-unloaded-files.json'));
    expect(line).toBe('Tests: 1 passed, 1 failed, 2 files failed to load, 1 skipped');
    expect(failed).toBe(true);
    expect(broken).toEqual([
      {
        file: '/repo/t/badimport.test.ts',
        loaded: false,
        reason: "Cannot find module './missing-module.js' imported from /repo/t/badimport.test.ts",
      },
      {
        file: '/repo/t/broken.test.ts',
        loaded: false,
        reason: "ENOENT: no such file or directory, open '/nonexistent/platform-specs/openapi.json'",
      },
    ]);
  });

  it('fails the line when the only failure is a file that never loaded (no test failed)', () => {
    const { line, failed } = summarize(report('vitest-report-only-load-failure.json'));
    expect(line).toBe('Tests: 1 passed, 0 failed, 1 file failed to load, 1 skipped');
    expect(failed).toBe(true);
  });

  it('says the tests did not run when vitest wrote no report', () => {
    expect(summarize(undefined)).toEqual({
      line: 'Tests: did not run (see the error above)',
      failed: true,
      broken: [],
    });
  });

  it('passes a run where every file loaded and every test passed', () => {
    const all = report('vitest-report-only-load-failure.json');
    const passing = {
      ...all,
      success: true,
      numFailedTestSuites: 0,
      testResults: all.testResults.filter((f) => f.status === 'passed'),
    };
    expect(summarize(passing)).toEqual({
      line: 'Tests: 1 passed, 0 failed, 1 skipped',
      failed: false,
      broken: [],
    });
  });

  it('still fails a run vitest failed for a reason no count shows', () => {
    const all = report('vitest-report-only-load-failure.json');
    const odd = { ...all, success: false, testResults: all.testResults.filter((f) => f.status === 'passed') };
    expect(summarize(odd)).toMatchObject({
      line: 'Tests: 1 passed, 0 failed, 1 skipped, run failed (see the errors above)',
      failed: true,
    });
  });

  it('counts both engine runs (SQLite, then PostgreSQL) in one line, and a run without a report as not run', () => {
    const sqlite = report('vitest-report-unloaded-files.json');
    const postgres = report('vitest-report-only-load-failure.json');
    const both = summarize(mergeReports([sqlite, postgres]));
    const one = [summarize(sqlite), summarize(postgres)];
    expect(both.line).toBe('Tests: 2 passed, 1 failed, 3 files failed to load, 2 skipped');
    expect(both.broken).toEqual([...one[0].broken, ...one[1].broken]);
    expect(summarize(mergeReports([sqlite, undefined])).line).toBe(
      'Tests: did not run (see the error above)',
    );
  });
});
