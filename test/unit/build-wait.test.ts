import type { HelmChartSpec } from '../../src/api/index.js';
import { buildDelete, buildInstall, planInstall, waitStrategyOf } from '../../src/build/index.js';
import { helmChart, podinfoSpec, tinyChartContent } from './support/charts.js';

function annotated(value: string | undefined, spec: HelmChartSpec = podinfoSpec) {
  const chart = helmChart(spec);
  if (value !== undefined) chart.metadata.annotations = { 'helm.k3sm.io/wait': value };
  return chart;
}

const installArgsOf = (value: string | undefined) =>
  buildInstall({ chart: annotated(value), secrets: {} }).job.spec?.template.spec?.containers[0]?.args ?? [];
const uninstallArgsOf = (value: string | undefined) =>
  buildDelete(annotated(value)).job.spec?.template.spec?.containers[0]?.args ?? [];
const waitFlags = (args: readonly string[]) => args.filter((a) => a.startsWith('--wait'));

describe('the <group>/wait annotation chooses the wait helm runs with', () => {
  it.each([
    ['none', undefined, '--wait'],
    ["watcher (helm 4's default, spelt as the Job has always had it)", 'watcher', '--wait'],
    ["legacy (helm 3's wait)", 'legacy', '--wait=legacy'],
  ])('%s: the install and the uninstall both wait with %s', (_, value, flag) => {
    expect(waitFlags(installArgsOf(value))).toEqual([flag]);
    expect(waitFlags(uninstallArgsOf(value))).toEqual([flag]);
  });

  it('keeps the timeout right after the wait and leaves pre-flight without a wait', () => {
    const args = installArgsOf('legacy');
    expect(args.slice(args.indexOf('--wait=legacy'), args.indexOf('--wait=legacy') + 3)).toEqual([
      '--wait=legacy',
      '--timeout',
      '5m0s',
    ]);
    const pod = buildInstall({ chart: annotated('legacy'), secrets: {} }).job.spec?.template.spec;
    expect(waitFlags(pod?.initContainers?.[0]?.args ?? [])).toEqual([]);
  });

  it("reads the annotation of the chart's own API group only", () => {
    const chart = helmChart({ chartContent: tinyChartContent });
    chart.metadata.annotations = { 'helm.cattle.io/wait': 'legacy' };
    expect(waitStrategyOf(chart.metadata.annotations, 'helm.k3sm.io')).toBe('watcher');
    expect(waitStrategyOf(chart.metadata.annotations, 'helm.cattle.io')).toBe('legacy');
    const args = buildInstall({ chart, secrets: {} }, { group: 'helm.cattle.io' }).job.spec?.template.spec
      ?.containers[0]?.args;
    expect(waitFlags(args ?? [])).toEqual(['--wait=legacy']);
  });

  it.each(['Legacy', 'hookOnly', '', 'legacy '])(
    'refuses %j before building anything: InvalidWait, naming the choices',
    (value) => {
      const plan = planInstall({ chart: annotated(value) });
      expect(plan).toEqual({
        ok: false,
        refusal: {
          reason: 'InvalidWait',
          message: `annotation helm.k3sm.io/wait is ${JSON.stringify(value)}; helm's wait strategies are watcher and legacy`,
        },
      });
    },
  );

  it('refuses a chart that is wrong otherwise for that first (the spec before the annotation)', () => {
    const plan = planInstall({ chart: annotated('nope', { repo: 'http://x', chart: 'c' }) });
    expect(plan.ok ? undefined : plan.refusal.reason).toBe('InsecureRepo');
  });

  it('still uninstalls a chart whose annotation is refused, waiting as helm 4 does', () => {
    expect(waitFlags(uninstallArgsOf('nope'))).toEqual(['--wait']);
  });
});
