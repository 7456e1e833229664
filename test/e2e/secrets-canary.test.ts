import { Connection, WorkflowClient } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { randomBytes } from 'node:crypto';
import { buildOptionsOf } from '../../src/app/settings.js';
import { desiredDigest } from '../../src/build/index.js';
import { ensureDigestKey } from '../../src/kube/digest-key.js';
import { buildChart, releaseValues } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { clients, freshNamespace, kubeConfig, kubectl } from './support/kube.js';
import { testLayout, testLog } from './support/stack.js';

const helmflow = useHelmflow();

/** Every history on the Temporal server, as the bytes Temporal stores (payloads included, undecoded). */
async function allHistoryBytes(): Promise<Buffer[]> {
  const connection = await Connection.connect({ address: testLayout().temporalAddress });
  try {
    const client = new WorkflowClient({ connection });
    const out: Buffer[] = [];
    for await (const execution of client.list()) {
      const history = await client.getHandle(execution.workflowId, execution.runId).fetchHistory();
      out.push(Buffer.from(temporal.api.history.v1.History.encode(history).finish()));
    }
    return out;
  } finally {
    await connection.close();
  }
}

describe('secrets never reach Temporal', () => {
  it('a canary in valuesContent, in a values Secret and as a set string is installed, yet appears in no workflow history', async () => {
    const canaryInline = `canary-inline-${randomBytes(12).toString('hex')}`;
    const canarySecret = `canary-secret-${randomBytes(12).toString('hex')}`;
    const canarySet = `canary-set-${randomBytes(12).toString('hex')}`;
    const ns = await freshNamespace('canary');
    await clients().core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'db' }, stringData: { 'values.yaml': `password: ${canarySecret}\n` } },
    });
    const chart = buildChart({ name: 'canary' });
    apply(
      helmChart(ns, 'secretive', {
        chartContent: chart.chartContent,
        valuesContent: `token: ${canaryInline}\n`,
        valuesSecrets: [{ name: 'db', keys: ['values.yaml'] }],
        set: { 'auth.token': canarySet, replicas: 2 },
      }),
    );
    await chartInstalled(ns, 'secretive');
    // The values did reach helm, so a missing canary below means it was kept out, not never sent.
    expect(await releaseValues(ns, 'secretive')).toEqual(
      expect.objectContaining({ token: canaryInline, password: canarySecret, auth: { token: canarySet } }),
    );
    // Nor are they in the Job's args or env (where the typed set entry is, as k3s passes it).
    const job = kubectl(['get', 'job', 'helm-install-secretive', '-n', ns, '-o', 'json']).stdout;
    expect(job).toContain('replicas=2');
    for (const canary of [canaryInline, canarySecret, canarySet]) expect(job).not.toContain(canary);
    const pods = kubectl(['get', 'pods', '-n', ns, '-l', 'job-name=helm-install-secretive', '-o', 'json']).stdout;
    expect(pods).toContain('auth.token=values/set-001');
    for (const canary of [canaryInline, canarySecret, canarySet]) expect(pods).not.toContain(canary);

    const histories = await allHistoryBytes();
    expect(histories.length).toBeGreaterThan(0);
    const everything = Buffer.concat(histories);
    expect(everything.includes(Buffer.from('helm-install-secretive'))).toBe(true);
    for (const canary of [canaryInline, canarySecret, canarySet]) {
      expect(everything.includes(Buffer.from(canary))).toBe(false);
      expect(everything.includes(Buffer.from(Buffer.from(canary).toString('base64')))).toBe(false);
    }
  });

  it('the digest of a Secret-fed chart is keyed: without the cluster key it cannot be recomputed to test a guess', async () => {
    const ns = await freshNamespace('keyed-digest');
    await clients().core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'pin' }, stringData: { 'values.yaml': 'pin: 1234\n' } },
    });
    const chart = buildChart({ name: 'keyed' });
    apply(
      helmChart(ns, 'keyed', {
        chartContent: chart.chartContent,
        valuesSecrets: [{ name: 'pin', keys: ['values.yaml'] }],
      }),
    );
    const installed = await chartInstalled(ns, 'keyed');
    const shown = installed.status?.digest;
    expect(shown).toMatch(/^[0-9a-f]{64}$/u);
    // What a reader of the status could compute for the guess "1234" (the right one) with and without the key.
    const guess = { pin: { 'values.yaml': 'pin: 1234\n' } };
    const build = buildOptionsOf(helmflow.settings, new Uint8Array());
    expect(desiredDigest(installed, undefined, guess, build)).not.toBe(shown);
    const key = await ensureDigestKey(kubeConfig(), helmflow.settings.leaseNamespace, testLog);
    expect(desiredDigest(installed, undefined, guess, { ...build, digestKey: key })).toBe(shown);
  });
});
