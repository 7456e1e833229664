import type { V1ObjectMeta } from '@kubernetes/client-node';
import {
  MAX_CHART_NAME,
  MAX_LABEL_VALUE,
  Message,
  Reason,
  helmChartCrd,
  helmChartConfigCrd,
  validateHelmChart,
  validateHelmChartConfig,
} from '../../src/api/index.js';
import { buildDelete, buildInstall } from '../../src/build/index.js';
import { helmChart, helmChartConfig, tinyChartContent } from './support/charts.js';

/**
 * Issue 8 point 1: a name is accepted exactly when every object built from it is valid, the Job names included:
 * the Job controller puts a Job's name in its pods' job-name label, so it must fit a label value.
 */

const DNS_SUBDOMAIN_MAX = 253;

function builtNamesFit(name: string): boolean {
  const chart = helmChart({ chartContent: tinyChartContent }, { name });
  const install = buildInstall({ chart });
  const remove = buildDelete(chart);
  const metas: V1ObjectMeta[] = [
    install.serviceAccount.metadata ?? {},
    install.clusterRoleBinding.metadata ?? {},
    install.valuesSecret.metadata ?? {},
    install.chartContent?.metadata ?? {},
    install.job.metadata ?? {},
    install.job.spec?.template.metadata ?? {},
    remove.job.metadata ?? {},
    remove.job.spec?.template.metadata ?? {},
  ];
  const jobNames = [install.job.metadata?.name ?? '', remove.job.metadata?.name ?? ''];
  return (
    metas.every((m) => (m.name ?? '').length <= DNS_SUBDOMAIN_MAX) &&
    metas.every((m) => Object.values(m.labels ?? {}).every((v) => v.length <= MAX_LABEL_VALUE)) &&
    jobNames.every((n) => n.length <= MAX_LABEL_VALUE)
  );
}

describe('the longest HelmChart name', () => {
  it('is 50: helm-install-<name> must fit a 63-character label', () => {
    expect(MAX_CHART_NAME).toBe(50);
    expect(Message.nameTooLong).toBe(
      'metadata.name must be at most 50 characters: the Job helm-install-<name> must fit a 63-character label; the release limit of 53 is not the binding one',
    );
  });

  const lengths = Array.from({ length: 63 }, (_, i) => i + 1);
  it.each(lengths)('a name of %i characters is accepted exactly when every name built from it fits', (length) => {
    const name = 'n'.repeat(length);
    const refusal = validateHelmChart(helmChart({ chartContent: tinyChartContent }, { name }));
    const fits = builtNamesFit(name);
    expect(fits).toBe(length <= 50);
    expect(refusal).toEqual(fits ? undefined : { reason: Reason.NameTooLong, message: Message.nameTooLong });
    const configRefusal = validateHelmChartConfig(helmChartConfig({}, { name }));
    expect(configRefusal?.reason).toBe(fits ? undefined : Reason.NameTooLong);
  });

  it('is refused at the apiserver on create by a CEL rule at the root of both CRDs, with the same message', () => {
    const rootRules = (crd: ReturnType<typeof helmChartCrd>) =>
      crd.spec.versions[0]?.schema.openAPIV3Schema['x-kubernetes-validations'];
    for (const group of ['helm.k3sm.io', 'helm.cattle.io'] as const) {
      const rule = 'oldSelf.hasValue() || self.metadata.name.size() <= 50';
      expect(rootRules(helmChartCrd(group))).toEqual([{ rule, message: Message.nameTooLong, optionalOldSelf: true }]);
      expect(rootRules(helmChartConfigCrd(group))).toEqual([
        { rule, message: Message.configNameTooLong, optionalOldSelf: true },
      ]);
    }
  });
});
