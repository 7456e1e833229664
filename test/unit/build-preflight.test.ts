import type { ApiGroup, HelmChartSpec } from '../../src/api/index.js';
import {
  buildDelete,
  buildInstall,
  CRDS_CONTAINER,
  desiredDigest,
  PREFLIGHT_CONTAINER,
} from '../../src/build/index.js';
import { helmChart, podinfoSpec, tinyChartContent } from './support/charts.js';

function podOf(spec: HelmChartSpec) {
  const pod = buildInstall({ chart: helmChart(spec), secrets: {} }).job.spec?.template.spec;
  if (pod === undefined) throw new Error('no pod template');
  return pod;
}

describe('the install Job runs pre-flight first', () => {
  it('renders the same chart, version and values with helm template --dry-run=server, into files, changing nothing', () => {
    const pod = podOf(podinfoSpec);
    const [preflight] = pod.initContainers ?? [];
    expect(preflight?.name).toBe(PREFLIGHT_CONTAINER);
    expect(preflight?.command).toEqual(['helm']);
    expect(preflight?.args).toEqual([
      'template',
      'podinfo',
      'podinfo',
      '--namespace',
      'apps',
      '--repo',
      'https://stefanprodan.github.io/podinfo',
      '--version',
      '6.7.1',
      '--dry-run=server',
      '--output-dir',
      'tmp/preflight',
      '--values',
      'values/values-001-HelmChart-valuesContent.yaml',
      '--set-file',
      'ui.message=values/set-001',
    ]);
    // helm's error becomes the termination message on any kubelet.
    expect(preflight?.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('runs as the install container does: same image, identity, environment and volumes', () => {
    const pod = podOf({ ...podinfoSpec, jobImage: 'example.com/helm:own' });
    const [preflight] = pod.initContainers ?? [];
    const [helm] = pod.containers;
    for (const key of ['image', 'workingDir', 'env', 'volumeMounts', 'securityContext'] as const) {
      expect(preflight?.[key]).toEqual(helm?.[key]);
    }
    expect(preflight?.image).toBe('example.com/helm:own');
  });

  it('passes takeOwnership on (ownership is part of what the dry run checks) and nothing that only applying uses', () => {
    const args = podOf({ ...podinfoSpec, takeOwnership: true, serverSide: 'true', forceConflicts: true, timeout: '2m' })
      .initContainers?.[0]?.args;
    expect(args).toContain('--take-ownership');
    for (const flag of ['--install', '--wait', '--timeout', '--create-namespace', '--force-conflicts']) {
      expect(args).not.toContain(flag);
    }
    expect(args?.some((a) => a.startsWith('--server-side'))).toBe(false);
  });

  it('renders a chartContent archive from its mounted file', () => {
    const args = podOf({ chartContent: tinyChartContent }).initContainers?.[0]?.args ?? [];
    expect(args.slice(0, 3)).toEqual(['template', 'podinfo', 'chart/chart.tgz']);
  });

  it("then prints the chart's crds/ with helm show crds of the same chart and version, before helm upgrade", () => {
    const init = podOf(podinfoSpec).initContainers ?? [];
    expect(init.map((c) => c.name)).toEqual([PREFLIGHT_CONTAINER, CRDS_CONTAINER]);
    expect(init[1]?.args).toEqual([
      'show',
      'crds',
      'podinfo',
      '--repo',
      'https://stefanprodan.github.io/podinfo',
      '--version',
      '6.7.1',
    ]);
  });

  it('has no crds step for a chartContent chart: the worker reads its crds/ from the archive', () => {
    expect(podOf({ chartContent: tinyChartContent }).initContainers?.map((c) => c.name)).toEqual([PREFLIGHT_CONTAINER]);
  });

  it('is not part of the uninstall Job', () => {
    expect(buildDelete(helmChart(podinfoSpec)).job.spec?.template.spec?.initContainers).toBeUndefined();
  });
});

describe('a HelmChart annotated <group>/preflight: skip gets an install Job without pre-flight', () => {
  const jobOf = (annotations: Record<string, string> | undefined, group: ApiGroup = 'helm.k3sm.io') =>
    buildInstall({ chart: helmChart(podinfoSpec, { annotations }), secrets: {} }, { group }).job;
  const initOf = (annotations: Record<string, string> | undefined, group?: ApiGroup) =>
    (jobOf(annotations, group).spec?.template.spec?.initContainers ?? []).map((c) => c.name);

  it.each<[string, Record<string, string> | undefined, ApiGroup, string[]]>([
    ['no annotation: pre-flight, then crds', undefined, 'helm.k3sm.io', [PREFLIGHT_CONTAINER, CRDS_CONTAINER]],
    ['skip: crds only', { 'helm.k3sm.io/preflight': 'skip' }, 'helm.k3sm.io', [CRDS_CONTAINER]],
    [
      "run (the default's own name): pre-flight kept",
      { 'helm.k3sm.io/preflight': 'run' },
      'helm.k3sm.io',
      [PREFLIGHT_CONTAINER, CRDS_CONTAINER],
    ],
    [
      "another group's key: pre-flight kept",
      { 'helm.cattle.io/preflight': 'skip' },
      'helm.k3sm.io',
      [PREFLIGHT_CONTAINER, CRDS_CONTAINER],
    ],
    [
      "the served group's key (helm.cattle.io): crds only",
      { 'helm.cattle.io/preflight': 'skip' },
      'helm.cattle.io',
      [CRDS_CONTAINER],
    ],
  ])('%s', (_, annotations, group, init) => {
    expect(initOf(annotations, group)).toEqual(init);
  });

  it('changes nothing else in the Job: the crds step and helm upgrade are the same', () => {
    const kept = jobOf(undefined).spec?.template.spec;
    const skipped = jobOf({ 'helm.k3sm.io/preflight': 'skip' }).spec?.template.spec;
    expect(skipped?.containers).toEqual(kept?.containers);
    expect(skipped?.initContainers?.[0]).toEqual(kept?.initContainers?.[1]);
    expect(skipped?.volumes).toEqual(kept?.volumes);
  });

  it('says so on the Job, so its reports can tell a skipped pre-flight from a Job made before pre-flight', () => {
    expect(jobOf({ 'helm.k3sm.io/preflight': 'skip' }).metadata?.annotations?.['helm.k3sm.io/preflight']).toBe('skip');
    expect(jobOf(undefined).metadata?.annotations?.['helm.k3sm.io/preflight']).toBeUndefined();
  });

  it('is part of the desired digest, so adding or removing it replaces the install Job', () => {
    const digestOf = (annotations: Record<string, string> | undefined) =>
      desiredDigest(helmChart(podinfoSpec, { annotations }), undefined, {});
    expect(digestOf({ 'helm.k3sm.io/preflight': 'skip' })).not.toBe(digestOf(undefined));
    // Only when it skips: a chart without it keeps the digest it had before the annotation existed.
    expect(digestOf({ 'helm.k3sm.io/preflight': 'run' })).toBe(digestOf(undefined));
    expect(jobOf({ 'helm.k3sm.io/preflight': 'skip' }).metadata?.annotations?.['helmcharts.helm.k3sm.io/digest']).toBe(
      digestOf({ 'helm.k3sm.io/preflight': 'skip' }),
    );
  });
});
