import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { isApiGroup } from '../api/index.js';
import { resolveSettings } from '../app/settings.js';
import { temporalClient } from '../app/temporal.js';
import { chartWorkflowId, retrySignal, statusQuery, type ChartRef } from '../../workflows/contract.js';

function parseRef(value: string, group: string): ChartRef {
  const [namespace, name, extra] = value.split('/');
  if (namespace === undefined || name === undefined || extra !== undefined || namespace === '' || name === '') {
    throw new Error(`name the chart as <namespace>/<name>, not ${value}`);
  }
  if (!isApiGroup(group)) throw new Error(`unknown group ${group}`);
  return { group, namespace, name };
}

/** Per-chart control from a shell: the same signals and cancel the Temporal UI sends. */
export function registerChartCommands(program: Command): void {
  const chart = program.command('chart').description('control one HelmChart through its workflow');
  const common = (command: Command) =>
    command
      .argument('<namespace/name>', 'the HelmChart')
      .option('--group <group>', 'API group', process.env.HELMFLOW_GROUP ?? 'helm.k3sm.io')
      .option('--temporal-address <host:port>', 'Temporal frontend', process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233');

  const handle = (target: string, opts: Record<string, string>) => {
    const settings = resolveSettings(opts);
    const client = temporalClient(settings);
    return { client, handle: client.workflow.getHandle(chartWorkflowId(parseRef(target, settings.group))) };
  };

  common(chart.command('retry').description('run the install again now (clears abort, retry and pause)')).action(
    async (target: string, opts: Record<string, string>) => {
      const { client, handle: workflow } = handle(target, opts);
      await workflow.signal(retrySignal, { requestedBy: `cli:${userInfo().username}` });
      console.log(`retry requested for ${target}`);
      await client.connection.close();
    },
  );
  common(chart.command('cancel').description('stop the current attempt, delete its Job, and pause the chart')).action(
    async (target: string, opts: Record<string, string>) => {
      const { client, handle: workflow } = handle(target, opts);
      await workflow.cancel();
      console.log(`cancel requested for ${target}: it stays paused until its spec changes or a retry`);
      await client.connection.close();
    },
  );
  common(chart.command('status').description("the chart workflow's own view: phase, digests, attempt")).action(
    async (target: string, opts: Record<string, string>) => {
      const { client, handle: workflow } = handle(target, opts);
      console.log(JSON.stringify(await workflow.query(statusQuery), null, 2));
      await client.connection.close();
    },
  );
}
