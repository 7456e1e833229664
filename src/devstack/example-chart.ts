import type { KubeConfig } from '@kubernetes/client-node';
import { CustomObjectsApi } from '../kube/k8s.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { HelmChart } from '../api/index.js';
import { repoRoot, toolPaths } from '../config/pins.js';
import type { StackLayout } from './layout.js';
import { waitFor } from '../lib/wait.js';

export const exampleChart = { name: 'hello', namespace: 'kube-system', targetNamespace: 'hello' };

/** Packages examples/hello with the pinned helm; its archive travels as chartContent, so nothing is fetched. */
function packageExample(): string {
  const work = mkdtempSync(path.join(tmpdir(), 'helmflow-example-'));
  try {
    const env = { ...process.env, HELM_CACHE_HOME: work, HELM_CONFIG_HOME: work, HELM_DATA_HOME: work };
    execFileSync(toolPaths().helm, ['package', path.join(repoRoot, 'examples', 'hello'), '-d', work], { env });
    return readFileSync(path.join(work, 'hello-0.1.0.tgz')).toString('base64');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Drops the example HelmChart into the stack's auto-deploy directory, exactly as a user would drop a file into
 * /var/lib/k3sm/manifests, and returns the file's path.
 */
export function dropExampleChart(layout: StackLayout): string {
  mkdirSync(layout.manifestsDir, { recursive: true, mode: 0o700 });
  const file = path.join(layout.manifestsDir, 'hello.yaml');
  const chart = {
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChart',
    metadata: { name: exampleChart.name, namespace: exampleChart.namespace },
    spec: {
      chartContent: packageExample(),
      targetNamespace: exampleChart.targetNamespace,
      createNamespace: true,
      valuesContent: 'greeting: hello from the auto-deploy directory\n',
    },
  };
  writeFileSync(file, stringify(chart), { mode: 0o600 });
  return file;
}

/** Waits until the example chart's install succeeded (status written by its workflow). */
export async function exampleInstalled(kc: KubeConfig, timeoutMs = 180_000): Promise<HelmChart> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return waitFor(
    `HelmChart ${exampleChart.namespace}/${exampleChart.name} to be installed`,
    async () => {
      const chart = (await custom.getNamespacedCustomObject({
        group: 'helm.k3sm.io',
        version: 'v1',
        namespace: exampleChart.namespace,
        plural: 'helmcharts',
        name: exampleChart.name,
      })) as HelmChart;
      const failed = chart.status?.conditions?.find((c) => c.type === 'Failed');
      return chart.status?.phase === 'Installed' && failed?.status === 'False' ? chart : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}
