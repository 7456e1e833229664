import { CoreV1Api, CustomObjectsApi, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';
import { chmodSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { waitFor } from '../../src/lib/wait.js';
import { errorStatus } from '../../src/kube/client.js';
import {
  InsecureManifestPathError,
  MANIFEST_FIELD_MANAGER,
  ManifestDirectory,
  ManifestIdentity,
  ensureManifestIdentity,
  type ManifestDirectoryOptions,
} from '../../src/controller/manifests/index.js';
import { installCrds } from './support/crds.js';
import { freshNamespace, kubeConfig } from './support/kube.js';

const GROUP = 'helm.k3sm.io';
let identity: ManifestIdentity;
const directories: ManifestDirectory[] = [];
const tempDirs: string[] = [];
const namespaces: string[] = [];

beforeAll(async () => {
  await installCrds(GROUP);
  await ensureManifestIdentity(kubeConfig(), GROUP);
  identity = new ManifestIdentity(kubeConfig());
});

afterEach(async () => {
  await Promise.all(directories.splice(0).map((d) => d.stop()));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Namespace deletion takes the test's HelmCharts with it, so a controller started by a later test file
// never finds them.
afterAll(async () => {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await Promise.all(namespaces.map((name) => core.deleteNamespace({ name }).catch(() => undefined)));
});

/** A root-owned 0755 directory under /tmp, as /var/lib/k3sm/manifests would be. */
function manifestDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hf-manifests-'));
  chmodSync(dir, 0o755);
  tempDirs.push(dir);
  return dir;
}

function directory(dir: string, over: Partial<ManifestDirectoryOptions> = {}): ManifestDirectory {
  // A long resync: the tests see the fs.watch path work, or call sweep() themselves.
  const d = new ManifestDirectory({
    directory: dir,
    kubeConfig: () => identity.kubeConfig(),
    resyncIntervalMs: 600_000,
    debounceMs: 50,
    ...over,
  });
  directories.push(d);
  return d;
}

async function namespace(prefix: string): Promise<string> {
  const ns = await freshNamespace(prefix);
  namespaces.push(ns);
  return ns;
}

function helmChart(namespace: string, name: string, valuesContent = 'replicaCount: 1\n'): object {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'HelmChart',
    metadata: { name, namespace },
    spec: { chart: 'oci://registry.example/charts/demo', version: '1.0.0', valuesContent },
  };
}

function writeYaml(dir: string, file: string, ...objects: object[]): string {
  const full = path.join(dir, file);
  writeFileSync(full, objects.map((o) => `---\n${stringify(o)}`).join(''), { mode: 0o644 });
  return full;
}

interface HelmChartObject {
  metadata: { managedFields?: { manager?: string }[] };
  spec: { valuesContent?: string };
}

async function readHelmChart(namespace: string, name: string): Promise<HelmChartObject | undefined> {
  try {
    return (await kubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace,
      plural: 'helmcharts',
      name,
    })) as HelmChartObject;
  } catch (err) {
    if (errorStatus(err) === 404) return undefined;
    throw err;
  }
}

async function deleteHelmChart(namespace: string, name: string): Promise<void> {
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .deleteNamespacedCustomObject({ group: GROUP, version: 'v1', namespace, plural: 'helmcharts', name });
}

/** The Warning Events on the kube-system Namespace with `reason` whose message mentions `text`. */
async function warnings(reason: string, text: string): Promise<CoreV1Event[]> {
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: 'kube-system' });
  return events.items.filter(
    (e) =>
      e.type === 'Warning' &&
      e.reason === reason &&
      e.involvedObject.kind === 'Namespace' &&
      e.involvedObject.name === 'kube-system' &&
      (e.message ?? '').includes(text),
  );
}

describe('the auto-deploy directory', () => {
  it('applies a file present at start, and a file dropped in later, with server-side apply as the manifest identity', async () => {
    const ns = await namespace('manifests-drop');
    const dir = manifestDir();
    writeYaml(dir, 'early.yaml', helmChart(ns, 'early'));
    const first = await directory(dir).start();
    expect(first.files).toEqual([
      {
        file: path.join(dir, 'early.yaml'),
        outcome: 'applied',
        objects: [{ apiVersion: `${GROUP}/v1`, kind: 'HelmChart', namespace: ns, name: 'early' }],
      },
    ]);
    const early = await readHelmChart(ns, 'early');
    expect(early?.metadata.managedFields?.map((f) => f.manager)).toContain(MANIFEST_FIELD_MANAGER);

    writeYaml(dir, 'late.yml', helmChart(ns, 'late'));
    await waitFor('the dropped file to be applied', () => readHelmChart(ns, 'late'), { timeoutMs: 15_000 });
  });

  it('re-applies a changed file', async () => {
    const ns = await namespace('manifests-change');
    const dir = manifestDir();
    writeYaml(dir, 'chart.yaml', helmChart(ns, 'web', 'replicaCount: 1\n'));
    await directory(dir).start();
    expect((await readHelmChart(ns, 'web'))?.spec.valuesContent).toBe('replicaCount: 1\n');
    writeYaml(dir, 'chart.yaml', helmChart(ns, 'web', 'replicaCount: 3\n'));
    await waitFor(
      'the changed file to be re-applied',
      async () => (await readHelmChart(ns, 'web'))?.spec.valuesContent === 'replicaCount: 3\n',
      { timeoutMs: 15_000 },
    );
  });

  it('reports a malformed file with a log line and a Warning Event, and still applies the other files', async () => {
    const ns = await namespace('manifests-bad');
    const dir = manifestDir();
    const bad = path.join(dir, 'broken.yaml');
    writeFileSync(bad, `apiVersion: ${GROUP}/v1\nkind: HelmChart\nmetadata: [unclosed\n`);
    writeYaml(dir, 'good.yaml', helmChart(ns, 'good'));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const sweep = await directory(dir, { logger }).start();
    expect(sweep.files.map((f) => [path.basename(f.file), f.outcome])).toEqual([
      ['broken.yaml', 'failed'],
      ['good.yaml', 'applied'],
    ]);
    expect(await readHelmChart(ns, 'good')).toBeDefined();
    const events = await waitFor('a ManifestInvalid Warning naming the file', async () => {
      const found = await warnings('ManifestInvalid', bad);
      return found.length > 0 ? found : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]?.reportingComponent).toBe('helmflow-manifests');
    const logged = lines.map((l) => JSON.parse(l) as { level: number; file?: string; reason?: string; msg: string });
    const line = logged.find((l) => l.level === 50 && l.file === bad && l.reason === 'ManifestInvalid');
    expect(line?.msg).toContain(`${bad}: document 1:`);
  });

  it('reports a broken file once, not on every sweep', async () => {
    const dir = manifestDir();
    const bad = path.join(dir, 'once.json');
    writeFileSync(bad, '{"apiVersion": "v1", ');
    const d = directory(dir);
    await d.start();
    await d.sweep();
    await d.sweep();
    expect(await warnings('ManifestInvalid', bad)).toHaveLength(1);
  });

  it('refuses a world-writable directory, naming it and its mode, and applies nothing from it', async () => {
    const ns = await namespace('manifests-open');
    const dir = manifestDir();
    writeYaml(dir, 'chart.yaml', helmChart(ns, 'sneaky'));
    chmodSync(dir, 0o777);
    const start = directory(dir).start();
    await expect(start).rejects.toThrow(InsecureManifestPathError);
    await expect(start).rejects.toThrow(`refusing ${dir} (mode 0777`);
    expect(await readHelmChart(ns, 'sneaky')).toBeUndefined();
  });

  it('stops applying, and reports it, when the directory becomes writable by others after start', async () => {
    const ns = await namespace('manifests-opened');
    const dir = manifestDir();
    const d = directory(dir);
    await d.start();
    chmodSync(dir, 0o775);
    writeYaml(dir, 'chart.yaml', helmChart(ns, 'later'));
    const sweep = await d.sweep();
    expect(sweep.refused).toContain(`refusing ${dir} (mode 0775`);
    expect(sweep.files).toEqual([]);
    expect(await readHelmChart(ns, 'later')).toBeUndefined();
    expect(await warnings('ManifestDirectoryRefused', dir)).toHaveLength(1);
  });

  it('leaves the objects when their file is removed; while the file remains, a deleted object comes back', async () => {
    const ns = await namespace('manifests-remove');
    const dir = manifestDir();
    const file = writeYaml(dir, 'keep.yaml', helmChart(ns, 'kept'));
    const d = directory(dir);
    await d.start();
    expect(await readHelmChart(ns, 'kept')).toBeDefined();

    // The file stays: a deleted HelmChart is applied again by the next sweep (test/e2e/seed-coverage.md, "Deleting").
    await deleteHelmChart(ns, 'kept');
    await waitFor('the HelmChart to be gone', async () => (await readHelmChart(ns, 'kept')) === undefined);
    await d.sweep();
    expect(await readHelmChart(ns, 'kept')).toBeDefined();

    unlinkSync(file);
    const after = await d.sweep();
    expect(after.files).toEqual([]);
    expect(await readHelmChart(ns, 'kept')).toBeDefined();
  });

  it('creates the namespace a HelmChart names when it does not exist yet', async () => {
    const ns = `manifests-newns-${Date.now().toString(36)}`;
    namespaces.push(ns);
    const dir = manifestDir();
    writeYaml(dir, 'chart.yaml', helmChart(ns, 'fresh'));
    const sweep = await directory(dir).start();
    expect(sweep.files[0]?.outcome).toBe('applied');
    expect(await readHelmChart(ns, 'fresh')).toBeDefined();
  });

  it('puts a HelmChart without a namespace in kube-system, as k3s does', async () => {
    const dir = manifestDir();
    const name = `manifests-default-${Date.now().toString(36)}`;
    const chart = helmChart('x', name) as { metadata: { namespace?: string } };
    delete chart.metadata.namespace;
    writeYaml(dir, 'chart.yaml', chart);
    await directory(dir).start();
    expect(await readHelmChart('kube-system', name)).toBeDefined();
    await deleteHelmChart('kube-system', name);
  });

  describe('the manifest identity (ClusterRole k3sm-manifest-helm)', () => {
    let manifestKc: KubeConfig;
    beforeAll(async () => {
      manifestKc = await identity.kubeConfig();
    });

    it('is forbidden to create a Secret or a ConfigMap directly', async () => {
      const ns = await namespace('manifests-rbac');
      const core = manifestKc.makeApiClient(CoreV1Api);
      await expect(
        core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, stringData: { a: 'b' } } }),
      ).rejects.toMatchObject({ code: 403 });
      await expect(
        core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' }, data: { a: 'b' } } }),
      ).rejects.toMatchObject({ code: 403 });
    });

    it('so a file with a Secret beside a HelmChart applies the HelmChart and reports the Secret as Forbidden', async () => {
      const ns = await namespace('manifests-forbidden');
      const dir = manifestDir();
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'smuggled', namespace: ns } };
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', namespace: ns } };
      const file = writeYaml(dir, 'mixed.yaml', secret, helmChart(ns, 'allowed'), configMap);
      const sweep = await directory(dir).start();
      const [result] = sweep.files;
      expect(result).toEqual(
        expect.objectContaining({
          outcome: 'failed',
          reason: 'ManifestApplyFailed',
          objects: [{ apiVersion: `${GROUP}/v1`, kind: 'HelmChart', namespace: ns, name: 'allowed' }],
        }),
      );
      expect(result?.outcome === 'failed' ? result.errors : []).toEqual([
        expect.stringMatching(new RegExp(`apply Secret ${ns}/smuggled: .*forbidden.*HTTP 403`)),
        expect.stringMatching(new RegExp(`apply ConfigMap ${ns}/plain: .*forbidden.*HTTP 403`)),
      ]);
      expect(await readHelmChart(ns, 'allowed')).toBeDefined();
      const core = kubeConfig().makeApiClient(CoreV1Api);
      await expect(core.readNamespacedSecret({ namespace: ns, name: 'smuggled' })).rejects.toMatchObject({
        code: 404,
      });
      expect(await warnings('ManifestApplyFailed', file)).toHaveLength(1);
    });

    it('applies a plain ConfigMap when the directory is given an identity that may (the mechanism is generic)', async () => {
      const ns = await namespace('manifests-cm');
      const dir = manifestDir();
      writeYaml(dir, 'cm.yaml', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'plain', namespace: ns },
        data: { a: '1' },
      });
      await directory(dir, { kubeConfig: () => kubeConfig() }).start();
      const cm = await kubeConfig().makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: ns, name: 'plain' });
      expect(cm.data).toEqual({ a: '1' });
    });
  });
});
