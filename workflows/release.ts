/**
 * The helm release as it is: after an install succeeds, and when the controller sees the stored release move
 * (a manual rollback, a helm run outside helmflow), one small activity reads it into status.release.
 */
import { patched } from '@temporalio/workflow';
import { act, kubeCall, type ChartSteps } from './steps.js';

/** Called once after a successful install (attempt.ts); runs recorded before the patch skip it. */
export async function recordReleaseAfterInstall(c: ChartSteps): Promise<void> {
  if (!patched('release-status')) return;
  await recordRelease(c);
}

/** Reads the release into the chart's status; a read the apiserver refuses for good is not worth a stall. */
export async function recordRelease(c: ChartSteps): Promise<void> {
  await c.bestEffort(async () => {
    await act.recordRelease.executeWithOptions(
      { ...kubeCall, summary: `Read helm release ${c.ref.name} into the status of HelmChart ${c.where}` },
      [c.target()],
    );
  });
}
