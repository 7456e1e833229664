import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import type { ActivityDeps } from '../../activities/deps.js';
import { jobLogTail, newestFailedPod } from '../../activities/failed-pods.js';

const job = { jobName: 'helm-install-podinfo', jobUid: 'job-uid-2' };

/** A pod of the Job `ownerUid`, created at second `at`, in `phase`, with its containers' exit codes. */
function pod(
  name: string,
  at: number,
  phase: string,
  { ownerUid = job.jobUid, init = {}, main }: { ownerUid?: string; init?: Record<string, number>; main?: number } = {},
): V1Pod {
  const ended = (container: string, exitCode: number): V1ContainerStatus => ({
    name: container,
    image: 'helm',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode, ...(exitCode === 0 ? {} : { message: `${container} said why` }) } },
  });
  return {
    metadata: {
      name,
      creationTimestamp: new Date(at * 1000),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.jobName, uid: ownerUid }],
    },
    status: {
      phase,
      initContainerStatuses: Object.entries(init).map(([container, code]) => ended(container, code)),
      ...(main === undefined ? {} : { containerStatuses: [ended('helm', main)] }),
    },
  };
}

/** The Job's pods, and what each one's containers printed; a log read of anything else fails. */
function fakePods(pods: V1Pod[], logs: Record<string, string> = {}) {
  const logReads: string[] = [];
  const deps = {
    log: pino({ level: 'silent' }),
    core: {
      listNamespacedPod: async () => ({ items: pods }),
      readNamespacedPodLog: async ({ name, container }: { name: string; container?: string }) => {
        const key = container === undefined ? name : `${name}/${container}`;
        logReads.push(key);
        const text = logs[key];
        if (text === undefined) throw new Error(`no log for ${key}`);
        return text;
      },
    },
  } as unknown as ActivityDeps;
  return { deps, logReads };
}

describe('newestFailedPod', () => {
  it('reads the newest failed pod of this Job only, not one of a replaced Job of the same name', async () => {
    const { deps } = fakePods([
      pod('old-job-pod', 30, 'Failed', { ownerUid: 'job-uid-1', main: 9 }),
      pod('first', 10, 'Failed', { main: 1 }),
      pod('second', 20, 'Failed', { main: 2 }),
      pod('running', 25, 'Running'),
    ]);
    await expect(newestFailedPod(deps, 'kube-system', job)).resolves.toEqual({ name: 'second', exitCode: 2 });
  });

  it('says a pod failed in pre-flight, with its exit code and message, so its install never started', async () => {
    const { deps } = fakePods([pod('p', 1, 'Failed', { init: { preflight: 1 } })]);
    await expect(newestFailedPod(deps, 'kube-system', job)).resolves.toEqual({
      name: 'p',
      exitCode: 1,
      preflight: { exitCode: 1, message: 'preflight said why' },
    });
  });

  it('names another init container that failed (crds, with pre-flight skipped)', async () => {
    const { deps } = fakePods([pod('p', 1, 'Failed', { init: { crds: 2 } })]);
    await expect(newestFailedPod(deps, 'kube-system', job)).resolves.toEqual({
      name: 'p',
      exitCode: 2,
      container: 'crds',
    });
  });

  it('is undefined while no pod has failed', async () => {
    const { deps } = fakePods([pod('p', 1, 'Running')]);
    await expect(newestFailedPod(deps, 'kube-system', job)).resolves.toBeUndefined();
  });
});

describe('jobLogTail: what the newest pod printed, for the Event', () => {
  it("reads helm upgrade's log, or the log of the init container that failed", async () => {
    const upgrade = fakePods([pod('p', 1, 'Failed', { init: { preflight: 0 }, main: 1 })], {
      p: 'Error: UPGRADE FAILED\n',
    });
    await expect(jobLogTail(upgrade.deps, 'kube-system', job.jobName)).resolves.toBe('Error: UPGRADE FAILED');
    const preflight = fakePods([pod('p', 1, 'Failed', { init: { preflight: 1 } })], { 'p/preflight': 'Error: render' });
    await expect(jobLogTail(preflight.deps, 'kube-system', job.jobName)).resolves.toBe('Error: render');
    expect(preflight.logReads).toEqual(['p/preflight']);
  });

  it('says why instead when there is no pod, no output, or no log to read', async () => {
    await expect(jobLogTail(fakePods([]).deps, 'ns', job.jobName)).resolves.toBe('(no pod left to read a log from)');
    const silent = fakePods([pod('p', 1, 'Failed', { main: 1 })], { p: '  \n' });
    await expect(jobLogTail(silent.deps, 'ns', job.jobName)).resolves.toBe('(the pod printed nothing)');
    const gone = fakePods([pod('p', 1, 'Failed', { main: 1 })]);
    await expect(jobLogTail(gone.deps, 'ns', job.jobName)).resolves.toBe('(log unavailable: no log for p)');
  });
});
