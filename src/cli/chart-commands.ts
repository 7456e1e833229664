import type { Command } from 'commander';
import { registerControlCommands } from './chart-control.js';
import { registerInspectCommands } from './chart-inspect.js';

/** Per-chart control and inspection from a shell: the signals the Temporal UI sends, the chart's logs and release. */
export function registerChartCommands(program: Command): void {
  const chart = program.command('chart').description('control or inspect one HelmChart (<namespace>/<name>)');
  registerControlCommands(chart);
  registerInspectCommands(chart);
}
