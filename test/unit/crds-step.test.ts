import { buildInstall, crdsStepOf, type CrdsKnowledge, type CrdsStep } from '../../src/build/index.js';
import { helmChart, podinfoSpec } from './support/charts.js';

describe('crdsStepOf: whether an attempt compares the chart’s crds/ before its install Job', () => {
  const cases: [string, CrdsKnowledge, CrdsStep][] = [
    [
      'already compared at this digest',
      { digest: 'd2', checkedDigest: 'd2', chartCrds: true, releaseExists: true },
      'install',
    ],
    ['the chart is known to have no CRDs', { digest: 'd2', chartCrds: false }, 'install'],
    ['known to have CRDs, release not looked up', { digest: 'd2', chartCrds: true }, 'lookUpRelease'],
    ['never read, release not looked up', { digest: 'd1' }, 'lookUpRelease'],
    ['known to have CRDs, an upgrade', { digest: 'd2', chartCrds: true, releaseExists: true }, 'checkCrds'],
    [
      'never read, an upgrade (a chart installed before this workflow read its crds/)',
      { digest: 'd2', releaseExists: true },
      'checkCrds',
    ],
    [
      'compared at an older digest, an upgrade',
      { digest: 'd3', checkedDigest: 'd2', chartCrds: true, releaseExists: true },
      'checkCrds',
    ],
    [
      'a first install: helm creates the absent CRDs',
      { digest: 'd1', chartCrds: true, releaseExists: false },
      'install',
    ],
  ];
  it.each(cases)('%s', (_, knowledge, step) => {
    expect(crdsStepOf(knowledge)).toBe(step);
  });
});

describe('helm-crds-<name>', () => {
  // Only a chart helm fetches gets one: a chartContent chart's crds/ are read by the worker from its archive.
  const chart = helmChart(podinfoSpec);
  const { crdsJob, job } = buildInstall({ chart });

  it('prints the chart’s crds/ with no values mounted, once, controlled by its HelmChart', () => {
    const pod = crdsJob.spec?.template.spec;
    expect(crdsJob.metadata?.name).toBe(`helm-crds-${chart.metadata.name}`);
    expect(crdsJob.metadata?.labels?.['helmcharts.helm.k3sm.io/action']).toBe('crds');
    expect(crdsJob.metadata?.ownerReferences).toEqual(job.metadata?.ownerReferences);
    expect(crdsJob.metadata?.annotations?.['helmcharts.helm.k3sm.io/digest']).toBe(
      job.metadata?.annotations?.['helmcharts.helm.k3sm.io/digest'],
    );
    expect(crdsJob.spec?.backoffLimit).toBe(0);
    expect(crdsJob.spec?.ttlSecondsAfterFinished).toBe(600);
    expect(pod?.initContainers).toBeUndefined();
    expect(pod?.containers.map((c) => c.args?.slice(0, 2))).toEqual([['show', 'crds']]);
    // The install Job's own crds step runs the same helm show crds.
    const installCrds = job.spec?.template.spec?.initContainers?.find((c) => c.name === 'crds');
    expect(pod?.containers[0]?.args).toEqual(installCrds?.args);
    expect(pod?.volumes?.map((v) => v.name)).not.toContain('values');
  });

  it('is never needed for a chartContent chart, whose install Job prints no crds/ either', () => {
    const content = helmChart({ chartContent: 'H4sIAAAAAAAAA+3OMQ6CQBCF4a3nFHsC' });
    const init = buildInstall({ chart: content }).job.spec?.template.spec?.initContainers ?? [];
    expect(init.map((c) => c.name)).toEqual(['preflight']);
  });
});
