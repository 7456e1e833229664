// The workflow bundle's entry: every workflow type the worker serves.
export { helmChartWorkflow } from './chart.js';
