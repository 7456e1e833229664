/** Commands that act on one chart: retry, reconcile, cancel, suspend, resume. */
import { PatchStrategy, setHeaderOptions } from '../kube/k8s.js';
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { API_VERSION, HELM_CHART_PLURAL, SUSPEND_ANNOTATION } from '../api/index.js';
import { chartWorkflowId, retrySignal, type ChartRef } from '../../workflows/contract.js';
import type { CliContext } from './context.js';
import { operatorAction } from './run-command.js';

const who = () => `cli:${userInfo().username}`;

async function signalRetry(ctx: CliContext, ref: ChartRef, requestedBy: string): Promise<void> {
  await ctx.temporal.workflow.getHandle(chartWorkflowId(ref)).signal(retrySignal, { requestedBy });
}

/** Sets (or, with null, removes) the suspend annotation: a metadata change, so the spec's generation stays. */
async function annotateSuspend(ctx: CliContext, ref: ChartRef, value: string | null): Promise<void> {
  await ctx.readChart(ref);
  await ctx.custom.patchNamespacedCustomObject(
    {
      group: ref.group,
      version: API_VERSION,
      namespace: ref.namespace,
      plural: HELM_CHART_PLURAL,
      name: ref.name,
      body: { metadata: { annotations: { [SUSPEND_ANNOTATION]: value } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

export function registerControlCommands(chart: Command): void {
  operatorAction(
    chart
      .command('retry')
      .argument('<namespace/name>', 'the HelmChart')
      .description('run the install again now (clears abort, retry and pause)'),
    async (ctx, target: string) => {
      await signalRetry(ctx, ctx.ref(target), who());
      console.log(`retry requested for ${target}`);
    },
  );
  operatorAction(
    chart
      .command('reconcile')
      .argument('<namespace/name>', 'the HelmChart')
      .description(
        'run the install now, even when nothing changed (the retry signal); a suspended chart stays suspended',
      ),
    async (ctx, target: string) => {
      await signalRetry(ctx, ctx.ref(target), `${who()} (reconcile)`);
      console.log(`reconcile requested for ${target}`);
    },
  );
  operatorAction(
    chart
      .command('cancel')
      .argument('<namespace/name>', 'the HelmChart')
      .description('stop the current attempt, delete its Job, and pause the chart until its spec changes or a retry'),
    async (ctx, target: string) => {
      await ctx.temporal.workflow.getHandle(chartWorkflowId(ctx.ref(target))).cancel();
      console.log(`cancel requested for ${target}: it stays paused until its spec changes or a retry`);
    },
  );
  operatorAction(
    chart
      .command('suspend')
      .argument('<namespace/name>', 'the HelmChart')
      .description(
        `hold the chart: no install runs, even on a spec change, until resume (annotation ${SUSPEND_ANNOTATION})`,
      ),
    async (ctx, target: string) => {
      await annotateSuspend(ctx, ctx.ref(target), 'true');
      console.log(`${target} suspended: no install runs until \`helmflow chart resume ${target}\``);
    },
  );
  operatorAction(
    chart
      .command('resume')
      .argument('<namespace/name>', 'the HelmChart')
      .description('end a suspend: installs run again'),
    async (ctx, target: string) => {
      await annotateSuspend(ctx, ctx.ref(target), null);
      console.log(`${target} resumed`);
    },
  );
}
