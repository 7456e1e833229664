import { crdDrift, describeDrift, parseChartCrds, type CrdLike, type SchemaLike } from '../../src/api/index.js';

const props = (fields: Record<string, SchemaLike>): SchemaLike => ({ type: 'object', properties: fields });
const crd = (versions: Record<string, Record<string, SchemaLike> | undefined>): CrdLike => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    versions: Object.entries(versions).map(([name, spec]) => ({
      name,
      ...(spec === undefined ? {} : { schema: { openAPIV3Schema: props({ spec: props(spec) }) } }),
    })),
  },
});
const str: SchemaLike = { type: 'string' };

// [what, chart's CRD, cluster's CRD (undefined: absent), expected description (undefined: nothing behind)]
const cases: [string, CrdLike, CrdLike | undefined, string | undefined][] = [
  ['the same CRD', crd({ v1: { size: str } }), crd({ v1: { size: str } }), undefined],
  ['absent from the cluster', crd({ v1: { size: str } }), undefined, 'widgets.example.com: not in the cluster'],
  [
    'a field the chart added',
    crd({ v1: { size: str, color: str } }),
    crd({ v1: { size: str } }),
    'widgets.example.com: v1 lacks spec.color',
  ],
  [
    'a version the chart added',
    crd({ v1: { size: str }, v2: { size: str } }),
    crd({ v1: { size: str } }),
    'widgets.example.com: version v2 missing',
  ],
  [
    'a new object field is named once, not with each of its children',
    crd({ v1: { size: str, style: props({ color: str, shade: str }) } }),
    crd({ v1: { size: str } }),
    'widgets.example.com: v1 lacks spec.style',
  ],
  [
    'a field added inside a list item',
    crd({ v1: { parts: { type: 'array', items: props({ name: str, weight: str }) } } }),
    crd({ v1: { parts: { type: 'array', items: props({ name: str }) } } }),
    'widgets.example.com: v1 lacks spec.parts[].weight',
  ],
  [
    'a field added inside a map value',
    crd({ v1: { labels: { type: 'object', additionalProperties: props({ value: str, note: str }) } } }),
    crd({ v1: { labels: { type: 'object', additionalProperties: props({ value: str }) } } }),
    'widgets.example.com: v1 lacks spec.labels{}.note',
  ],
  [
    'fields the cluster has beyond the chart are no drift',
    crd({ v1: { size: str } }),
    crd({ v1: { size: str, extra: str } }),
    undefined,
  ],
  [
    'a cluster version without a schema accepts anything',
    crd({ v1: { size: str } }),
    crd({ v1: undefined }),
    undefined,
  ],
  [
    'versions and fields together',
    crd({ v1: { size: str, color: str }, v2: { size: str } }),
    crd({ v1: { size: str } }),
    'widgets.example.com: version v2 missing; v1 lacks spec.color',
  ],
];

describe('crdDrift', () => {
  it.each(cases)('%s', (_what, chart, cluster, expected) => {
    const drift = crdDrift(chart, cluster);
    expect(drift === undefined ? undefined : describeDrift(drift)).toEqual(expected);
  });
});

describe('parseChartCrds', () => {
  it('reads the CRDs of helm show crds output, skipping comments, empty documents and other kinds', () => {
    const text = [
      '---',
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      '  name: a.example.com',
      '',
      '---',
      '# a comment',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: not-a-crd',
      '---',
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      '  name: b.example.com',
      '',
    ].join('\n');
    expect(parseChartCrds(text).map((c) => c.metadata?.name)).toEqual(['a.example.com', 'b.example.com']);
    expect(parseChartCrds('')).toEqual([]);
  });
});
