import { execFileSync, spawnSync } from 'node:child_process';
import { repoRoot, toolPaths } from '../../src/config/pins.js';
import { waitFor } from '../../src/lib/wait.js';
import { isNotFound } from '../../src/kube/client.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartFailed, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubectl } from './support/kube.js';
import { chartWorkflowStatus } from './support/observe.js';
import { testLayout } from './support/stack.js';

const helmflow = useHelmflow();

// With slow=true the chart holds a Deployment, which never becomes available here (no deployment controller):
// `helm --wait` keeps the install running, so there is an attempt to cancel.
const chart = buildChart({
  name: 'control',
  templates: {
    'slow.yaml': `{{- if .Values.slow }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-slow
spec:
  selector: { matchLabels: { app: slow } }
  template:
    metadata: { labels: { app: slow } }
    spec: { containers: [{ name: slow, image: none, command: [sleep, "3600"] }] }
{{- end }}
`,
  },
});

interface Described {
  workflowExecutionInfo: { status: string; execution: { runId: string } };
}

/** `temporal workflow describe` of the chart's workflow: its latest run, or the run `runId`. */
function describeRun(workflowId: string, runId?: string): Described {
  const run = runId === undefined ? [] : ['--run-id', runId];
  return JSON.parse(
    temporalCli(['workflow', 'describe', '--workflow-id', workflowId, ...run, '-o', 'json']),
  ) as Described;
}

/** The pinned Temporal CLI against the test stack's server, as an operator would use it. */
function temporalCli(args: string[]): string {
  return execFileSync(toolPaths().temporal, [...args, '--address', testLayout().temporalAddress], { encoding: 'utf8' });
}

async function eventMessages(namespace: string, name: string, reason: string): Promise<string[]> {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason).map((e) => e.message ?? '');
}

describe('per-chart control from Temporal and kubectl', () => {
  it('a Temporal cancel stops the attempt, deletes its Job and pauses the chart; a spec change resumes it', async () => {
    const ns = await freshNamespace('cancel');
    const spec = { chartContent: chart.chartContent, timeout: '5m', set: { slow: 'true' } };
    apply(helmChart(ns, 'paused', spec));
    const { batch } = clients();
    await waitFor('the install Job to run', async () => {
      const job = await batch.readNamespacedJob({ name: 'helm-install-paused', namespace: ns }).catch(() => undefined);
      return (job?.status?.active ?? 0) > 0 || undefined;
    });
    const workflowId = chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name: 'paused' });
    const cancelledRun = describeRun(workflowId).workflowExecutionInfo.execution.runId;
    temporalCli(['workflow', 'cancel', '--workflow-id', workflowId, '--run-id', cancelledRun]);

    // The workflow has handled the cancel once the run that was cancelled has continued as new (not ended, not
    // been replaced by a controller's restart) and the new run holds the pause.
    await waitFor('the cancelled run to continue as new', () =>
      describeRun(workflowId, cancelledRun).workflowExecutionInfo.status.includes('CONTINUED_AS_NEW'),
    );
    const fresh = describeRun(workflowId).workflowExecutionInfo;
    expect(fresh.status).toContain('RUNNING');
    expect(fresh.execution.runId).not.toBe(cancelledRun);
    expect((await chartWorkflowStatus(helmflow.settings, ns, 'paused')).phase).toBe('Paused');
    const paused = await readHelmChart(ns, 'paused');
    expect(paused?.status?.phase).toBe('Paused');
    const condition = paused?.status?.conditions?.find((c) => c.type === 'Paused');
    expect(condition).toEqual(expect.objectContaining({ status: 'True', reason: 'Cancelled' }));
    expect(condition?.message).toContain('cancelled through Temporal');
    expect(await eventMessages(ns, 'paused', 'HelmChartPaused')).toHaveLength(1);
    // Deleted by the paused run; the apiserver may still be removing it (its pods first).
    await waitFor('the install Job to be deleted', async () =>
      batch.readNamespacedJob({ name: 'helm-install-paused', namespace: ns }).then(
        () => false,
        (err: unknown) => isNotFound(err),
      ),
    );

    apply(helmChart(ns, 'paused', { ...spec, set: { slow: 'false' } }));
    await chartInstalled(ns, 'paused');
  });

  it('a retry from the Temporal CLI, from `helmflow chart retry` and from the annotation each rerun a failed chart, naming who asked', async () => {
    const ns = await freshNamespace('retry');
    apply(
      helmChart(ns, 'stuck', {
        chartContent: chart.chartContent,
        failurePolicy: 'abort',
        backOffLimit: 0,
        set: { fail: 'still broken' },
      }),
    );
    await chartFailed(ns, 'stuck');
    const failures = async () => (await eventMessages(ns, 'stuck', 'HelmChartInstallFailed')).length;
    await waitFor('the first failure event', async () => (await failures()) === 1 || undefined);
    const workflowId = chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name: 'stuck' });

    temporalCli([
      'workflow',
      'signal',
      '--workflow-id',
      workflowId,
      '--name',
      'retry',
      '--input',
      '{"requestedBy":"temporal-cli"}',
    ]);
    await waitFor('a second failure after the retry', async () => (await failures()) === 2 || undefined, {
      timeoutMs: 60_000,
    });
    expect((await eventMessages(ns, 'stuck', 'HelmChartRetry')).join('\n')).toContain(
      'retry requested by temporal-cli',
    );

    const cli = spawnSync(
      'npx',
      ['tsx', 'src/cli/main.ts', 'chart', 'retry', `${ns}/stuck`, '--temporal-address', testLayout().temporalAddress],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(cli.status).toBe(0);
    await waitFor('a third failure after the CLI retry', async () => (await failures()) === 3 || undefined, {
      timeoutMs: 60_000,
    });
    expect((await eventMessages(ns, 'stuck', 'HelmChartRetry')).join('\n')).toMatch(/retry requested by cli:/);

    expect(kubectl(['annotate', 'helmcharts.helm.k3sm.io', 'stuck', '-n', ns, 'helm.k3sm.io/retry=first']).status).toBe(
      0,
    );
    await waitFor('a fourth failure after the annotation', async () => (await failures()) === 4 || undefined, {
      timeoutMs: 60_000,
    });
    expect((await eventMessages(ns, 'stuck', 'HelmChartRetry')).join('\n')).toContain('helm.k3sm.io/retry annotation');
  });
});
