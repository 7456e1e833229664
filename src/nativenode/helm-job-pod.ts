import type { V1Container, V1Job, V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { API_GROUPS, HELM_CHART_KIND, apiVersionOf, type ApiGroup } from '../api/index.js';
import { MANAGED_BY, actionLabelKey, chartLabelKey, uidLabelKey } from '../build/labels.js';
import { deleteJobName } from '../build/names.js';

/**
 * Which pods the native node runs: only helmflow's helm Job pods, never a chart's own workloads (a Deployment
 * saying `command: [sh, -c, …]` must not run on the developer's machine). A pod qualifies when all hold:
 *
 * 1. it is controlled by a batch/v1 Job (the controller owner reference, matched by UID);
 * 2. that Job carries `app.kubernetes.io/managed-by: helmflow` and, for one served group (helm.k3sm.io or
 *    helm.cattle.io), the chart, uid and action labels that src/build/labels.ts puts on every helm Job;
 * 3. an install Job (or the crds Job that precedes an upgrade) is controlled by the HelmChart of that group its
 *    labels name (name and UID); a delete Job has no owner on purpose (src/build/uninstall-job.ts), so it must have no owner at all and be named
 *    `helm-delete-<chart>`;
 * 4. every container of the pod runs exactly what the Job's template says (name, command, args), so a pod
 *    that merely claims such a Job as its controller runs nothing else.
 */
export type HelmJobPodVerdict = { runs: true; group: ApiGroup } | { runs: false; why: string };

/** The Job that controls the pod, if any: the first question, answered without reading anything. */
export function controllingJob(pod: V1Pod): V1OwnerReference | undefined {
  return pod.metadata?.ownerReferences?.find(
    (ref) => ref.controller === true && ref.kind === 'Job' && ref.apiVersion === 'batch/v1',
  );
}

const refuse = (why: string): HelmJobPodVerdict => ({ runs: false, why });

/** The rule above. `job` is the Job the pod's controller reference names, undefined when it does not exist. */
export function helmJobPodVerdict(pod: V1Pod, job: V1Job | undefined): HelmJobPodVerdict {
  const owner = controllingJob(pod);
  if (owner === undefined) return refuse('the pod is not controlled by a Job');
  if (job === undefined || job.metadata?.uid !== owner.uid) return refuse(`its Job ${owner.name} does not exist`);
  const labels = job.metadata.labels ?? {};
  if (labels['app.kubernetes.io/managed-by'] !== MANAGED_BY) {
    return refuse(`its Job ${owner.name} is not managed by ${MANAGED_BY}`);
  }
  const group = API_GROUPS.find((g) => labels[chartLabelKey(g)] !== undefined);
  if (group === undefined) return refuse(`its Job ${owner.name} names no HelmChart`);
  const why = jobOriginProblem(job, group) ?? containerProblem(pod, job);
  return why === undefined ? { runs: true, group } : refuse(why);
}

function jobOriginProblem(job: V1Job, group: ApiGroup): string | undefined {
  const labels = job.metadata?.labels ?? {};
  const jobName = job.metadata?.name ?? '';
  const chart = labels[chartLabelKey(group)] ?? '';
  const uid = labels[uidLabelKey(group)] ?? '';
  const owners = job.metadata?.ownerReferences ?? [];
  switch (labels[actionLabelKey(group)]) {
    case 'install':
    case 'crds': {
      const byChart = owners.find(
        (ref) =>
          ref.controller === true &&
          ref.kind === HELM_CHART_KIND &&
          ref.apiVersion === apiVersionOf(group) &&
          ref.name === chart &&
          ref.uid === uid,
      );
      return byChart === undefined ? `its Job ${jobName} is not controlled by the HelmChart ${chart}` : undefined;
    }
    case 'delete':
      if (owners.length > 0 || jobName !== deleteJobName(chart)) {
        return `its Job ${jobName} is not the delete Job of the HelmChart ${chart}`;
      }
      return undefined;
    default:
      return `its Job ${jobName} is neither an install, a crds nor a delete Job`;
  }
}

const runs = (c: V1Container) => JSON.stringify([c.name, c.command ?? [], c.args ?? []]);

function containerProblem(pod: V1Pod, job: V1Job): string | undefined {
  const template = job.spec?.template.spec;
  const same = (a: V1Container[] = [], b: V1Container[] = []) =>
    a.length === b.length && a.every((c, i) => b[i] !== undefined && runs(c) === runs(b[i]));
  const matches =
    same(pod.spec?.containers, template?.containers) && same(pod.spec?.initContainers, template?.initContainers);
  return matches ? undefined : `its containers differ from its Job ${job.metadata?.name ?? ''}'s template`;
}
