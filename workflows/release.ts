/**
 * The helm release as it is, when the controller sees the stored release move (a manual rollback, a helm run
 * outside helmflow): one small activity reads it into status.release. After an install the success report
 * written inside the Job's wait carries it already (activities/install-attempts.ts), at no history cost.
 */
import { act, kubeCall, type ChartSteps } from './steps.js';

/** Reads the release into the chart's status; a read the apiserver refuses for good is not worth a stall. */
export async function recordRelease(c: ChartSteps): Promise<void> {
  await c.bestEffort(async () => {
    await act.recordRelease.executeWithOptions(
      { ...kubeCall, summary: `Read helm release ${c.ref.name} into the status of HelmChart ${c.where}` },
      [c.target()],
    );
  });
}
