/**
 * Search attributes the chart workflows keep current, so the Temporal UI can filter charts by namespace, name and
 * phase (e.g. `HelmChartPhase = "Failed"`). The embedded Temporal server registers them at start.
 */
export const searchAttributes = {
  chartNamespace: 'HelmChartNamespace',
  chartName: 'HelmChartName',
  phase: 'HelmChartPhase',
} as const;

export const searchAttributeType = 'Keyword';
