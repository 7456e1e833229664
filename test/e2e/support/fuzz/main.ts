// The fuzz suite's long run, against the end-to-end test stack (started here if it is not running):
//   HELMFLOW_TEST_STACK_DIR=/tmp/x HELMFLOW_TEST_PORT_OFFSET=2500 npx tsx test/e2e/support/fuzz/main.ts --count 500 --seed 42
// Prints the seed first, the outcome table and every violation last; exits 1 when there is any.
import { Command } from 'commander';
import { wholeNumber } from '../../../../src/app/setting-values.js';
import { startStack } from '../../../../src/devstack/stack.js';
import { testLayout, testLog, testStackOptions } from '../stack.js';
import { startFuzzEnvironment } from './environment.js';
import { newSeed } from '../prng.js';
import { runFuzz } from './run.js';

const whole = wholeNumber(0);

const options = new Command('fuzz')
  .description('Apply generated HelmCharts and HelmChartConfigs and check none stays silent')
  .option('--seed <n>', 'seed of the generator (default: random, printed)', whole)
  .option('--count <n>', 'how many HelmCharts', whole, 500)
  .option('--batch <n>', 'HelmCharts applied and watched together', whole, 25)
  .option('--deadline <seconds>', 'time each batch has to settle', whole, 90)
  .option('--delete-deadline <seconds>', 'time each batch has to be gone once deleted', whole, 120)
  .option('--concurrency <n>', 'kubectl processes at once', whole, 4)
  .parse()
  .opts<{
    seed?: number;
    count: number;
    batch: number;
    deadline: number;
    deleteDeadline: number;
    concurrency: number;
  }>();

const seed = options.seed ?? newSeed();
const log = (line: string) => process.stdout.write(`${line}\n`);
log(`helmflow fuzz seed ${seed}`);
await startStack(testLayout(), testLog, testStackOptions);
const environment = await startFuzzEnvironment();
try {
  const report = await runFuzz({
    seed,
    count: options.count,
    batchSize: options.batch,
    batchDeadlineMs: options.deadline * 1000,
    deleteDeadlineMs: options.deleteDeadline * 1000,
    concurrency: options.concurrency,
    sources: environment.sources,
    helmflow: environment.helmflow,
    log,
  });
  log(report.table);
  for (const violation of report.violations) log(`VIOLATION ${violation}`);
  log(`helmflow fuzz seed ${seed}: ${report.violations.length} violations`);
  process.exitCode = report.violations.length === 0 ? 0 : 1;
} finally {
  await environment.close();
}
