import { waitFor } from '../../src/lib/wait.js';
import { chartWorkflowId } from '../../workflows/contract.js';
import { startBareTemporal, type BareTemporal } from './support/bare-temporal.js';
import { buildChart } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { startDenyProxy } from './support/deny-proxy.js';
import { startHelmflowCli, type HelmflowCli } from './support/helmflow-cli.js';
import { apply, chartInstalled, helmChart, readHelmChart } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';
import { testLayout } from './support/stack.js';

// helmflow beside a Temporal it has never seen: a second dev server started with no flags but its own ports and
// database, and a namespace other than `default` created the way an operator does.
let temporal: BareTemporal;
const processes: HelmflowCli[] = [];
let unique = 0;

beforeAll(async () => {
  await installCrds('helm.k3sm.io');
  temporal = await startBareTemporal();
});
afterAll(async () => {
  for (const p of processes) p.dispose();
  await temporal.stop();
});

function newNamespace(): string {
  unique += 1;
  const namespace = `helmflow-bare-${process.pid}-${unique}`;
  temporal.cli(['operator', 'namespace', 'create', '--namespace', namespace]);
  return namespace;
}

async function helmflow(role: 'run' | 'worker' | 'controller', address: string, namespace: string) {
  const id = `bare-${process.pid}-${unique}-${role}`;
  const p = await startHelmflowCli(role, [
    `--kubeconfig=${testLayout().adminKubeconfig}`,
    `--temporal-address=${address}`,
    `--temporal-namespace=${namespace}`,
    `--task-queue=${id}`,
    `--lease-name=${id}`,
    `--api-server-port=${testLayout().ports.apiserver}`,
  ]);
  processes.push(p);
  return p;
}

describe('helmflow on a bare Temporal', () => {
  it('registers its search attributes in a non-default namespace, then installs and deletes a chart', async () => {
    const namespace = newNamespace();
    expect(temporal.cli(['operator', 'search-attribute', 'list', '--namespace', namespace])).not.toContain(
      'HelmChartName',
    );
    const run = await helmflow('run', temporal.address, namespace);
    const readyMs = await run.untilReady();
    process.stdout.write(`helmflow run: start to ready against a bare Temporal: ${readyMs} ms\n`);
    expect(run.logLines(/search attributes registered/)).toHaveLength(1);
    const listed = temporal.cli(['operator', 'search-attribute', 'list', '--namespace', namespace]);
    for (const name of ['HelmChartNamespace', 'HelmChartName', 'HelmChartPhase']) {
      expect(listed).toMatch(new RegExp(`${name}\\s+Keyword`));
    }

    const ns = await freshNamespace('bare');
    apply(helmChart(ns, 'bare', { chartContent: buildChart({ name: 'bare' }).chartContent }));
    await chartInstalled(ns, 'bare');
    // The workflow ran in that namespace and is found by its search attributes, as the UI's filter would. Waited
    // for: the chart's status says Installed a moment before the workflow upserts its phase, and visibility lags.
    const id = chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name: 'bare' });
    const query = `HelmChartName = "bare" AND HelmChartNamespace = "${ns}" AND HelmChartPhase = "Installed"`;
    await waitFor(
      'the workflow listed by its search attributes',
      () => temporal.cli(['workflow', 'list', '--namespace', namespace, '--query', query]).includes(id),
      { timeoutMs: 30_000, intervalMs: 500 },
    );

    expect(kubectl(['delete', 'helmcharts.helm.k3sm.io', 'bare', '-n', ns, '--wait=false']).status).toBe(0);
    await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'bare')) === undefined, {
      timeoutMs: 120_000,
    });
    expect(await run.terminate()).toEqual(expect.objectContaining({ code: 0 }));
  });

  it('refuses to become ready where registration is not allowed, naming the command, until it is run', async () => {
    const namespace = newNamespace();
    const proxy = await startDenyProxy(temporal.address);
    try {
      const worker = await helmflow('worker', proxy.address, namespace);
      const names = ['HelmChartNamespace', 'HelmChartName', 'HelmChartPhase'];
      const command =
        `temporal operator search-attribute create --address ${proxy.address} --namespace ${namespace} ` +
        names.map((name) => `--name ${name} --type Keyword`).join(' ');
      const refusal = await waitFor('/readyz to name the command', async () => {
        const readyz = await worker.readyz();
        return readyz.status === 503 && readyz.body.includes(command) ? readyz.body : undefined;
      });
      expect(refusal).toContain('may not register them');
      expect(proxy.denied()).toBeGreaterThan(0);
      const errors = worker.logLines(/may not register/);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.level).toBe(50);
      expect(errors[0]?.msg).toContain(command);

      // Still refused, and said once, on the worker's next look (every 15 s).
      await waitFor('a second refused look', async () => (proxy.denied() > 1 ? true : undefined), {
        timeoutMs: 40_000,
      });
      expect((await worker.readyz()).status).toBe(503);
      expect(worker.logLines(/may not register/)).toHaveLength(1);

      // The operator runs the command (against the server itself: this proxy refuses it for anyone); the worker
      // sees the attributes on its next look and becomes ready without a restart.
      const run = Date.now();
      temporal.cli(
        command
          .replace(/^temporal /, '')
          .replace(` --address ${proxy.address}`, '')
          .split(' '),
      );
      await worker.untilReady(60_000);
      process.stdout.write(`worker ready ${Date.now() - run} ms after the operator registered the attributes\n`);
      expect(worker.logLines(/may not register/)).toHaveLength(1);
      expect(worker.logLines(/worker running/)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('keeps the controller unready while its Temporal namespace does not answer, then ready once it does', async () => {
    unique += 1;
    const namespace = `helmflow-later-${process.pid}-${unique}`;
    const controller = await helmflow('controller', temporal.address, namespace);
    await waitFor('/readyz to say why', async () => {
      const readyz = await controller.readyz();
      return readyz.status === 503 && readyz.body.includes(`controller: Temporal namespace ${namespace}`);
    });
    temporal.cli(['operator', 'namespace', 'create', '--namespace', namespace]);
    await controller.untilReady(60_000);
  });
});
