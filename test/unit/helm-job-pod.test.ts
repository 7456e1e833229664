import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { buildDelete, buildInstall } from '../../src/build/index.js';
import { helmJobPodVerdict } from '../../src/nativenode/helm-job-pod.js';
import { helmChart, podinfoSpec } from './support/charts.js';

const JOB_UID = '5f1d7c0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/** A Job as the apiserver returns it: the built object with a UID. */
function created(job: V1Job): V1Job {
  const copy = structuredClone(job);
  (copy.metadata ??= {}).uid = JOB_UID;
  return copy;
}

/** The pod the Job controller makes from the Job's template. */
function podOf(job: V1Job): V1Pod {
  return {
    metadata: {
      name: `${job.metadata?.name ?? ''}-x7k2p`,
      namespace: job.metadata?.namespace,
      uid: 'pod-uid',
      labels: { ...job.spec?.template.metadata?.labels },
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata?.name ?? '', uid: JOB_UID, controller: true },
      ],
    },
    spec: structuredClone(job.spec?.template.spec ?? { containers: [] }),
  };
}

const chart = helmChart(podinfoSpec);
const install = created(buildInstall({ chart }).job);
const uninstall = created(buildDelete(chart).job);
const crds = created(buildInstall({ chart }).crdsJob);
const cattleInstall = created(
  buildInstall({ chart: { ...chart, apiVersion: 'helm.cattle.io/v1' } }, { group: 'helm.cattle.io' }).job,
);

type Case = [string, V1Pod, V1Job | undefined, boolean, string?];

function edited<T>(value: T, edit: (copy: T) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

const cases: Case[] = [
  ['the pod of a helm install Job', podOf(install), install, true],
  ['the pod of a helm delete Job', podOf(uninstall), uninstall, true],
  ['the pod of a helm crds Job', podOf(crds), crds, true],
  [
    'a crds Job not controlled by its HelmChart',
    podOf(crds),
    edited(crds, (j) => {
      (j.metadata ??= {}).ownerReferences = [];
    }),
    false,
    'not controlled by the HelmChart',
  ],
  ['the pod of a helm.cattle.io install Job', podOf(cattleInstall), cattleInstall, true],
  [
    'a plain pod (a chart workload)',
    edited(podOf(install), (p) => {
      p.metadata = { name: 'web', namespace: 'apps', uid: 'u' };
    }),
    undefined,
    false,
    'not controlled by a Job',
  ],
  [
    'a pod controlled by a ReplicaSet',
    edited(podOf(install), (p) => {
      (p.metadata ??= {}).ownerReferences = [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true },
      ];
    }),
    install,
    false,
    'not controlled by a Job',
  ],
  ['a pod whose Job is gone', podOf(install), undefined, false, 'does not exist'],
  [
    'a pod whose Job was replaced (another UID)',
    podOf(install),
    edited(install, (j) => {
      (j.metadata ??= {}).uid = 'other';
    }),
    false,
    'does not exist',
  ],
  [
    "a chart's own Job (no helmflow labels)",
    podOf(install),
    edited(install, (j) => {
      (j.metadata ??= {}).labels = { app: 'migrate' };
    }),
    false,
    'not managed by helmflow',
  ],
  [
    'a Job managed by helmflow that names no HelmChart',
    podOf(install),
    edited(install, (j) => {
      (j.metadata ??= {}).labels = { 'app.kubernetes.io/managed-by': 'helmflow' };
    }),
    false,
    'names no HelmChart',
  ],
  [
    'an install Job not controlled by its HelmChart',
    podOf(install),
    edited(install, (j) => {
      (j.metadata ??= {}).ownerReferences = [];
    }),
    false,
    'not controlled by the HelmChart podinfo',
  ],
  [
    'an install Job controlled by a HelmChart of another UID',
    podOf(install),
    edited(install, (j) => {
      for (const ref of j.metadata?.ownerReferences ?? []) ref.uid = 'someone-else';
    }),
    false,
    'not controlled by the HelmChart',
  ],
  [
    'a delete Job under another name',
    podOf(uninstall),
    edited(uninstall, (j) => {
      (j.metadata ??= {}).name = 'cleanup';
    }),
    false,
    'not the delete Job',
  ],
  [
    'a delete Job with an owner',
    podOf(uninstall),
    edited(uninstall, (j) => {
      (j.metadata ??= {}).ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'y' }];
    }),
    false,
    'not the delete Job',
  ],
  [
    'a Job with an unknown action',
    podOf(install),
    edited(install, (j) => {
      ((j.metadata ??= {}).labels ??= {})['helmcharts.helm.k3sm.io/action'] = 'shell';
    }),
    false,
    'neither an install, a crds nor a delete Job',
  ],
  [
    'a pod claiming a helm Job but running another command',
    edited(podOf(install), (p) => {
      for (const c of p.spec?.containers ?? []) c.command = ['sh', '-c', 'touch /tmp/pwned'];
    }),
    install,
    false,
    'containers differ',
  ],
  [
    'a pod claiming a helm Job with an extra container',
    edited(podOf(install), (p) => {
      p.spec?.containers.push({ name: 'side', command: ['sh'] });
    }),
    install,
    false,
    'containers differ',
  ],
  [
    'a pod claiming a helm Job with an init container',
    edited(podOf(install), (p) => {
      (p.spec ??= { containers: [] }).initContainers = [{ name: 'init', command: ['sh'] }];
    }),
    install,
    false,
    'containers differ',
  ],
];

describe('which pods the native node runs', () => {
  // A loop, not it.each: jest's each() formats every row's objects, and these pods stalled it.
  for (const [name, pod, job, runs, why] of cases) {
    it(name, () => {
      const verdict = helmJobPodVerdict(pod, job);
      expect(verdict.runs).toBe(runs);
      if (!verdict.runs) expect(verdict.why).toContain(why);
    });
  }
});
