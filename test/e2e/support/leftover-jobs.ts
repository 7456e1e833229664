import { outcomeOf } from '../../../activities/jobs.js';
import { MANAGED_BY } from '../../../src/build/labels.js';
import { clients } from './kube.js';

/**
 * Deletes every helmflow Job still running in the shared test stack. A chart a test file left failing keeps its
 * Job retrying after that file's helmflow stopped, for up to the Job's deadline (twice the chart's timeout, 10
 * minutes by default): its pods load the machine, and the Job takes one of --max-running-jobs' slots, which count
 * every helmflow install Job in the cluster. Run before a file starts (support/setup.ts): the files before it are
 * done, in band, so nothing waits on their Jobs. A Job being deleted no longer counts against the cap.
 * Returns namespace/name of each Job deleted.
 */
export async function deleteRunningHelmflowJobs(): Promise<string[]> {
  const { batch } = clients();
  const jobs = await batch.listJobForAllNamespaces({ labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}` });
  // Running as the worker's slot count sees it (activities/job-slots.ts): not being deleted, and no outcome yet.
  const running = jobs.items.filter(
    (job) => job.metadata?.deletionTimestamp === undefined && outcomeOf(job) === undefined,
  );
  for (const job of running) {
    await batch.deleteNamespacedJob({
      name: job.metadata?.name ?? '',
      namespace: job.metadata?.namespace ?? '',
      propagationPolicy: 'Background',
    });
  }
  return running.map((job) => `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`);
}
