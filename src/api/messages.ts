import { installJobName } from '../build/names.js';
import {
  MAX_CHART_CONTENT_CHARS,
  MAX_CHART_NAME,
  MAX_LABEL_VALUE,
  MAX_RELEASE_NAME,
  MAX_VALUES_SECRETS,
  MAX_VALUES_SECRET_KEYS,
} from './limits.js';

/** Credentials in a URL would bypass the reserved authSecret rule (RESERVED_FIELDS below) and sit in the Job's args. */
const credentialsRule =
  'repository credentials are reserved (as spec.authSecret) and not supported; use a public repository or spec.chartContent';

const nameLimitReason = `the Job ${installJobName('<name>')} must fit a ${MAX_LABEL_VALUE}-character label; the release limit of ${MAX_RELEASE_NAME} is not the binding one`;

/**
 * The sentences a user reads when a HelmChart is refused. The apiserver's CEL rules (schema.ts) and the code
 * checks (validate.ts) use the same text, so a refusal reads the same wherever it is caught.
 */
export const Message = {
  insecureRepo:
    'spec.repo must not use http://: plain HTTP is refused because the install Job runs as cluster-admin; use https://',
  insecureChart:
    'spec.chart must not use http://: plain HTTP is refused because the install Job runs as cluster-admin; use https:// or oci://',
  credentialsInRepo: `spec.repo must not carry credentials (user:password@) in its URL: ${credentialsRule}`,
  credentialsInChart: `spec.chart must not carry credentials (user:password@) in its URL: ${credentialsRule}`,
  invalidRepo:
    'spec.repo must be the https:// URL of a chart repository; for an OCI registry put the oci:// reference in spec.chart and leave spec.repo empty',
  invalidChart:
    'spec.chart must be a chart name (with spec.repo), an oci:// reference or an https:// URL of a chart archive',
  chartWithoutRepo:
    'without spec.repo, spec.chart must be an oci:// reference or an https:// URL of a chart archive (.tgz)',
  chartMissing: 'spec.chart or spec.chartContent is required',
  chartContentTooLarge: `spec.chartContent must decode to under 1 MiB (at most ${MAX_CHART_CONTENT_CHARS} base64 characters): the archive is stored in a ConfigMap; serve larger charts from an https:// or oci:// repository`,
  invalidChartContent: 'spec.chartContent must be the base64 encoding of a chart archive (.tgz)',
  nameTooLong: `metadata.name must be at most ${MAX_CHART_NAME} characters: ${nameLimitReason}`,
  configNameTooLong: `metadata.name must be at most ${MAX_CHART_NAME} characters: a HelmChartConfig applies to the HelmChart of the same name, and ${nameLimitReason}`,
  invalidFailurePolicy: 'spec.failurePolicy must be one of abort, reinstall (the default) or retry',
  invalidServerSide: 'spec.serverSide must be the string "true", "false" or "auto"',
  invalidTimeout: 'spec.timeout must be a positive Go duration such as 5m0s, 300s or 1h30m',
  invalidDriver: 'spec.driver must be secret (the default) or configmap',
  driverImmutable:
    "spec.driver is immutable: the release's storage driver cannot change after creation (delete and recreate the HelmChart to switch)",
  invalidTargetNamespace:
    "spec.targetNamespace must be a namespace name: lowercase letters, digits and '-', at most 63 characters",
  invalidBackOffLimit: 'spec.backOffLimit must be zero or a positive integer',
  invalidSet: 'spec.set values must be strings or integers',
  unsupportedHelmVersion:
    'spec.helmVersion is deprecated; only v3 or v4 (both run with the pinned helm v4) is accepted',
  tooManyValuesSecrets: `spec.valuesSecrets may list at most ${MAX_VALUES_SECRETS} Secrets of at most ${MAX_VALUES_SECRET_KEYS} keys each`,
} as const;

/** The k3s fields helmflow reserves (recognised, so never silently dropped, but refused). */
export const RESERVED_FIELDS = {
  repoCA: 'custom repository CAs are not supported; serve the repository with a publicly trusted certificate',
  repoCAConfigMap: 'custom repository CAs are not supported; serve the repository with a publicly trusted certificate',
  authSecret: 'repository credentials are not supported; use a public repository or spec.chartContent',
  authPassCredentials: 'repository credentials are not supported; use a public repository or spec.chartContent',
  insecureSkipTLSVerify: 'skipping TLS verification is not supported; the install Job runs as cluster-admin',
  plainHTTP: 'plain HTTP is not supported; the install Job runs as cluster-admin',
  dockerRegistrySecret: 'registry credentials are not supported; use a public registry or spec.chartContent',
} as const;
export type ReservedField = keyof typeof RESERVED_FIELDS;

export function reservedFieldMessage(field: ReservedField): string {
  return `spec.${field} is a reserved k3s field and is not supported by helmflow: ${RESERVED_FIELDS[field]}`;
}

export function invalidWaitMessage(key: string, value: string, strategies: readonly string[]): string {
  return `annotation ${key} is ${JSON.stringify(value)}; helm's wait strategies are ${strategies.join(' and ')}`;
}

export function invalidChoiceMessage(key: string, value: string, choices: readonly string[]): string {
  return `annotation ${key} is ${JSON.stringify(value)}; its values are ${choices.join(' and ')}`;
}

export function valuesSecretNotFoundMessage(owner: string, secret: string): string {
  return `${owner} valuesSecrets names Secret ${secret}, which does not exist (set ignoreUpdates: true to make it optional)`;
}

export function valuesSecretKeyNotFoundMessage(owner: string, secret: string, key: string): string {
  return `${owner} valuesSecrets names key ${key} of Secret ${secret}, which has no such key (set ignoreUpdates: true to make it optional)`;
}
