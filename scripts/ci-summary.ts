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

const path = process.argv[2];
if (path === undefined) throw new Error('usage: ci-summary <jest-report.json>');
const report = JSON.parse(readFileSync(path, 'utf8')) as JestReport;
for (const suite of report.testResults ?? []) {
  const tests = suite.assertionResults ?? [];
  if (suite.status === 'failed' && tests.length === 0) {
    console.log(`FAILED suite ${suite.name}: ${(suite.message ?? '').split('\n')[0] ?? ''}`);
  }
  for (const test of tests) {
    if (test.status === 'failed') console.log(`FAILED ${suite.name} › ${test.fullName}`);
  }
}
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);
