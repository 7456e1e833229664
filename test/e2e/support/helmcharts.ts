import { CustomObjectsApi } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { stringify } from 'yaml';
import type { HelmChart } from '../../../src/api/index.js';
import { toolPaths } from '../../../src/config/pins.js';
import { waitFor } from '../../../src/lib/wait.js';
import { kubeConfig, kubectl } from './kube.js';
import { workflowSaid } from './observe.js';
import { testLayout } from './stack.js';

const group = 'helm.k3sm.io';

export function customApi(): CustomObjectsApi {
  return kubeConfig().makeApiClient(CustomObjectsApi);
}

/**
 * `kubectl apply` of a HelmChart (or any object, a List of many), as a user would; fails the test with kubectl's
 * message. `timeoutMs` is for a List of hundreds, whose apply can take minutes on a loaded machine.
 */
export function apply(object: Record<string, unknown>, timeoutMs?: number): void {
  const result = kubectl(['apply', '-f', '-'], stringify(object), timeoutMs);
  if (result.status !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
}

export async function readHelmChart(namespace: string, name: string): Promise<HelmChart | undefined> {
  try {
    return (await customApi().getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace,
      plural: 'helmcharts',
      name,
    })) as HelmChart;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/** The chart's condition of `type`, if its status has one. */
export const conditionOf = (chart: HelmChart | undefined, type: string) =>
  chart?.status?.conditions?.find((c) => c.type === type);

/**
 * What a chart last said, for a wait that timed out on it: its finalizers (the controller adds one when it first
 * sees the chart), generations, phase and conditions (the workflow writes them).
 */
export function chartSaid(chart: HelmChart | undefined): string {
  if (chart === undefined) return 'no such HelmChart';
  const conditions = (chart.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`);
  const finalizers = (chart.metadata.finalizers ?? []).join(', ');
  return `finalizers [${finalizers}], generation ${String(chart.metadata.generation)}, observed ${String(chart.status?.observedGeneration)}, phase ${String(chart.status?.phase)}; ${conditions.join('; ')}`;
}

/**
 * Waits until the chart's last install of its current generation succeeded; a timeout says what the chart last
 * said and what Temporal says of its workflow.
 */
export async function chartInstalled(namespace: string, name: string, timeoutMs = 120_000): Promise<HelmChart> {
  let last: HelmChart | undefined;
  try {
    return await waitFor(
      `HelmChart ${namespace}/${name} to be installed`,
      async () => {
        const chart = await readHelmChart(namespace, name);
        last = chart;
        const failed = conditionOf(chart, 'Failed');
        const current = chart?.status?.observedGeneration === chart?.metadata.generation;
        return chart !== undefined && current && failed?.status === 'False' && chart.status?.phase === 'Installed'
          ? chart
          : undefined;
      },
      { timeoutMs, intervalMs: 300 },
    );
  } catch (err) {
    const workflow = await workflowSaid(testLayout().temporalAddress, namespace, name);
    throw new Error(`${(err as Error).message}; it last said: ${chartSaid(last)}; ${workflow}`);
  }
}

export async function chartFailed(namespace: string, name: string, timeoutMs = 120_000): Promise<HelmChart> {
  return waitFor(
    `HelmChart ${namespace}/${name} to have Failed=True`,
    async () => {
      const chart = await readHelmChart(namespace, name);
      return conditionOf(chart, 'Failed')?.status === 'True' ? chart : undefined;
    },
    { timeoutMs, intervalMs: 300 },
  );
}

/** The pinned helm against the test stack, as an operator would run it. */
export function helm(args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(toolPaths().helm, args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      KUBECONFIG: testLayout().adminKubeconfig,
      HELM_CACHE_HOME: '/tmp/helmflow-e2e-helm/cache',
      HELM_CONFIG_HOME: '/tmp/helmflow-e2e-helm/config',
      HELM_DATA_HOME: '/tmp/helmflow-e2e-helm/data',
    },
    timeout: 60_000,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The release's revisions, newest last (helm history). */
export function releaseRevisions(namespace: string, release: string): { revision: number; status: string }[] {
  const result = helm(['history', release, '-n', namespace, '-o', 'json']);
  if (result.status !== 0) return [];
  return JSON.parse(result.stdout) as { revision: number; status: string }[];
}

export function helmChart(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: `${group}/v1`, kind: 'HelmChart', metadata: { name, namespace, ...extra }, spec };
}
