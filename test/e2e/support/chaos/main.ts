// The long chaos run, outside Jest. Against the e2e test stack (started here if it is not running; set
// HELMFLOW_TEST_STACK_DIR and HELMFLOW_TEST_PORT_OFFSET to use your own):
//   npx tsx test/e2e/support/chaos/main.ts --ops 100 --seed 12345
// Prints the seed first and a summary table last; exits 1 when an invariant does not hold.
import { Command } from 'commander';
import { wholeNumber } from '../../../../src/app/setting-values.js';
import { restartStack } from '../crash.js';
import { newSeed } from '../prng.js';
import { formatReport, violations } from './report.js';
import { runChaos } from './run.js';

const options = new Command('chaos')
  .description('installs, upgrades and deletes HelmCharts while kill -9 hits every helmflow and stack process')
  .option('--ops <n>', 'operations (installs, upgrades, deletes)', wholeNumber(0), 100)
  .option('--seed <n>', 'seed of the plan (printed; random when omitted)', wholeNumber(0))
  .parse()
  .opts<{ ops: number; seed?: number }>();

const seed = options.seed ?? newSeed();
const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
log(`chaos: seed ${seed}`);
await restartStack();
const report = await runChaos({ operations: options.ops, seed, log });
process.stdout.write(`\n${formatReport(report)}\n`);
const failed = violations(report);
process.stdout.write(failed.length === 0 ? '\nall invariants hold\n' : `\nFAILED: ${failed.join('; ')}\n`);
process.exit(failed.length === 0 ? 0 : 1);
