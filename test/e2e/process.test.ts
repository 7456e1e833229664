import { CoordinationV1Api } from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { repoRoot } from '../../src/config/pins.js';
import { get } from '../../src/lib/http.js';
import { waitFor } from '../../src/lib/wait.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { helmflowCommand } from './support/helmflow-process.js';
import { freshNamespace, kubeConfig } from './support/kube.js';
import { testLayout } from './support/stack.js';

describe('the helmflow run process', () => {
  it('logs JSON, serves /readyz and one /metrics with its own and the Temporal worker metrics, and stops cleanly', async () => {
    await installCrds('helm.k3sm.io');
    const layout = testLayout();
    const port = layout.ports.temporalMetrics + 90;
    const lease = `helmflow-process-${Date.now()}`;
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
      { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code) => {
        resolve(code);
      });
    });
    try {
      await waitFor('/readyz', async () => (await get(`http://127.0.0.1:${port}/readyz`)).status === 200, {
        timeoutMs: 90_000,
      });
      const ns = await freshNamespace('process');
      apply(helmChart(ns, 'scraped', { chartContent: buildChart({ name: 'scraped' }).chartContent }));
      await chartInstalled(ns, 'scraped');
      const metrics = (await get(`http://127.0.0.1:${port}/metrics`)).body;
      expect(metrics).toMatch(/^helmflow_signals_total\{signal="desired"\} [1-9]/m);
      expect(metrics).toMatch(/^helmflow_leader 1$/m);
      expect(metrics).toMatch(/^helmflow_watch_events_total\{resource="helmchart",type="change"\} [1-9]/m);
      expect(metrics).toMatch(/^temporal_activity_task_received_total\{activity_type="awaitJob"/m);
      expect(metrics).toMatch(/^process_resident_memory_bytes /m);
      expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // Every log line is one JSON object with a level, the Temporal SDK's own lines too.
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    const levels = lines.map((line) => {
      try {
        return typeof (JSON.parse(line) as { level?: unknown }).level;
      } catch {
        return `not JSON: ${line}`;
      }
    });
    expect(levels.filter((l) => l !== 'number')).toEqual([]);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.some((l) => l.includes('"component":"temporal-sdk"') && l.includes('Worker state changed'))).toBe(
      true,
    );
    expect(lines.some((l) => l.includes('kubeconfig chosen'))).toBe(true);
    // It gave its Lease up on the way out, so a successor need not wait for it to expire.
    const held = await kubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: lease, namespace: 'kube-system' });
    expect(held.spec?.holderIdentity ?? '').toBe('');
  });
});
