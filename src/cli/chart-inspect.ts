/** Commands that look at one chart: status, check, logs, events, history. */
import type { V1Pod } from '@kubernetes/client-node';
import { Log } from '../kube/k8s.js';
import type { Command } from 'commander';
import { PassThrough } from 'node:stream';
import { installJobName } from '../build/names.js';
import { chartSettingsOf } from '../build/settings.js';
import { releaseHistory } from '../kube/helm-releases.js';
import { checkRelease } from '../release/assertions.js';
import { summarize } from '../release/summary.js';
import { chartWorkflowId, statusQuery, type ChartRef, type ChartStatus } from '../../workflows/contract.js';
import { attemptsOf, installWait, type SummarisedEvent } from './attempts.js';
import { wholeNumber } from '../app/setting-values.js';
import type { CliContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { formatAge, statusText, table } from './format.js';
import { printAs, parseOutput } from './output.js';
import { operatorAction } from './run-command.js';
import { chartWorkflowRuns } from './workflow-runs.js';

async function queryWorkflow(ctx: CliContext, ref: ChartRef): Promise<ChartStatus | undefined> {
  try {
    return await ctx.temporal.workflow.getHandle(chartWorkflowId(ref)).query(statusQuery);
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return undefined;
    throw err;
  }
}

export function registerInspectCommands(chart: Command): void {
  operatorAction(
    chart
      .command('status')
      .argument('<namespace/name>', 'the HelmChart')
      .option('-o, --output <format>', 'text, json or yaml', 'text')
      .description(
        "the chart workflow's view (phase, attempt, digests, last failure), its release and Temporal UI link",
      ),
    async (ctx, target: string, opts: { output: string }) => {
      const output = parseOutput(opts.output, ['text', 'json', 'yaml']);
      const ref = ctx.ref(target);
      const [workflow, chart] = await Promise.all([queryWorkflow(ctx, ref), ctx.readChart(ref)]);
      const ui = ctx.uiLink(ref);
      if (output === 'text') console.log(statusText(target, workflow, chart, ui));
      else printAs(output, { workflow: workflow ?? null, release: chart.status?.release ?? null, temporalUi: ui });
    },
  );
  operatorAction(
    chart
      .command('check')
      .argument('<namespace/name>', 'the HelmChart')
      .option('--status <status>', 'the release status to expect (e.g. deployed)')
      .option('--min-revision <n>', 'the lowest release revision to accept', wholeNumber(0))
      .option('--values-hash <sha256>', "the expected hash of the release's computed values")
      .description('assert the release its status reports; exit 1 naming the first assertion that fails'),
    async (ctx, target: string, opts: { status?: string; minRevision?: number; valuesHash?: string }) => {
      const ref = ctx.ref(target);
      const chart = await ctx.readChart(ref);
      const result = checkRelease(target, chart.status?.release, {
        ...(opts.status === undefined ? {} : { status: opts.status }),
        ...(opts.minRevision === undefined ? {} : { minRevision: opts.minRevision }),
        ...(opts.valuesHash === undefined ? {} : { valuesHash: opts.valuesHash }),
      });
      if (result.ok) {
        console.log(`ok: ${result.message}`);
        return ExitCode.ok;
      }
      console.error(`check ${result.assertion} failed: ${result.message}`);
      return ExitCode.failed;
    },
  );
  operatorAction(
    chart
      .command('logs')
      .argument('<namespace/name>', 'the HelmChart')
      .option('-f, --follow', 'stream the log until the pod ends')
      .description("the log of the chart's current or last Job (its newest pod)"),
    async (ctx, target: string, opts: { follow?: boolean }) => {
      const ref = ctx.ref(target);
      const chart = await ctx.readChart(ref);
      const jobName = chart.status?.jobName ?? installJobName(ref.name);
      const pods = await ctx.core.listNamespacedPod({ namespace: ref.namespace, labelSelector: `job-name=${jobName}` });
      const pod = newest(pods.items);
      if (pod?.metadata?.name === undefined) {
        throw new CliError(
          `no pod of Job ${jobName} in ${ref.namespace}: it has not started, or was deleted`,
          ExitCode.notFound,
        );
      }
      const container = pod.spec?.containers[0]?.name ?? '';
      if (opts.follow !== true) {
        process.stdout.write(
          await ctx.core.readNamespacedPodLog({ name: pod.metadata.name, namespace: ref.namespace, container }),
        );
        return;
      }
      const stream = new PassThrough();
      stream.pipe(process.stdout);
      await new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        new Log(ctx.kube)
          .log(ref.namespace, pod.metadata?.name ?? '', container, stream, { follow: true })
          .catch(reject);
      });
    },
  );
  operatorAction(
    chart
      .command('events')
      .argument('<namespace/name>', 'the HelmChart')
      .description('the Kubernetes Events of the chart, oldest first'),
    async (ctx, target: string) => {
      const ref = ctx.ref(target);
      await ctx.readChart(ref);
      const list = await ctx.core.listNamespacedEvent({
        namespace: ref.namespace,
        fieldSelector: `involvedObject.kind=HelmChart,involvedObject.name=${ref.name}`,
      });
      const now = Date.now();
      const when = (e: (typeof list.items)[number]) =>
        (e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp)?.toString();
      const events = [...list.items].sort((a, b) => Date.parse(when(a) ?? '') - Date.parse(when(b) ?? ''));
      if (events.length === 0) {
        console.log(`no events for ${target}`);
        return;
      }
      console.log(
        table(
          ['LAST SEEN', 'TYPE', 'REASON', 'COUNT', 'MESSAGE'],
          events.map((e) => [
            formatAge(when(e), now),
            e.type ?? '',
            e.reason ?? '',
            String(e.count ?? e.series?.count ?? 1),
            (e.message ?? '').split('\n')[0] ?? '',
          ]),
        ),
      );
    },
  );
  operatorAction(
    chart
      .command('history')
      .argument('<namespace/name>', 'the HelmChart')
      .option('-o, --output <format>', 'text, json or yaml', 'text')
      .description("the workflow's install attempts beside helm's release history"),
    async (ctx, target: string, opts: { output: string }) => {
      const output = parseOutput(opts.output, ['text', 'json', 'yaml']);
      const ref = ctx.ref(target);
      const chart = await ctx.readChart(ref);
      const { targetNamespace, release, driver } = chartSettingsOf(chart);
      const [attempts, releases] = await Promise.all([
        workflowAttempts(ctx, ref),
        releaseHistory(ctx.core, targetNamespace, release, driver).then((all) => all.map(summarize)),
      ]);
      if (output !== 'text') {
        printAs(output, { attempts, releases });
        return;
      }
      console.log(`Workflow attempts (${ctx.uiLink(ref)}):`);
      console.log(
        attempts.length === 0
          ? '  none recorded'
          : table(
              ['ATTEMPT', 'STARTED', 'OUTCOME', 'REASON'],
              attempts.map((a) => [String(a.attempt), a.started, a.outcome, a.reason ?? '-']),
            ),
      );
      console.log(`\nHelm release ${release} in ${targetNamespace}:`);
      console.log(
        releases.length === 0
          ? '  no revisions stored'
          : table(
              ['REVISION', 'UPDATED', 'STATUS', 'CHART', 'APP VERSION'],
              [...releases]
                .reverse()
                .map((r) => [
                  String(r.revision),
                  r.lastDeployed,
                  r.status,
                  `${r.chart}-${r.chartVersion}`,
                  r.appVersion || '-',
                ]),
            ),
      );
    },
  );
}

function newest(pods: V1Pod[]): V1Pod | undefined {
  const time = (p: V1Pod) => Date.parse(String(p.metadata?.creationTimestamp ?? ''));
  return [...pods].sort((a, b) => time(b) - time(a))[0];
}

/** The attempts of every run of the chart's workflow (continue-as-new starts new runs), oldest first. */
async function workflowAttempts(ctx: CliContext, ref: ChartRef) {
  const events: SummarisedEvent[] = [];
  for (const run of await chartWorkflowRuns(ctx.temporal, ref, 20)) {
    // Scheduled install waits by event id: their completion says whether the Job succeeded.
    const waits = new Map<string, string>();
    for (const event of run.events) {
      const time = new Date(Number(event.eventTime?.seconds ?? 0) * 1000).toISOString();
      const completed = event.activityTaskCompletedEventAttributes;
      const wait = waits.get(String(completed?.scheduledEventId ?? ''));
      if (wait !== undefined && payloadText(completed?.result?.payloads?.[0]?.data)?.outcome === 'succeeded')
        events.push({ time, summary: wait, installSucceeded: true });
      const data = event.userMetadata?.summary?.data;
      if (!(data instanceof Uint8Array)) continue;
      const summary = summaryText(data);
      if (installWait.test(summary)) waits.set(String(event.eventId ?? ''), summary);
      events.push({ time, summary });
    }
  }
  return attemptsOf(events);
}

/** An activity's result as the default converter wrote it (JSON); only its `outcome` is read. */
function payloadText(data: Uint8Array | null | undefined): { outcome?: unknown } | undefined {
  if (!(data instanceof Uint8Array)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(data).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A summary payload is JSON text (the default converter): a quoted string. */
function summaryText(data: Uint8Array): string {
  const text = Buffer.from(data).toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'string' ? parsed : text;
  } catch {
    return text;
  }
}
