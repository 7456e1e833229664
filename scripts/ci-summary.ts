// Prints the closing lines CI reads from Jest's --json report: each failed test by name, then the counts.
import { readFileSync } from 'node:fs';

interface AssertionResult {
  status: string;
  fullName: string;
}
interface SuiteResult {
  name: string;
  status: string;
  message?: string;
  assertionResults?: AssertionResult[];
}
interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults?: SuiteResult[];
}

// Several reports (one per Node the suites ran on) add up to one closing line.
const paths = process.argv.slice(2);
if (paths.length === 0) throw new Error('usage: ci-summary <jest-report.json>...');
let passed = 0;
let failed = 0;
for (const path of paths) {
  const report = JSON.parse(readFileSync(path, 'utf8')) as JestReport;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const suite of report.testResults ?? []) {
    const tests = suite.assertionResults ?? [];
    if (suite.status === 'failed' && tests.length === 0) {
      console.log(`FAILED suite ${suite.name}: ${(suite.message ?? '').split('\n')[0] ?? ''}`);
    }
    for (const test of tests) {
      if (test.status === 'failed') console.log(`FAILED ${suite.name} › ${test.fullName}`);
    }
  }
}
console.log(`${String(passed)} passed, ${String(failed)} failed`);
