import type { KubeConfig } from '@kubernetes/client-node';
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
} from '../src/kube/k8s.js';
import type { Logger } from 'pino';
import type { ApiGroup } from '../src/api/index.js';
import type { BuildOptions } from '../src/build/options.js';
import type { JobSlots } from './job-slot-ledger.js';
import type { JobWatcher } from './job-watcher.js';

/** What the activities share within one worker: API clients, the served group, build options, one Job watch. */
export interface ActivityDeps {
  group: ApiGroup;
  build: BuildOptions;
  log: Logger;
  core: CoreV1Api;
  batch: BatchV1Api;
  rbac: RbacAuthorizationV1Api;
  custom: CustomObjectsApi;
  objects: KubernetesObjectApi;
  jobs: JobWatcher;
  /** The --max-running-jobs cap on install Jobs, and the Jobs this worker has just created. */
  slots: JobSlots;
}

export function clientsFor(kc: KubeConfig) {
  return {
    core: kc.makeApiClient(CoreV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    rbac: kc.makeApiClient(RbacAuthorizationV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    objects: KubernetesObjectApi.makeApiClient(kc),
  };
}

/** Field manager of helmflow's server-side applies. */
export const FIELD_MANAGER = 'helmflow';
