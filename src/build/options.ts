import { DEFAULT_API_GROUP, type ApiGroup } from '../api/index.js';

/**
 * An image with the pinned helm (v4.3.0) as `helm` on PATH. On the native node the image is not used: the
 * command runs as the host's pinned helm.
 */
export const DEFAULT_JOB_IMAGE = 'docker.io/alpine/helm:4.3.0';

/** k3s binds each chart's ServiceAccount to cluster-admin: helm installs arbitrary objects. */
export const DEFAULT_CLUSTER_ROLE = 'cluster-admin';

/** k3s's apiserver port, for bootstrap Jobs that reach the apiserver on the host network. */
export const DEFAULT_API_SERVER_PORT = 6443;

/** Operator settings that shape the built objects (from config, never from the HelmChart). */
export interface BuildOptions {
  group?: ApiGroup;
  /** Used when spec.jobImage is empty. */
  jobImage?: string;
  /** The ClusterRole the chart's ServiceAccount is bound to. */
  clusterRole?: string;
  apiServerPort?: number;
  /**
   * The key of every desired-state digest (src/kube/digest-key.ts), shared by controller and worker. Empty in
   * pure tests only: the processes always pass the cluster's key (src/app/settings.ts buildOptionsOf).
   */
  digestKey?: Uint8Array;
}

export type ResolvedOptions = Required<BuildOptions>;

export function resolveOptions(options: BuildOptions = {}): ResolvedOptions {
  return {
    group: options.group ?? DEFAULT_API_GROUP,
    jobImage: options.jobImage ?? DEFAULT_JOB_IMAGE,
    clusterRole: options.clusterRole ?? DEFAULT_CLUSTER_ROLE,
    apiServerPort: options.apiServerPort ?? DEFAULT_API_SERVER_PORT,
    digestKey: options.digestKey ?? new Uint8Array(),
  };
}
