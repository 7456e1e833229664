import type { Command } from 'commander';
import { API_VERSION, HELM_CHART_PLURAL, isSuspended, type HelmChart } from '../api/index.js';
import type { CliContext } from './context.js';
import { chartRow, chartTable } from './format.js';
import { parseOutput, printAs } from './output.js';
import { operatorAction } from './run-command.js';

async function listCharts(ctx: CliContext, namespace: string | undefined): Promise<HelmChart[]> {
  const common = { group: ctx.group, version: API_VERSION, plural: HELM_CHART_PLURAL };
  const list = (
    namespace === undefined
      ? await ctx.custom.listClusterCustomObject(common)
      : await ctx.custom.listNamespacedCustomObject({ ...common, namespace })
  ) as { items: HelmChart[] };
  const key = (c: HelmChart) => `${c.metadata.namespace}/${c.metadata.name}`;
  return [...list.items].sort((a, b) => key(a).localeCompare(key(b)));
}

/** `helmflow get`: every chart's phase, release, chart version, age, last failure and Temporal UI link. */
export function registerGetCommand(program: Command): void {
  operatorAction(
    program
      .command('get')
      .description('list HelmCharts: phase, release revision and status, chart version, age, last failure, Temporal UI')
      .option('-A, --all-namespaces', 'every namespace')
      .option('-n, --namespace <ns>', "one namespace (default: the kubeconfig context's, else default)")
      .option('-o, --output <format>', 'table, json or yaml', 'table'),
    async (ctx, opts: { allNamespaces?: boolean; namespace?: string; output: string }) => {
      const output = parseOutput(opts.output, ['table', 'json', 'yaml'] as never[]) as 'table' | 'json' | 'yaml';
      const all = opts.allNamespaces === true;
      const current = ctx.kube.getContextObject(ctx.kube.getCurrentContext())?.namespace;
      const namespace = all ? undefined : (opts.namespace ?? current ?? 'default');
      const now = Date.now();
      const rows = (await listCharts(ctx, namespace)).map((chart) =>
        chartRow(
          chart,
          now,
          ctx.uiLink({ group: ctx.group, namespace: chart.metadata.namespace, name: chart.metadata.name }),
          isSuspended(chart.metadata.annotations),
        ),
      );
      if (output !== 'table') printAs(output, rows);
      else if (rows.length === 0) console.log(`no HelmCharts ${namespace === undefined ? 'found' : `in ${namespace}`}`);
      else console.log(chartTable(rows, all));
    },
  );
}
