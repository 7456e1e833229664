import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { API_GROUPS, crdFilePath, renderCrdsYaml } from '../../src/api/index.js';
import { settingSpecs } from '../../src/app/setting-specs.js';
import { manifestRbacFilePath, renderManifestRbacYaml } from '../../src/controller/manifests/index.js';
import { SHUTDOWN_EXIT_SECONDS } from '../../src/worker/shutdown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Kustomization {
  resources: string[];
}
const kustomization = parse(read('deploy/kustomization.yaml')) as Kustomization;
const settingEnvs: string[] = Object.values(settingSpecs).map((s) => s.env);

describe('deploy/: generated files are what the sources generate', () => {
  // Helm installs crds/ before the templates and never upgrades or deletes it (seeds 003/004): the CRDs are
  // the cluster's, not the release's. The chart carries the default group's; helm.cattle.io is --skip-crds.
  it('the chart crds/ holds the helm.k3sm.io CRDs exactly as renderCrdsYaml generates them (npm run gen:crds)', () => {
    expect(readdirSync(path.join(root, 'deploy/chart/helmflow/crds'))).toEqual(['helm.k3sm.io.yaml']);
    expect(read('deploy/chart/helmflow/crds/helm.k3sm.io.yaml')).toBe(renderCrdsYaml('helm.k3sm.io'));
  });

  it.each(API_GROUPS)('deploy/crds for %s is what renderCrdsYaml generates', (group) => {
    expect(read(crdFilePath(group))).toBe(renderCrdsYaml(group));
  });

  it.each(API_GROUPS)('deploy/rbac for %s is what the manifest rbac generator writes', (group) => {
    expect(read(manifestRbacFilePath(group))).toBe(renderManifestRbacYaml(group));
  });
});

describe('deploy/kustomization.yaml', () => {
  it('lists only files that exist, each holding Kubernetes objects', () => {
    expect(kustomization.resources.length).toBeGreaterThan(0);
    for (const resource of kustomization.resources) {
      const documents = parseAllDocuments(read(path.join('deploy', resource)))
        .map((d) => d.toJS() as { apiVersion?: string; kind?: string } | null)
        .filter((d) => d !== null);
      expect({ resource, empty: documents.length === 0 }).toEqual({ resource, empty: false });
      for (const d of documents) expect(typeof d.apiVersion === 'string' && typeof d.kind === 'string').toBe(true);
    }
  });

  it('includes the default group CRDs, the manifest identity and every file of deploy/helmflow', () => {
    const helmflow = readdirSync(path.join(root, 'deploy/helmflow'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `helmflow/${f}`);
    expect(helmflow.length).toBeGreaterThan(0);
    expect([...kustomization.resources].sort()).toEqual(
      ['crds/helm.k3sm.io.yaml', 'rbac/manifest-role.yaml', ...helmflow].sort(),
    );
  });
});

describe('settings given to the Deployments', () => {
  it('every key of the deploy/helmflow ConfigMap is a helmflow setting, and the in-cluster ones are set', () => {
    const configMap = parse(read('deploy/helmflow/config.yaml')) as { data: Record<string, string> };
    const keys = Object.keys(configMap.data);
    expect(keys.filter((k) => !settingEnvs.includes(k) && k !== 'HELMFLOW_LOG_LEVEL')).toEqual([]);
    expect(configMap.data).toMatchObject({
      HELMFLOW_HTTP_HOST: '0.0.0.0',
      HELMFLOW_HTTP_PORT: '9090',
      HELMFLOW_MANIFESTS_DIR: '',
      HELMFLOW_GROUP: 'helm.k3sm.io',
    });
  });

  it('every key of the chart ConfigMap template is a helmflow setting', () => {
    const keys = [...read('deploy/chart/helmflow/templates/configmap.yaml').matchAll(/^ {2}([A-Z][A-Z_]+):/gm)].map(
      (m) => m[1] ?? '',
    );
    expect(keys).toContain('TEMPORAL_ADDRESS');
    expect(keys.filter((k) => !settingEnvs.includes(k) && k !== 'HELMFLOW_LOG_LEVEL')).toEqual([]);
  });
});

describe('termination grace', () => {
  // Kubernetes SIGKILLs a pod at the end of its grace period: a worker killed before it has handed its Job waits
  // back leaves them to a heartbeat timeout. Each helmflow pod is given longer than the process takes at most.
  interface Values {
    controller: { terminationGracePeriodSeconds: number };
    worker: { terminationGracePeriodSeconds: number };
  }
  interface Deployment {
    spec: { template: { spec: { terminationGracePeriodSeconds?: number } } };
  }

  it('the chart gives each Deployment longer than a helmflow process takes to exit after SIGTERM', () => {
    const values = parse(read('deploy/chart/helmflow/values.yaml')) as Values;
    expect(values.worker.terminationGracePeriodSeconds).toBeGreaterThan(SHUTDOWN_EXIT_SECONDS);
    expect(values.controller.terminationGracePeriodSeconds).toBeGreaterThan(SHUTDOWN_EXIT_SECONDS);
  });

  it.each(['worker', 'controller'])('deploy/helmflow/%s.yaml does too', (role) => {
    const deployment = parse(read(`deploy/helmflow/${role}.yaml`)) as Deployment;
    // Unset is Kubernetes's default, 30 s.
    const grace = deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30;
    expect(grace).toBeGreaterThan(SHUTDOWN_EXIT_SECONDS);
  });
});
