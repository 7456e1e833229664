import type { V1Job } from '@kubernetes/client-node';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { CRDS_READ_TRIES, awaitJob } from '../../activities/jobs.js';
import type { JobOutcome } from '../../activities/types.js';
import { buildInstall } from '../../src/build/index.js';
import { helmChart, podinfoSpec } from './support/charts.js';

// A chart helm fetches: its install Job prints crds/ (a chartContent chart's are read from its archive instead).
const chart = helmChart(podinfoSpec);
const ref = { group: 'helm.k3sm.io' as const, namespace: 'kube-system', name: chart.metadata.name };
const JOB_UID = 'job-uid';

/**
 * An install Job whose pod has printed its crds/ and that succeeds at the `endsAt`-th look, with a log the node
 * serves as `read` says (a throw: the apiserver's proxy failing, as seen on a loaded native node).
 */
function fakeCluster(endsAt: number, read: (n: number) => string) {
  const job = structuredClone(buildInstall({ chart }).job);
  (job.metadata ??= {}).uid = JOB_UID;
  const seen = { looks: 0, logReads: 0 };
  const notFound = Object.assign(new Error('not found'), { code: 404 });
  const deps = {
    group: 'helm.k3sm.io',
    log: pino({ level: 'silent' }),
    jobs: {
      start: async () => undefined,
      get: async (): Promise<V1Job> => {
        seen.looks += 1;
        const ended = seen.looks >= endsAt;
        const status = ended ? { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } : { active: 1 };
        const current = structuredClone(job);
        current.status = status;
        return current;
      },
    },
    core: {
      listNamespacedPod: async () => ({
        items: [
          {
            metadata: { name: 'helm-install-x-abcde', ownerReferences: [{ uid: JOB_UID }] },
            status: { initContainerStatuses: [{ name: 'crds', state: { terminated: { exitCode: 0 } } }] },
          },
        ],
      }),
      readNamespacedPodLog: async () => {
        seen.logReads += 1;
        return read(seen.logReads);
      },
    },
    // The chart is not read back (gone): the success report is skipped, as for a chart deleted meanwhile.
    custom: { getNamespacedCustomObject: async () => Promise.reject(notFound) },
  } as unknown as ActivityDeps;
  return { deps, seen };
}

const wait = (deps: ActivityDeps): Promise<JobOutcome> =>
  new MockActivityEnvironment().run(awaitJob, deps, ref, {
    jobName: 'helm-install-x',
    jobUid: JOB_UID,
    deadlineSeconds: 600,
    failedPodsReported: 0,
  });

const proxyTimeout = () => {
  throw new Error('Get "https://127.0.0.1:10250/containerLogs/…/crds": net/http: TLS handshake timeout');
};

describe("awaitJob's comparison of the crds/ an install Job printed", () => {
  it(`does not fail the wait when the log cannot be read: it tries ${String(CRDS_READ_TRIES)} times, then gives up`, async () => {
    const { deps, seen } = fakeCluster(CRDS_READ_TRIES + 2, proxyTimeout);
    const outcome = await wait(deps);
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect(seen.logReads).toBe(CRDS_READ_TRIES);
  });

  it('reads it again at the next look after a failed read, and says how many CRDs the chart has', async () => {
    const { deps, seen } = fakeCluster(4, (n) => (n === 1 ? proxyTimeout() : ''));
    const outcome = await wait(deps);
    expect(outcome).toEqual({ outcome: 'succeeded', chartCrds: 0 });
    expect(seen.logReads).toBe(2);
  });
});
