import { stringify } from 'yaml';
import { waitFor } from '../../../src/lib/wait.js';
import { kubectl } from './kube.js';

/**
 * Stand-ins for k3s's own helm.cattle.io CRDs, which validate nothing: structural, with no rules, so a HelmChart
 * that helmflow's CRDs would refuse reaches the controller, which must refuse it itself.
 */
export function permissiveCrd(kind: string, plural: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.helm.cattle.io` },
    spec: {
      group: 'helm.cattle.io',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/** Applies both permissive CRDs (over helmflow's, if installed) and waits until HelmCharts are served. */
export async function installPermissiveCrds(): Promise<void> {
  const crds = [permissiveCrd('HelmChart', 'helmcharts'), permissiveCrd('HelmChartConfig', 'helmchartconfigs')];
  const applied = kubectl(
    ['apply', '--server-side', '--force-conflicts', '-f', '-'],
    crds.map((c) => stringify(c)).join('---\n'),
  );
  if (applied.status !== 0) throw new Error(`kubectl apply of the permissive CRDs failed: ${applied.stderr}`);
  await waitFor('the permissive CRDs to serve', () => kubectl(['get', 'helmcharts.helm.cattle.io', '-A']).status === 0);
}
