import type { V1Container, V1EnvVar, V1PodSpec, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { HelmChart } from '../api/index.js';
import { BOOTSTRAP_NODE_SELECTOR, bootstrapEnv, bootstrapTolerations } from './bootstrap.js';
import { serviceAccountName } from './names.js';
import type { ResolvedOptions } from './options.js';
import { containerSecurityContext, podSecurityContext } from './security.js';
import type { ChartSettings } from './settings.js';

/**
 * The container's working directory. Every path helm is given (values files, chart archive, its own state) is
 * relative to it, so the native node can run the same command with the volumes materialised in a sandbox.
 */
export const WORKING_DIR = '/home/helm';

/** helm's writable state: the root filesystem is read-only. Relative, like every other path. */
const HELM_STATE_DIR = '.helm';
const TMP_DIR = 'tmp';

export interface JobVolume {
  volume: V1Volume;
  /** Relative to WORKING_DIR. */
  dir: string;
  readOnly: boolean;
}

export function emptyDirVolume(name: string, dir: string): JobVolume {
  return { volume: { name, emptyDir: {} }, dir, readOnly: false };
}

function stateVolumes(): JobVolume[] {
  return [emptyDirVolume('helm-state', HELM_STATE_DIR), emptyDirVolume('tmp', TMP_DIR)];
}

function helmEnv(settings: ChartSettings): V1EnvVar[] {
  return [
    { name: 'HELM_DRIVER', value: settings.driver },
    { name: 'HELM_CACHE_HOME', value: `${HELM_STATE_DIR}/cache` },
    { name: 'HELM_CONFIG_HOME', value: `${HELM_STATE_DIR}/config` },
    { name: 'HELM_DATA_HOME', value: `${HELM_STATE_DIR}/data` },
    { name: 'TMPDIR', value: TMP_DIR },
  ];
}

export function jobImage(chart: HelmChart, options: ResolvedOptions): string {
  const own = chart.spec.jobImage?.trim() ?? '';
  return own === '' ? options.jobImage : own;
}

/** The container that runs the install, the uninstall, and the one `kubectl logs` reads by default. */
export const HELM_CONTAINER = 'helm';

/** The install Job's init container that fetches and renders the chart before anything is applied. */
export const PREFLIGHT_CONTAINER = 'preflight';

/** The install Job's init container that prints the chart's `crds/` (static chart files, never values). */
export const CRDS_CONTAINER = 'crds';

/** An init container of a helm Job: a name and helm's arguments. */
export interface InitStep {
  name: string;
  args: string[];
}

/**
 * The pod of a helm Job: one container running `helm <args>`, as the chart's ServiceAccount. Each `init` step first
 * runs `helm <its args>` in an init container with the same image, volumes and identity; when one fails the
 * pod fails before the install starts. Their termination message is the tail of their log (FallbackToLogsOnError),
 * so helm's error reaches the pod's status on any kubelet.
 */
export function helmPodSpec(
  chart: HelmChart,
  settings: ChartSettings,
  options: ResolvedOptions,
  args: string[],
  volumes: readonly JobVolume[],
  init: readonly InitStep[] = [],
): V1PodSpec {
  const all = [...volumes, ...stateVolumes()];
  const mounts: V1VolumeMount[] = all.map(({ volume, dir, readOnly }) => ({
    name: volume.name,
    mountPath: `${WORKING_DIR}/${dir}`,
    ...(readOnly ? { readOnly: true } : {}),
  }));
  const helm = (name: string, helmArgs: string[], init = false): V1Container => ({
    name,
    ...(init ? { terminationMessagePolicy: 'FallbackToLogsOnError' } : {}),
    image: jobImage(chart, options),
    imagePullPolicy: 'IfNotPresent',
    command: ['helm'],
    args: helmArgs,
    workingDir: WORKING_DIR,
    env: [...helmEnv(settings), ...(settings.bootstrap ? bootstrapEnv(options.apiServerPort) : [])],
    securityContext: containerSecurityContext(chart.spec),
    volumeMounts: mounts,
  });
  const container = helm(HELM_CONTAINER, args);
  const pod: V1PodSpec = {
    serviceAccountName: serviceAccountName(chart.metadata.name),
    // helm talks to the apiserver with this token; the native node turns it into a kubeconfig.
    automountServiceAccountToken: true,
    // Never, not OnFailure: the Job controller retries with new pods and keeps the failed ones, so
    // `kubectl logs job/helm-install-<name>` still reads a failed run (OnFailure pods are deleted with the Job's failure).
    restartPolicy: 'Never',
    priorityClassName: 'system-cluster-critical',
    securityContext: podSecurityContext(chart.spec),
    ...(init.length === 0
      ? {}
      : {
          initContainers: init.map((step) => helm(step.name, step.args, true)),
        }),
    containers: [container],
    volumes: all.map((v) => v.volume),
  };
  if (settings.bootstrap) {
    pod.hostNetwork = true;
    pod.nodeSelector = { ...BOOTSTRAP_NODE_SELECTOR };
    pod.tolerations = bootstrapTolerations();
  }
  return pod;
}
