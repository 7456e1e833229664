import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../../src/config/pins.js';
import { helm } from './support/helmcharts.js';
import { freshNamespace, kubectl } from './support/kube.js';

/**
 * What a platform team expects of deploy/chart/helmflow beyond rendering: names scoped to the release (so a
 * second release, cluster-scoped RBAC included, never collides with the first), values checked by
 * values.schema.json before anything renders, disruption budgets, and a metrics endpoint to scrape.
 */

const CHART = path.join(repoRoot, 'deploy', 'chart', 'helmflow');

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

function render(
  release: string,
  namespace: string,
  args: string[] = [],
): { status: number; stdout: string; stderr: string } {
  return helm(['template', release, CHART, '--namespace', namespace, ...args]);
}

function objects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

function rendered(release: string, namespace: string, args: string[] = []): KubeObject[] {
  const result = render(release, namespace, args);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return objects(result.stdout);
}

const identity = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

describe('deploy/chart/helmflow scoped to its release', () => {
  it('gives a second release names of its own, cluster-scoped RBAC included', () => {
    const first = rendered('helmflow', 'helmflow-system').map(identity);
    const second = rendered('blue', 'helmflow-system').map(identity);
    expect(second).toContain('ClusterRole//blue-helmflow-controller');
    expect(second).toContain('Deployment/helmflow-system/blue-helmflow-worker');
    // The only objects both share are the ones Kubernetes itself names (cluster-admin is a roleRef, not an object).
    expect(first.filter((id) => second.includes(id))).toEqual([]);
  });

  it('renders two releases in one namespace that the apiserver accepts side by side', async () => {
    const namespace = await freshNamespace('two-releases');
    const text = [render('green', namespace).stdout, render('blue', namespace).stdout].join('\n---\n');
    const result = kubectl(['apply', '--dry-run=server', '-f', '-'], text);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const accepted = result.stdout.split('\n').filter((l) => l.endsWith('(server dry run)'));
    expect(accepted).toHaveLength(objects(text).length);
  });

  it('points every reference at the release-scoped names (ServiceAccount, ConfigMap, role bindings)', () => {
    const all = rendered('blue', 'apps');
    const worker = all.find((o) => o.kind === 'Deployment' && o.metadata.name === 'blue-helmflow-worker');
    const text = JSON.stringify(worker);
    expect(text).toContain('"serviceAccountName":"blue-helmflow-worker"');
    expect(text).toContain('"configMapRef":{"name":"blue-helmflow"}');
    const bindings = all.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');
    expect(bindings.length).toBeGreaterThan(2);
    for (const binding of bindings) {
      const { subjects, roleRef } = binding as unknown as { subjects: { name: string }[]; roleRef: { name: string } };
      expect(subjects.map((s) => s.name).every((name) => name.startsWith('blue-helmflow-'))).toBe(true);
      if (roleRef.name !== 'cluster-admin') expect(roleRef.name).toMatch(/^blue-helmflow-/);
    }
  });
});

describe('deploy/chart/helmflow values', () => {
  it.each([
    [['--set', 'worker.replicas=two'], /worker\/replicas.*want integer/],
    [['--set', 'temporl.address=x'], /additional properties 'temporl' not allowed/],
    [['--set', 'logLevel=loud'], /logLevel/],
    [['--set', 'group=example.com'], /group/],
    [['--set', 'temporal.tls.secretName=tls', '--set', 'temporal.tls.clientCertificate=false'], /selects nothing/],
  ])('are refused by values.schema.json before anything renders: %j', (args, message) => {
    const result = render('helmflow', 'helmflow-system', args);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });

  it('passes extraEnv, pod annotations and labels, and the Temporal Cloud API key from a Secret', () => {
    const all = rendered('helmflow', 'helmflow-system', [
      '--set',
      'extraEnv[0].name=HTTPS_PROXY',
      '--set',
      'extraEnv[0].value=http://proxy:3128',
      '--set',
      'podAnnotations.example\\.com/team=platform',
      '--set',
      'podLabels.tier=infra',
      '--set',
      'temporal.apiKey.secretName=temporal-cloud',
    ]);
    const config = all.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(config.data.TEMPORAL_TLS).toBe('true');
    expect(JSON.stringify(config.data)).not.toContain('temporal-cloud');
    for (const deployment of all.filter((o) => o.kind === 'Deployment')) {
      const pod = (deployment.spec as { template: { metadata: { labels: object; annotations: object } } }).template;
      expect(pod.metadata.annotations).toMatchObject({ 'example.com/team': 'platform' });
      expect(pod.metadata.labels).toMatchObject({ tier: 'infra' });
      const env = JSON.stringify(deployment.spec);
      expect(env).toContain(
        '{"name":"TEMPORAL_API_KEY","valueFrom":{"secretKeyRef":{"name":"temporal-cloud","key":"api-key"}}}',
      );
      expect(env).toContain('{"name":"HTTPS_PROXY","value":"http://proxy:3128"}');
    }
  });

  it('budgets disruptions only for Deployments with more than one replica', () => {
    const budgets = (args: string[]) =>
      rendered('helmflow', 'helmflow-system', args)
        .filter((o) => o.kind === 'PodDisruptionBudget')
        .map((o) => o.metadata.name);
    expect(budgets([])).toEqual(['helmflow-controller', 'helmflow-worker']);
    expect(budgets(['--set', 'worker.replicas=1'])).toEqual(['helmflow-controller']);
    expect(budgets(['--set', 'podDisruptionBudget.enabled=false'])).toEqual([]);
  });

  it('serves /metrics through a Service, and a PodMonitor when asked', () => {
    const kinds = (args: string[]) => rendered('helmflow', 'helmflow-system', args).map((o) => o.kind);
    expect(kinds([])).toContain('Service');
    expect(kinds([])).not.toContain('PodMonitor');
    expect(kinds(['--set', 'metrics.podMonitor.enabled=true'])).toContain('PodMonitor');
    expect(kinds(['--set', 'metrics.service.enabled=false'])).not.toContain('Service');
  });
});
