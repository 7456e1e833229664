import { killKinds } from './plan.js';
import { seconds, type ChaosReport, type KillRecord } from './run.js';

/** The target of issue 8 and the README: a killed worker is replaced within the heartbeat timeout. */
export const workerStallTargetMs = 30_000;

const longest = (kills: readonly KillRecord[]) =>
  kills.reduce<number | undefined>(
    (max, k) => (k.stallMs === undefined ? max : Math.max(max ?? 0, k.stallMs)),
    undefined,
  );

/** The longest stall after a kill of `kind` (every kind when omitted); undefined when no kill had a chart waiting. */
export function longestStall(report: ChaosReport, kind?: ChaosReport['kills'][number]['kind']): number | undefined {
  return longest(report.kills.filter((k) => kind === undefined || k.kind === kind));
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}

const listed = (items: readonly unknown[]) =>
  items.length === 0
    ? '0'
    : `${items.length}: ${items.map((i) => (typeof i === 'string' ? i : JSON.stringify(i))).join('; ')}`;

/** The run as a summary: kills by kind with their longest stall, each kill, then every invariant. */
export function formatReport(report: ChaosReport): string {
  const byKind = [
    ['kill -9', 'count', 'longest stall (kill → every waiting chart progressing)'],
    ...killKinds.map((kind) => {
      const kills = report.kills.filter((k) => k.kind === kind);
      return [kind, String(kills.length), seconds(longest(kills))];
    }),
    ['all', String(report.kills.length), seconds(longestStall(report))],
  ];
  const each = [
    ['#', 'kind', 'after op', 'moment', 'waiting', 'stall', 'no progress'],
    ...report.kills.map((k, i) => [
      String(i + 1),
      k.kind,
      String(k.afterOp),
      k.moment,
      String(k.waiting),
      seconds(k.stallMs),
      k.stalled.join(' ') || '-',
    ]),
  ];
  const ops = report.operations;
  const { cleanUp } = report;
  const worker = longestStall(report, 'worker');
  return [
    `chaos summary — seed ${report.seed} (rerun: --seed ${report.seed})`,
    `operations: ${ops.install + ops.upgrade + ops.delete} (install ${ops.install}, upgrade ${ops.upgrade}, delete ${ops.delete}); install Jobs created: ${report.installJobs}; run ${seconds(report.durationMs)}`,
    '',
    table(byKind),
    '',
    table(each),
    '',
    `worker-kill stall: ${seconds(worker)} (target ≤ ${seconds(workerStallTargetMs)})`,
    `converged after the last operation: ${seconds(report.convergeMs)}; not converged: ${listed(report.unconverged)}`,
    `releases without the last values: ${listed(report.wrongValues)}`,
    `install Job keys (chart uid, digest, attempt) created twice: ${listed(report.duplicateInstallJobs)}`,
    `install Jobs created out of attempt order: ${listed(report.attemptRegressions)}`,
    `charts with more than one delete Job: ${listed(report.repeatedDeleteJobs)}`,
    `Installed charts whose digest no seen Job carried: ${listed(report.installedWithoutJob)}`,
    `delete of all charts: ${seconds(cleanUp.deleteAllMs)}; stuck finalizers: ${listed(cleanUp.stuck)}`,
    `leaked ServiceAccounts/ClusterRoleBindings/Secrets/ConfigMaps: ${listed(cleanUp.leaked)}`,
    `releases left: ${listed(cleanUp.releasesLeft)}`,
    `operations that waited past the pacing deadline: ${report.pacingTimeouts}; watch gaps (relists): ${report.watchGaps}; watch failures: ${listed(report.watchFailures)}`,
  ].join('\n');
}

/** Every invariant that does not hold, one line each; empty when the run passed. */
export function violations(report: ChaosReport): string[] {
  const found: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) found.push(what);
  };
  for (const kind of killKinds)
    check(
      report.kills.some((k) => k.kind === kind),
      `no kill of the ${kind}`,
    );
  check(report.unconverged.length === 0, 'charts did not converge');
  check(report.wrongValues.length === 0, 'releases without their last values');
  check(report.duplicateInstallJobs.length === 0, 'an install Job key was created twice');
  check(report.attemptRegressions.length === 0, 'install Jobs out of attempt order');
  check(report.repeatedDeleteJobs.length === 0, 'a chart got more than one delete Job');
  check(report.installedWithoutJob.length === 0, 'an Installed digest that no Job carried');
  check(report.cleanUp.stuck.length === 0, 'stuck finalizers');
  check(report.cleanUp.leaked.length === 0, 'leaked objects');
  check(report.cleanUp.releasesLeft.length === 0, 'releases left');
  check(
    report.kills.every((k) => k.stalled.length === 0),
    'charts without progress after a kill',
  );
  const worker = longestStall(report, 'worker');
  check(worker === undefined || worker <= workerStallTargetMs, `worker-kill stall ${seconds(worker)} over the target`);
  check(report.watchFailures.length === 0, 'a watch of the run gave up');
  return found;
}
