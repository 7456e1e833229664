/**
 * Search attributes the chart workflows keep current, so the Temporal UI can filter charts by namespace, name and
 * phase (e.g. `HelmChartPhase = "Failed"`). The worker registers them in its Temporal namespace at start where
 * the server allows it (src/worker/search-attributes.ts); the embedded Temporal server is started with them.
 */
export const searchAttributes = {
  chartNamespace: 'HelmChartNamespace',
  chartName: 'HelmChartName',
  phase: 'HelmChartPhase',
} as const;

export const searchAttributeType = 'Keyword';

/** Temporal's IndexedValueType number for Keyword (temporal.api.enums.v1.IndexedValueType), as the operator API takes it. */
export const KEYWORD_INDEXED_VALUE_TYPE = 2;
