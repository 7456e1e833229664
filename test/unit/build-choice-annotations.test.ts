import type { HelmChartSpec } from '../../src/api/index.js';
import { buildInstall, planInstall } from '../../src/build/index.js';
import { helmChart, podinfoSpec } from './support/charts.js';

const planOf = (annotations: Record<string, string>, spec: HelmChartSpec = podinfoSpec) =>
  planInstall({ chart: helmChart(spec, { annotations }) });
const jobOf = (annotations: Record<string, string> | undefined) =>
  buildInstall({ chart: helmChart(podinfoSpec, annotations === undefined ? {} : { annotations }), secrets: {} }).job;

describe('annotations that choose how a chart installs refuse a value they do not have', () => {
  it.each([
    ['helm.k3sm.io/preflight', 'true', 'InvalidPreflight', 'its values are run and skip'],
    ['helm.k3sm.io/preflight', 'Skip', 'InvalidPreflight', 'its values are run and skip'],
    ['helm.k3sm.io/preflight', '', 'InvalidPreflight', 'its values are run and skip'],
    ['helm.k3sm.io/crds', 'aply', 'InvalidCrds', 'its values are report and apply'],
    ['helm.k3sm.io/crds', 'true', 'InvalidCrds', 'its values are report and apply'],
    ['helm.k3sm.io/wait', 'Legacy', 'InvalidWait', "helm's wait strategies are watcher and legacy"],
  ])('%s: %j is refused before anything is built, with %s', (key, value, reason, choices) => {
    expect(planOf({ [key]: value })).toEqual({
      ok: false,
      refusal: { reason, message: `annotation ${key} is ${JSON.stringify(value)}; ${choices}` },
    });
  });

  it.each([
    ['helm.k3sm.io/preflight', 'run'],
    ['helm.k3sm.io/preflight', 'skip'],
    ['helm.k3sm.io/crds', 'report'],
    ['helm.k3sm.io/crds', 'apply'],
    ['helm.k3sm.io/wait', 'watcher'],
    ['helm.k3sm.io/wait', 'legacy'],
  ])('%s: %s is planned', (key, value) => {
    expect(planOf({ [key]: value }).ok).toBe(true);
  });

  it("reads the served group's keys only: another group's typo is not helmflow's annotation", () => {
    expect(planOf({ 'helm.cattle.io/preflight': 'nope', 'helm.cattle.io/crds': 'nope' }).ok).toBe(true);
    const cattle = planInstall(
      { chart: helmChart(podinfoSpec, { annotations: { 'helm.cattle.io/crds': 'nope' } }) },
      { group: 'helm.cattle.io' },
    );
    expect(cattle.ok ? undefined : cattle.refusal.reason).toBe('InvalidCrds');
  });

  it('names the spec first, then the annotations in the order pre-flight, crds, wait', () => {
    const plan = planOf({ 'helm.k3sm.io/wait': 'x', 'helm.k3sm.io/crds': 'x' }, { repo: 'http://x', chart: 'c' });
    expect(plan.ok ? undefined : plan.refusal.reason).toBe('InsecureRepo');
    const crdsFirst = planOf({ 'helm.k3sm.io/wait': 'x', 'helm.k3sm.io/crds': 'x' });
    expect(crdsFirst.ok ? undefined : crdsFirst.refusal.reason).toBe('InvalidCrds');
  });

  it("builds the same Job spec for the defaults' own names, and for crds: apply, as for no annotation", () => {
    const spec = (annotations: Record<string, string> | undefined) => jobOf(annotations).spec;
    expect(spec({ 'helm.k3sm.io/preflight': 'run', 'helm.k3sm.io/crds': 'report' })).toEqual(spec(undefined));
    expect(spec({ 'helm.k3sm.io/crds': 'apply' })).toEqual(spec(undefined));
  });
});
