import {
  API_VERSION,
  HELM_CHART_CONFIG_PLURAL,
  HELM_CHART_PLURAL,
  valuesSecretNames,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
} from '../src/api/index.js';
import { isNotFound } from '../src/kube/client.js';
import { secretText } from '../src/kube/secret-data.js';
import type { ActivityDeps } from './deps.js';
import type { ChartTarget } from './types.js';

/** The HelmChart if it still exists as this uid; undefined when it is gone or was recreated. */
export async function readChart(deps: ActivityDeps, target: ChartTarget): Promise<HelmChart | undefined> {
  const { ref } = target;
  try {
    const chart = (await deps.custom.getNamespacedCustomObject({
      group: ref.group,
      version: API_VERSION,
      namespace: ref.namespace,
      plural: HELM_CHART_PLURAL,
      name: ref.name,
    })) as HelmChart;
    return chart.metadata.uid === target.uid ? chart : undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function readConfig(deps: ActivityDeps, target: ChartTarget): Promise<HelmChartConfig | undefined> {
  const { ref } = target;
  try {
    return (await deps.custom.getNamespacedCustomObject({
      group: ref.group,
      version: API_VERSION,
      namespace: ref.namespace,
      plural: HELM_CHART_CONFIG_PLURAL,
      name: ref.name,
    })) as HelmChartConfig;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The data of the Secrets the chart and its config name in valuesSecrets; a missing Secret is absent. */
export async function readValuesSecrets(
  deps: ActivityDeps,
  chart: HelmChart,
  config: HelmChartConfig | undefined,
): Promise<SecretData> {
  const data: Record<string, Record<string, string>> = {};
  for (const name of valuesSecretNames(chart, config)) {
    try {
      const secret = await deps.core.readNamespacedSecret({ name, namespace: chart.metadata.namespace });
      data[name] = secretText(secret);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return data;
}

/** Everything an install is built from, read fresh: the chart (this uid), its config and Secret data. */
export async function readInstallInput(deps: ActivityDeps, target: ChartTarget) {
  const chart = await readChart(deps, target);
  if (chart === undefined) return undefined;
  const config = await readConfig(deps, target);
  const secrets = await readValuesSecrets(deps, chart, config);
  return { chart, config, secrets };
}
