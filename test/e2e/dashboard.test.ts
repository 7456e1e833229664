import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { repoRoot } from '../../src/config/pins.js';
import { get } from '../../src/lib/http.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { apply, chartFailed, chartInstalled, helmChart } from './support/helmcharts.js';
import { helmflowCommand } from './support/helmflow-process.js';
import { freshNamespace } from './support/kube.js';
import { testLayout } from './support/stack.js';

/**
 * deploy/grafana/helmflow.json is only useful if its queries name what helmflow really exports. Every selector of
 * every panel is parsed with Prometheus's own PromQL grammar and checked against the /metrics of a real
 * `helmflow run` that has installed one chart and failed another: the metric family is served, and every label a
 * query matches or groups by is a label of that family's samples.
 */

interface Selector {
  metric: string;
  labels: string[];
}

interface Target {
  expr: string;
}

function dashboardQueries(): string[] {
  const file = path.join(repoRoot, 'deploy', 'grafana', 'helmflow.json');
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: { targets: Target[] }[] };
  return dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
}

/** Grafana's $__rate_interval is not PromQL; the dashboard's queries are parsed with a concrete range. */
function selectorsOf(expr: string): Selector[] {
  const text = expr.replaceAll('$__rate_interval', '5m');
  const tree = parser.parse(text);
  const selectors: Selector[] = [];
  const grouping: string[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`the dashboard query does not parse: ${expr}`);
      if (node.name === 'GroupingLabels') {
        for (let child = node.node.firstChild; child; child = child.nextSibling) {
          if (child.name === 'LabelName') grouping.push(text.slice(child.from, child.to));
        }
        return false;
      }
      if (node.name !== 'VectorSelector') return;
      const metric = node.node.getChild('Identifier');
      const labels: string[] = [];
      node.node
        .getChild('LabelMatchers')
        ?.cursor()
        .iterate((m) => {
          if (m.name === 'LabelName') labels.push(text.slice(m.from, m.to));
        });
      if (metric) selectors.push({ metric: text.slice(metric.from, metric.to), labels });
      return false;
    },
  });
  return selectors.map((s) => ({ ...s, labels: [...s.labels, ...grouping] }));
}

/** The family a sample name belongs to: a histogram's _bucket, _sum and _count are the histogram. */
function familyOf(metrics: string, metric: string): string | undefined {
  for (const candidate of [metric, metric.replace(/_(bucket|sum|count)$/, '')]) {
    if (new RegExp(`^# TYPE ${candidate} `, 'm').test(metrics)) return candidate;
  }
  return undefined;
}

function labelsOfSamples(metrics: string, metric: string): Set<string> {
  const names = new Set<string>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    for (const match of line.matchAll(/([a-zA-Z_]\w*)="/g)) names.add(match[1] ?? '');
  }
  return names;
}

describe('the Grafana dashboard deploy/grafana/helmflow.json', () => {
  it('parses, and every query selects metrics and labels a live helmflow serves', async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(8);
    const selectors = queries.flatMap(selectorsOf);
    expect(selectors.map((s) => s.metric)).toEqual(
      expect.arrayContaining([
        'helmflow_charts',
        'helmflow_install_duration_seconds_bucket',
        'helmflow_install_failures_total',
        'helmflow_signal_errors_total',
      ]),
    );

    await installCrds('helm.k3sm.io');
    const layout = testLayout();
    const port = layout.ports.temporalMetrics + 92;
    const lease = `helmflow-dashboard-${Date.now()}`;
    const child = spawn(
      process.execPath,
      [
        ...helmflowCommand(),
        'run',
        `--kubeconfig=${layout.adminKubeconfig}`,
        `--temporal-address=${layout.temporalAddress}`,
        `--task-queue=${lease}`,
        `--lease-name=${lease}`,
        '--manifests-dir=',
        `--http-port=${port}`,
      ],
      { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '' }, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitFor('/readyz', async () => (await get(`http://127.0.0.1:${port}/readyz`)).status === 200, {
        timeoutMs: 90_000,
      });
      const ns = await freshNamespace('dashboard');
      const content = buildChart({ name: 'scraped' }).chartContent;
      apply(helmChart(ns, 'good', { chartContent: content }));
      apply(
        helmChart(ns, 'bad', {
          chartContent: content,
          backOffLimit: 0,
          failurePolicy: 'abort',
          set: { fail: 'on purpose' },
        }),
      );
      await chartInstalled(ns, 'good');
      await chartFailed(ns, 'bad');
      const metrics = await waitFor(
        'the failed install to be counted',
        async () => {
          const text = (await get(`http://127.0.0.1:${port}/metrics`)).body;
          return /^helmflow_install_failures_total\{/m.test(text) && /^helmflow_charts\{phase="Failed"\}/m.test(text)
            ? text
            : undefined;
        },
        { timeoutMs: 30_000 },
      );
      for (const selector of selectors) {
        const family = familyOf(metrics, selector.metric);
        expect({ selector, served: family !== undefined }).toEqual({ selector, served: true });
        const sampled = labelsOfSamples(metrics, selector.metric);
        if (sampled.size === 0) continue; // a counter nothing has incremented yet (signal errors on a healthy run)
        for (const label of selector.labels.filter((l) => l !== 'le' && l !== 'instance')) {
          expect({ metric: selector.metric, label, known: sampled.has(label) }).toEqual({
            metric: selector.metric,
            label,
            known: true,
          });
        }
      }
      expect(metrics).toMatch(/^helmflow_charts\{phase="Installed"\} [1-9]/m);
      expect(metrics).toMatch(/^helmflow_install_duration_seconds_count\{outcome="succeeded"\} [1-9]/m);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
