export * from './crd.js';
export * from './crd-yaml.js';
export * from './group.js';
export * from './helm-chart-schema.js';
export * from './limits.js';
export * from './messages.js';
export * from './reasons.js';
export type { CelRule, OpenApiSchema, Schema, TypeOf } from './schema.js';
export * from './types.js';
