import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import {
  API_GROUPS,
  MAX_CHART_BYTES,
  MAX_CHART_CONTENT_CHARS,
  RESERVED_FIELDS,
  crdFilePath,
  crdsFor,
  helmChartConfigCrd,
  helmChartCrd,
  renderCrdsYaml,
  type HelmChartSpec,
  type OpenApiSchema,
} from '../../src/api/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function specOf(group: (typeof API_GROUPS)[number], which: 'chart' | 'config'): OpenApiSchema {
  const crd = which === 'chart' ? helmChartCrd(group) : helmChartConfigCrd(group);
  const root = crd.spec.versions[0]?.schema.openAPIV3Schema;
  const spec = root?.properties?.spec;
  if (spec === undefined) throw new Error('no spec schema');
  return spec;
}

function field(schema: OpenApiSchema, name: string): OpenApiSchema {
  const f = schema.properties?.[name];
  if (f === undefined) throw new Error(`no field ${name}`);
  return f;
}

describe('generated CRDs', () => {
  it.each(API_GROUPS)('deploy/crds/%s.yaml is what src/api generates (run npm run gen:crds)', (group) => {
    const committed = readFileSync(path.join(root, crdFilePath(group)), 'utf8');
    expect(committed).toBe(renderCrdsYaml(group));
  });

  it.each(API_GROUPS)('the %s file holds both CRDs, parseable, for that group only', (group) => {
    const docs = parseAllDocuments(renderCrdsYaml(group)).map((d) => d.toJS() as ReturnType<typeof helmChartCrd>);
    expect(docs.map((d) => d.metadata.name)).toEqual([`helmcharts.${group}`, `helmchartconfigs.${group}`]);
    expect(docs).toEqual(crdsFor(group));
  });
});

describe('HelmChart CRD', () => {
  const crd = helmChartCrd('helm.k3sm.io');
  const version = crd.spec.versions[0];

  it('is helm.k3sm.io/v1 HelmChart, namespaced, short name hc, with a status subresource', () => {
    expect(crd.spec.group).toBe('helm.k3sm.io');
    expect(crd.spec.names).toMatchObject({ kind: 'HelmChart', plural: 'helmcharts', shortNames: ['hc'] });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(version?.name).toBe('v1');
    expect(version?.subresources).toEqual({ status: {} });
  });

  it('selects helm.cattle.io as a drop-in for k3s', () => {
    expect(helmChartCrd('helm.cattle.io').metadata.name).toBe('helmcharts.helm.cattle.io');
    expect(helmChartCrd('helm.cattle.io').spec.group).toBe('helm.cattle.io');
  });

  it('prints Repo, Chart, Version, TargetNamespace, Bootstrap, Failed and Job, Job shown by default', () => {
    const columns = version?.additionalPrinterColumns ?? [];
    expect(columns.map((c) => c.name).slice(0, 7)).toEqual([
      'Repo',
      'Chart',
      'Version',
      'TargetNamespace',
      'Bootstrap',
      'Failed',
      'Job',
    ]);
    const byName = Object.fromEntries(columns.map((c) => [c.name, c]));
    expect(byName.Failed?.jsonPath).toBe(".status.conditions[?(@.type=='Failed')].status");
    expect(byName.Job).toMatchObject({ jsonPath: '.status.jobName', priority: 0 });
    expect(byName.Bootstrap?.type).toBe('boolean');
  });

  it("has k3s's field names, and the defaults failurePolicy reinstall and driver secret", () => {
    const spec = specOf('helm.k3sm.io', 'chart');
    expect(Object.keys(spec.properties ?? {}).sort()).toEqual(
      [
        'targetNamespace',
        'createNamespace',
        'chart',
        'version',
        'repo',
        'repoCA',
        'repoCAConfigMap',
        'set',
        'values',
        'valuesContent',
        'valuesSecrets',
        'helmVersion',
        'bootstrap',
        'takeOwnership',
        'serverSide',
        'forceConflicts',
        'chartContent',
        'jobImage',
        'backOffLimit',
        'timeout',
        'failurePolicy',
        'authSecret',
        'authPassCredentials',
        'insecureSkipTLSVerify',
        'plainHTTP',
        'dockerRegistrySecret',
        'podSecurityContext',
        'securityContext',
        'driver',
      ].sort(),
    );
    expect(field(spec, 'failurePolicy')).toMatchObject({ default: 'reinstall', enum: ['abort', 'reinstall', 'retry'] });
    expect(field(spec, 'driver')).toMatchObject({ default: 'secret', enum: ['secret', 'configmap'] });
    expect(field(spec, 'serverSide')).toMatchObject({ type: 'string', enum: ['true', 'false', 'auto'] });
    expect(field(spec, 'set').additionalProperties).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(field(spec, 'values')['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(field(spec, 'backOffLimit')).toMatchObject({ type: 'integer', format: 'int32', minimum: 0 });
  });

  it('makes driver immutable with a transition rule', () => {
    const rules = field(specOf('helm.k3sm.io', 'chart'), 'driver')['x-kubernetes-validations'] ?? [];
    expect(rules).toEqual([{ rule: 'self == oldSelf', message: expect.stringContaining('immutable') as string }]);
  });

  it('refuses every reserved k3s field with a message that says so', () => {
    const rules = specOf('helm.k3sm.io', 'chart')['x-kubernetes-validations'] ?? [];
    for (const name of Object.keys(RESERVED_FIELDS)) {
      const rule = rules.find((r) => r.rule.includes(`self.${name}`));
      expect(rule?.message).toContain(`spec.${name} is a reserved k3s field and is not supported`);
    }
  });

  it('refuses http:// in repo and chart, any letter case', () => {
    const spec = specOf('helm.k3sm.io', 'chart');
    for (const name of ['repo', 'chart']) {
      const rules = field(spec, name)['x-kubernetes-validations'] ?? [];
      expect(rules[0]).toEqual({
        rule: "!self.matches(r'^[hH][tT][tT][pP]://')",
        message: expect.stringContaining('must not use http://') as string,
      });
    }
  });

  it('bounds chartContent at the longest base64 of an archive under 1 MiB', () => {
    // base64 of (1 MiB − 1) bytes is the longest accepted; of 1 MiB it is 4 characters longer.
    expect(Buffer.alloc(MAX_CHART_BYTES - 1).toString('base64')).toHaveLength(MAX_CHART_CONTENT_CHARS);
    expect(Buffer.alloc(MAX_CHART_BYTES).toString('base64')).toHaveLength(MAX_CHART_CONTENT_CHARS + 4);
    const rules = field(specOf('helm.k3sm.io', 'chart'), 'chartContent')['x-kubernetes-validations'];
    expect(rules?.[0]?.rule).toBe('self.size() <= 1398100');
  });

  it('limits the name to 50 characters at the root, where CEL sees metadata.name (see name-limits.test.ts)', () => {
    const rules = version?.schema.openAPIV3Schema['x-kubernetes-validations'] ?? [];
    expect(rules).toEqual([
      {
        rule: 'oldSelf.hasValue() || self.metadata.name.size() <= 50',
        message: expect.stringContaining('at most 50') as string,
        optionalOldSelf: true,
      },
    ]);
  });

  it('refuses credentials in repo and chart URLs, of any scheme', () => {
    for (const name of ['repo', 'chart']) {
      const rules = field(specOf('helm.k3sm.io', 'chart'), name)['x-kubernetes-validations'] ?? [];
      expect(rules).toContainEqual({
        rule: "!self.matches(r'^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@')",
        message: expect.stringContaining(`spec.${name} must not carry credentials`) as string,
      });
    }
  });

  it('checks timeout as a positive Go duration', () => {
    const rules = field(specOf('helm.k3sm.io', 'chart'), 'timeout')['x-kubernetes-validations'];
    expect(rules?.[0]?.rule).toContain("duration(self) > duration('0s')");
  });

  it('bounds every string a CEL rule reads, so the rules fit the cost budget', () => {
    const spec = specOf('helm.k3sm.io', 'chart');
    for (const name of ['repo', 'chart', 'timeout', 'targetNamespace', 'helmVersion']) {
      expect(field(spec, name).maxLength).toBeGreaterThan(0);
    }
    expect(field(spec, 'valuesSecrets').maxItems).toBe(20);
  });
});

describe('HelmChartConfig CRD', () => {
  it('has short name hcc and the overlay fields, with no failurePolicy default', () => {
    const crd = helmChartConfigCrd('helm.k3sm.io');
    expect(crd.spec.names).toMatchObject({ kind: 'HelmChartConfig', shortNames: ['hcc'] });
    const spec = specOf('helm.k3sm.io', 'config');
    expect(Object.keys(spec.properties ?? {}).sort()).toEqual(
      ['values', 'valuesContent', 'valuesSecrets', 'failurePolicy', 'serverSide', 'forceConflicts'].sort(),
    );
    // A default would make every HelmChartConfig override the HelmChart's failurePolicy.
    expect(field(spec, 'failurePolicy').default).toBeUndefined();
  });
});

describe('types inferred from the schema', () => {
  it('follow the enums and shapes the CRD enforces', () => {
    const spec: HelmChartSpec = {
      failurePolicy: 'abort',
      serverSide: 'auto',
      driver: 'configmap',
      set: { replicas: 1, message: 'hi' },
      valuesSecrets: [{ name: 's', keys: ['k'], ignoreUpdates: true }],
    };
    // @ts-expect-error failurePolicy is an enum in the schema
    const badPolicy: HelmChartSpec = { failurePolicy: 'sometimes' };
    // @ts-expect-error serverSide is a string enum, as in k3s, not a boolean
    const badServerSide: HelmChartSpec = { serverSide: true };
    // @ts-expect-error set values are integers or strings
    const badSet: HelmChartSpec = { set: { a: true } };
    expect([spec, badPolicy, badServerSide, badSet]).toHaveLength(4);
  });
});
