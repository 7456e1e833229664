// The long chaos run, outside Jest. Against the e2e test stack (started here if it is not running; set
// HELMFLOW_TEST_STACK_DIR and HELMFLOW_TEST_PORT_OFFSET to use your own):
//   npx tsx test/e2e/support/chaos/main.ts --ops 100 --seed 12345
// Prints the seed first and a summary table last; exits 1 when an invariant does not hold.
import { Command, InvalidArgumentError } from 'commander';
import { restartStack } from '../crash.js';
import { newSeed } from '../prng.js';
import { formatReport, violations } from './report.js';
import { runChaos } from './run.js';

const whole = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number is expected');
  return n;
};

const options = new Command('chaos')
  .description('installs, upgrades and deletes HelmCharts while kill -9 hits every helmflow and stack process')
  .option('--ops <n>', 'operations (installs, upgrades, deletes)', whole, 100)
  .option('--seed <n>', 'seed of the plan (printed; random when omitted)', whole)
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
