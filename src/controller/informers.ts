import type { Informer, KubeConfig, KubernetesObject, ObjectCache, V1Secret } from '@kubernetes/client-node';
import { CoreV1Api, CustomObjectsApi, makeInformer } from '../kube/k8s.js';
import type { Logger } from 'pino';
import {
  API_VERSION,
  HELM_CHART_CONFIG_PLURAL,
  HELM_CHART_PLURAL,
  type ApiGroup,
  type HelmChart,
  type HelmChartConfig,
} from '../api/index.js';
import { MANAGED_BY } from '../build/labels.js';
import { withDeadline } from '../kube/deadline.js';
import { restartOnError } from '../kube/restart-watch.js';
import { withoutManagedFields } from '../kube/trim-cache.js';

export type Watched<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/**
 * How long a watch's list may take. The controller decides nothing until its three lists are in, so a list left
 * waiting on a connection that never answers would hold every chart in silence; cut, it fails, is logged, and is
 * tried again (restart-watch.ts). The watch request itself is bounded by PooledKubeConfig.
 */
export const LIST_MS = 60_000;

/** Secrets that can be values Secrets: not helm's release records, not helmflow's own chart-values-<name>. */
export const VALUES_SECRET_SELECTOR = `owner!=helm,app.kubernetes.io/managed-by!=${MANAGED_BY}`;

function resilient<T extends KubernetesObject>(
  informer: Watched<T>,
  what: string,
  log: Logger,
  stopped: () => boolean,
): Watched<T> {
  restartOnError(informer, { what, log, stopped });
  return withoutManagedFields(informer);
}

export interface ChartInformers {
  charts: Watched<HelmChart & KubernetesObject>;
  configs: Watched<HelmChartConfig & KubernetesObject>;
  secrets: Watched<V1Secret>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function chartInformers(kc: KubeConfig, group: ApiGroup, log: Logger, listMs = LIST_MS): ChartInformers {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  let stopped = false;
  const isStopped = () => stopped;
  const list = (plural: string) => () =>
    withDeadline(`the ${plural} list`, listMs, (options) =>
      custom.listClusterCustomObject({ group, version: API_VERSION, plural }, options),
    ) as Promise<never>;
  const charts = resilient(
    makeInformer<HelmChart & KubernetesObject>(
      kc,
      `/apis/${group}/${API_VERSION}/${HELM_CHART_PLURAL}`,
      list(HELM_CHART_PLURAL),
    ),
    'helmcharts',
    log,
    isStopped,
  );
  const configs = resilient(
    makeInformer<HelmChartConfig & KubernetesObject>(
      kc,
      `/apis/${group}/${API_VERSION}/${HELM_CHART_CONFIG_PLURAL}`,
      list(HELM_CHART_CONFIG_PLURAL),
    ),
    'helmchartconfigs',
    log,
    isStopped,
  );
  // Values Secrets may live in any chart namespace; only those a chart names are ever read. Helm's release
  // records (one Secret per revision, the largest in most clusters) and helmflow's own are never values Secrets,
  // so the watch leaves them out rather than holding them all in memory.
  const secrets = resilient(
    makeInformer<V1Secret>(
      kc,
      '/api/v1/secrets',
      () =>
        withDeadline('the secrets list', listMs, (options) =>
          core.listSecretForAllNamespaces({ labelSelector: VALUES_SECRET_SELECTOR }, options),
        ),
      VALUES_SECRET_SELECTOR,
    ),
    'secrets',
    log,
    isStopped,
  );
  return {
    charts,
    configs,
    secrets,
    start: async () => {
      await Promise.all([charts.start(), configs.start(), secrets.start()]);
    },
    stop: async () => {
      stopped = true;
      await Promise.all([charts.stop(), configs.stop(), secrets.stop()]);
    },
  };
}
