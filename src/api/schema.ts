/**
 * A tiny schema DSL: each builder yields the OpenAPI v3 fragment of a CRD *and* carries the TypeScript type of
 * the value it describes, so the HelmChart types (types.ts) are inferred from the very schema the apiserver
 * enforces. One source of truth; the two cannot drift.
 */

/** A CEL rule as the apiserver takes it (x-kubernetes-validations). */
export interface CelRule {
  rule: string;
  message: string;
  /** On create too, with oldSelf an optional (none on create); without it a rule naming oldSelf runs only on update. */
  optionalOldSelf?: boolean;
}

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps we emit, with the wire names the CRD uses. */
export interface OpenApiSchema {
  type?: 'string' | 'boolean' | 'integer' | 'object' | 'array';
  format?: string;
  description?: string;
  default?: unknown;
  enum?: readonly string[];
  pattern?: string;
  minimum?: number;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  properties?: Record<string, OpenApiSchema>;
  required?: readonly string[];
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'map' | 'set';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: readonly CelRule[];
}

declare const valueType: unique symbol;

/** An OpenAPI fragment tagged with the TypeScript type of the values it admits. */
export interface Schema<T> {
  readonly openapi: OpenApiSchema;
  /** Phantom: never set at runtime; only carries T for TypeOf. */
  readonly [valueType]?: T;
}

export type TypeOf<S> = S extends Schema<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Options every fragment accepts; the rest are per type. */
interface Common {
  description?: string;
  rules?: readonly CelRule[];
}

function tagged<T>(openapi: OpenApiSchema, common: Common): Schema<T> {
  const out: OpenApiSchema = { ...openapi };
  if (common.description !== undefined) out.description = common.description;
  if (common.rules !== undefined && common.rules.length > 0) out['x-kubernetes-validations'] = common.rules;
  return { openapi: out };
}

export function string(opts: Common & { maxLength?: number; default?: string; format?: string } = {}): Schema<string> {
  const s: OpenApiSchema = { type: 'string' };
  if (opts.format !== undefined) s.format = opts.format;
  if (opts.maxLength !== undefined) s.maxLength = opts.maxLength;
  if (opts.default !== undefined) s.default = opts.default;
  return tagged(s, opts);
}

export function stringEnum<const V extends readonly string[]>(
  values: V,
  opts: Common & { default?: V[number] } = {},
): Schema<V[number]> {
  const s: OpenApiSchema = { type: 'string', enum: values };
  if (opts.default !== undefined) s.default = opts.default;
  return tagged(s, opts);
}

export function boolean(opts: Common = {}): Schema<boolean> {
  return tagged({ type: 'boolean' }, opts);
}

export function integer(opts: Common & { format?: 'int32' | 'int64'; minimum?: number } = {}): Schema<number> {
  const s: OpenApiSchema = { type: 'integer', format: opts.format ?? 'int64' };
  if (opts.minimum !== undefined) s.minimum = opts.minimum;
  return tagged(s, opts);
}

/** Kubernetes' IntOrString: an integer or a string, and the type is kept (k3s's `set` relies on it). */
export function intOrString(opts: Common = {}): Schema<number | string> {
  return tagged({ 'x-kubernetes-int-or-string': true }, opts);
}

/** Free-form JSON (apiextensions JSON), kept as written. */
export function json(opts: Common = {}): Schema<unknown> {
  return tagged({ 'x-kubernetes-preserve-unknown-fields': true }, opts);
}

export function arrayOf<T>(
  items: Schema<T>,
  opts: Common & { maxItems?: number; listType?: 'atomic' | 'set' } = {},
): Schema<T[]> {
  const s: OpenApiSchema = { type: 'array', items: items.openapi };
  if (opts.maxItems !== undefined) s.maxItems = opts.maxItems;
  if (opts.listType !== undefined) s['x-kubernetes-list-type'] = opts.listType;
  return tagged(s, opts);
}

/** A list keyed by some of its items' fields (x-kubernetes-list-type: map), like status.conditions. */
export function listMap<T>(items: Schema<T>, keys: readonly string[], opts: Common = {}): Schema<T[]> {
  return tagged(
    { type: 'array', items: items.openapi, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys },
    opts,
  );
}

export function mapOf<T>(values: Schema<T>, opts: Common & { maxProperties?: number } = {}): Schema<Record<string, T>> {
  const s: OpenApiSchema = { type: 'object', additionalProperties: values.openapi };
  if (opts.maxProperties !== undefined) s.maxProperties = opts.maxProperties;
  return tagged(s, opts);
}

type Props = Record<string, Schema<unknown>>;

export type ObjectOf<P extends Props, R extends keyof P> = Simplify<
  { [K in Exclude<keyof P, R>]?: TypeOf<P[K]> } & { [K in R]: TypeOf<P[K]> }
>;

export function object<P extends Props, R extends keyof P & string = never>(
  props: P,
  opts: Common & { required?: readonly R[]; atomic?: boolean } = {},
): Schema<ObjectOf<P, R>> {
  const properties: Record<string, OpenApiSchema> = {};
  for (const [name, schema] of Object.entries(props)) properties[name] = schema.openapi;
  const s: OpenApiSchema = { type: 'object' };
  if (Object.keys(properties).length > 0) s.properties = properties;
  if (opts.required !== undefined && opts.required.length > 0) s.required = opts.required;
  if (opts.atomic === true) s['x-kubernetes-map-type'] = 'atomic';
  return tagged(s, opts);
}
