/**
 * The helm release as it is, when the controller sees the stored release move (a manual rollback, a helm run
 * outside helmflow): one small activity reads it into status.release. After an install the success report
 * written inside the Job's wait carries it already (activities/install-attempts.ts), at no history cost.
 */
import { activities, kubeCall, type ChartSteps } from './steps.js';

/** Reads the release into the chart's status; a read the apiserver refuses for good is not worth a stall. */
export async function recordRelease(chart: ChartSteps): Promise<void> {
  await chart.bestEffort(async () => {
    await activities.recordRelease.executeWithOptions(
      { ...kubeCall, summary: `Read helm release ${chart.ref.name} into the status of HelmChart ${chart.where}` },
      [chart.target()],
    );
  });
}
