import type { HelmChart, HelmChartConfig, HelmChartConfigSpec, HelmChartSpec } from '../../../src/api/index.js';

/** A HelmChart as the apiserver returns it, with the given spec. */
export function helmChart(spec: HelmChartSpec, meta: Partial<HelmChart['metadata']> = {}): HelmChart {
  return {
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChart',
    metadata: { name: 'podinfo', namespace: 'kube-system', uid: '0b8e6a52-5d1c-4f3e-9b7a-2f0c1d9e8a71', ...meta },
    spec,
  };
}

export function helmChartConfig(
  spec: HelmChartConfigSpec,
  meta: Partial<HelmChartConfig['metadata']> = {},
): HelmChartConfig {
  return {
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChartConfig',
    metadata: { name: 'podinfo', namespace: 'kube-system', uid: '7d4c2b1a-0e9f-4a8b-8c7d-6e5f4a3b2c1d', ...meta },
    spec,
  };
}

/** The seed's podinfo example. */
export const podinfoSpec: HelmChartSpec = {
  repo: 'https://stefanprodan.github.io/podinfo',
  chart: 'podinfo',
  version: '6.7.1',
  targetNamespace: 'apps',
  createNamespace: true,
  valuesContent: 'replicaCount: 1\n',
  set: { 'ui.message': 'hello' },
};

/** Base64 of a small stand-in archive (bytes are not inspected by the builders). */
export const tinyChartContent = Buffer.from('not really a tgz').toString('base64');
