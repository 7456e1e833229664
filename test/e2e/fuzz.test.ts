import { startFuzzEnvironment, type FuzzEnvironment } from './support/fuzz/environment.js';
import { newSeed } from './support/prng.js';
import { runFuzz } from './support/fuzz/run.js';

// CI runs a short fuzz; HELMFLOW_FUZZ_COUNT (or test/e2e/support/fuzz/main.ts --count) runs a long one, and
// HELMFLOW_FUZZ_SEED replays a failed run case for case.
const seed = process.env.HELMFLOW_FUZZ_SEED === undefined ? newSeed() : Number(process.env.HELMFLOW_FUZZ_SEED);
const count = Number(process.env.HELMFLOW_FUZZ_COUNT ?? 30);
const batchSize = 30;
const batchDeadlineMs = 90_000;
const deleteDeadlineMs = 120_000;

let environment: FuzzEnvironment | undefined;
beforeAll(async () => {
  process.stdout.write(
    `helmflow fuzz seed ${seed} (HELMFLOW_FUZZ_SEED=${seed} HELMFLOW_FUZZ_COUNT=${count} reproduces)\n`,
  );
  environment = await startFuzzEnvironment();
}, 300_000);
afterAll(async () => {
  await environment?.close();
});

describe('fuzz: generated HelmCharts and HelmChartConfigs applied with kubectl', () => {
  it(
    'each is refused with a message, Installed or Failed with a reason by the deadline; all are gone after delete; nothing crashed',
    async () => {
      if (environment === undefined) throw new Error('the fuzz environment did not start');
      const report = await runFuzz({
        seed,
        count,
        batchSize,
        batchDeadlineMs,
        deleteDeadlineMs,
        concurrency: 4,
        sources: environment.sources,
        helmflow: environment.helmflow,
        log: (line) => process.stdout.write(`${line}\n`),
      });
      process.stdout.write(`${report.table}\n`);
      expect(report.results).toHaveLength(count);
      // Silent charts, stuck finalizers and crashed processes are each a violation naming the seed and the case.
      expect({ seed, violations: report.violations }).toEqual({ seed, violations: [] });
    },
    // Per batch: its applies (slow on a loaded machine), the two deadlines, and the process checks.
    Math.ceil(count / batchSize) * (batchDeadlineMs + deleteDeadlineMs + 240_000),
  );
});
