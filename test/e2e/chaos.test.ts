// The chaos suite (issue 8): installs, upgrades and deletes of charts built here while the worker, the
// controller, the Temporal server, the kube-apiserver and the native node are each kill -9'ed at random moments
// (a seeded plan) and restarted. CI runs a small plan; HELMFLOW_CHAOS_OPS and HELMFLOW_CHAOS_SEED choose
// another, and `npx tsx test/e2e/support/chaos/main.ts --ops 100 --seed N` is the long run.
import { newSeed } from './support/prng.js';
import { formatReport, longestStall, workerStallTargetMs } from './support/chaos/report.js';
import { runChaos, type ChaosReport } from './support/chaos/run.js';
import { killKinds } from './support/chaos/plan.js';

const operations = Number(process.env.HELMFLOW_CHAOS_OPS ?? 16);
const seed = Number(process.env.HELMFLOW_CHAOS_SEED ?? newSeed());
let report: ChaosReport;

beforeAll(async () => {
  process.stdout.write(`chaos: seed ${seed} (HELMFLOW_CHAOS_SEED=${seed} reruns this plan)\n`);
  report = await runChaos({ operations, seed, log: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(`${formatReport(report)}\n`);
}, 1_800_000);

describe(`chaos run (seed ${seed}, ${operations} operations)`, () => {
  it('killed each of the worker, controller, Temporal, kube-apiserver and native node at least once', () => {
    expect(killKinds.filter((kind) => !report.kills.some((k) => k.kind === kind))).toEqual([]);
    expect(report.operations.install + report.operations.upgrade + report.operations.delete).toBe(operations);
  });

  it('converges: each live chart Installed with its last values, each deleted one gone', () => {
    expect(report.unconverged).toEqual([]);
    expect(report.wrongValues).toEqual([]);
  });

  it('creates exactly one install Job per desired state and attempt', () => {
    expect(report.installJobs).toBeGreaterThan(0);
    expect(report.duplicateInstallJobs).toEqual([]);
    expect(report.attemptRegressions).toEqual([]);
    expect(report.repeatedDeleteJobs).toEqual([]);
    expect(report.installedWithoutJob).toEqual([]);
  });

  it('leaves no stuck finalizer, no helmflow object and no release once every chart is deleted', () => {
    expect(report.cleanUp.stuck).toEqual([]);
    expect(report.cleanUp.leaked).toEqual([]);
    expect(report.cleanUp.releasesLeft).toEqual([]);
  });

  it('every chart in flight progresses again after every kill', () => {
    expect(report.kills.filter((k) => k.stalled.length > 0)).toEqual([]);
    expect(report.watchFailures).toEqual([]);
  });

  it(`a killed worker stalls no chart longer than ${workerStallTargetMs / 1000} s`, () => {
    expect(longestStall(report, 'worker') ?? 0).toBeLessThanOrEqual(workerStallTargetMs);
  });
});
