import {
  MAX_CHART_CONTENT_CHARS,
  MAX_CHART_NAME,
  MAX_NAMESPACE_LENGTH,
  MAX_TIMEOUT_LENGTH,
  MAX_URL_LENGTH,
  MAX_VALUES_SECRET_KEYS,
  MAX_VALUES_SECRETS,
  MAX_VERSION_LENGTH,
} from './limits.js';
import { Message, RESERVED_FIELDS, reservedFieldMessage, type ReservedField } from './messages.js';
import { DNS_LABEL, GO_DURATION, HTTP_OR_HTTPS_URL, HTTP_URL, OCI_OR_HTTP_URL, URL_WITH_USERINFO } from './patterns.js';
import {
  arrayOf,
  boolean,
  integer,
  intOrString,
  json,
  listMap,
  mapOf,
  object,
  string,
  stringEnum,
  type CelRule,
} from './schema.js';
import { podSecurityContextSchema, securityContextSchema } from './security-context-schema.js';

/**
 * The schemas of helm.cattle.io/v1 (k3s's field names and types), with the rules helmflow adds. The CRDs
 * (crd.ts) and the TypeScript types (types.ts) are both derived from these values.
 */

export const FAILURE_POLICIES = ['abort', 'reinstall', 'retry'] as const;
export const SERVER_SIDE_VALUES = ['true', 'false', 'auto'] as const;
export const HELM_DRIVERS = ['secret', 'configmap'] as const;
export const HELM_VERSIONS = ['', 'v3', 'v4'] as const;

export const DEFAULT_FAILURE_POLICY = 'reinstall';
export const DEFAULT_DRIVER = 'secret';

/** A CEL string literal; raw, so regex backslashes need no second escaping. */
function celRaw(text: string): string {
  if (text.includes("'")) throw new Error(`pattern must not contain a quote: ${text}`);
  return `r'${text}'`;
}

function celList(values: readonly string[]): string {
  return `[${values.map((v) => `'${v}'`).join(', ')}]`;
}

const set = (field: string): string => `has(self.${field}) && self.${field} != ''`;

/** How each reserved field reads when unset: false booleans and an empty repoCA are harmless k3s defaults. */
const RESERVED_UNSET: Record<ReservedField, (field: string) => string> = {
  repoCA: (f) => `!has(self.${f}) || self.${f} == ''`,
  repoCAConfigMap: (f) => `!has(self.${f})`,
  authSecret: (f) => `!has(self.${f})`,
  authPassCredentials: (f) => `!has(self.${f}) || !self.${f}`,
  insecureSkipTLSVerify: (f) => `!has(self.${f}) || !self.${f}`,
  plainHTTP: (f) => `!has(self.${f}) || !self.${f}`,
  dockerRegistrySecret: (f) => `!has(self.${f})`,
};

const reservedRule = (field: ReservedField): CelRule => ({
  rule: RESERVED_UNSET[field](field),
  message: reservedFieldMessage(field),
});

const localObjectReference = (description: string) =>
  object({ name: string({ maxLength: 253 }) }, { atomic: true, description });

const valuesSecretSchema = object({
  name: string({ maxLength: 253, description: 'Name of a Secret in the HelmChart namespace.' }),
  keys: arrayOf(string({ maxLength: 253 }), {
    maxItems: MAX_VALUES_SECRET_KEYS,
    description: 'Keys of the Secret to read values files from, in order. No keys: the Secret is not used.',
  }),
  ignoreUpdates: boolean({
    description: 'The Secret is optional and changes to it do not rerun the install.',
  }),
});

const valuesSecrets = arrayOf(valuesSecretSchema, {
  maxItems: MAX_VALUES_SECRETS,
  description: 'Values files read from Secrets, applied after values.',
});
const values = json({ description: 'Chart values as structured data, applied after valuesContent.' });
const valuesContent = string({ description: 'Chart values as YAML text, the first values file.' });
const failurePolicy = (withDefault: boolean) =>
  stringEnum(FAILURE_POLICIES, {
    ...(withDefault ? { default: DEFAULT_FAILURE_POLICY } : {}),
    description: 'What to do when the install fails: abort, reinstall (default) or retry.',
  });
const serverSide = stringEnum(SERVER_SIDE_VALUES, {
  description: 'helm --server-side: the string "true", "false" or "auto".',
});

export const helmChartSpecSchema = object(
  {
    targetNamespace: string({
      maxLength: MAX_NAMESPACE_LENGTH,
      description: "Namespace of the release; the HelmChart's namespace when empty.",
      rules: [{ rule: `self == '' || self.matches(${celRaw(DNS_LABEL)})`, message: Message.invalidTargetNamespace }],
    }),
    createNamespace: boolean({ description: 'helm --create-namespace.' }),
    chart: string({
      maxLength: MAX_URL_LENGTH,
      description: 'A chart name in repo, an oci:// reference or an https:// URL of a chart archive.',
      rules: [
        { rule: `!self.matches(${celRaw(HTTP_URL)})`, message: Message.insecureChart },
        { rule: `!self.matches(${celRaw(URL_WITH_USERINFO)})`, message: Message.credentialsInChart },
        { rule: `!self.startsWith('-')`, message: Message.invalidChart },
      ],
    }),
    version: string({ maxLength: MAX_VERSION_LENGTH, description: 'Chart version (with repo or oci://).' }),
    repo: string({
      maxLength: MAX_URL_LENGTH,
      description: 'https:// URL of the chart repository.',
      rules: [
        { rule: `!self.matches(${celRaw(HTTP_URL)})`, message: Message.insecureRepo },
        { rule: `!self.matches(${celRaw(URL_WITH_USERINFO)})`, message: Message.credentialsInRepo },
        { rule: `self == '' || self.matches(${celRaw(HTTP_OR_HTTPS_URL)})`, message: Message.invalidRepo },
      ],
    }),
    repoCA: string({ description: 'Reserved (k3s): not supported.' }),
    repoCAConfigMap: localObjectReference('Reserved (k3s): not supported.'),
    set: mapOf(intOrString(), {
      description:
        'Values set one by one, after all values files: integers, true, false and null with --set, else a string (--set-file from the values Secret).',
    }),
    values,
    valuesContent,
    valuesSecrets,
    helmVersion: string({
      maxLength: 16,
      description: 'Deprecated (k3s).',
      rules: [{ rule: `self in ${celList(HELM_VERSIONS)}`, message: Message.unsupportedHelmVersion }],
    }),
    bootstrap: boolean({
      description: 'Needed to bootstrap the cluster: the Job uses the host network and tolerates not-ready nodes.',
    }),
    takeOwnership: boolean({ description: 'helm --take-ownership.' }),
    serverSide,
    forceConflicts: boolean({ description: 'helm --force-conflicts (with server-side apply).' }),
    chartContent: string({
      description: 'Base64 of a chart archive (.tgz), under 1 MiB decoded; wins over chart, repo and version.',
      rules: [{ rule: `self.size() <= ${MAX_CHART_CONTENT_CHARS}`, message: Message.chartContentTooLarge }],
    }),
    jobImage: string({ maxLength: 512, description: 'Image of the helm Job container.' }),
    backOffLimit: integer({ format: 'int32', minimum: 0, description: 'backoffLimit of the Job (default 1000).' }),
    timeout: string({
      maxLength: MAX_TIMEOUT_LENGTH,
      description: 'helm --timeout as a Go duration (default 5m0s); the Job is stopped after twice this.',
      rules: [
        {
          rule: `self.matches(${celRaw(GO_DURATION)}) && duration(self) > duration('0s')`,
          message: Message.invalidTimeout,
        },
      ],
    }),
    failurePolicy: failurePolicy(true),
    authSecret: localObjectReference('Reserved (k3s): not supported.'),
    authPassCredentials: boolean({ description: 'Reserved (k3s): not supported.' }),
    insecureSkipTLSVerify: boolean({ description: 'Reserved (k3s): not supported.' }),
    plainHTTP: boolean({ description: 'Reserved (k3s): not supported.' }),
    dockerRegistrySecret: localObjectReference('Reserved (k3s): not supported.'),
    podSecurityContext: podSecurityContextSchema,
    securityContext: securityContextSchema,
    driver: stringEnum(HELM_DRIVERS, {
      default: DEFAULT_DRIVER,
      description: 'Helm storage driver for the release: secret (default) or configmap. Immutable.',
      rules: [{ rule: 'self == oldSelf', message: Message.driverImmutable }],
    }),
  },
  {
    description: 'The Helm release to keep installed.',
    rules: [
      { rule: `(${set('chart')}) || (${set('chartContent')})`, message: Message.chartMissing },
      {
        rule: `(${set('chartContent')}) || (${set('repo')}) || !has(self.chart) || self.chart.matches(${celRaw(OCI_OR_HTTP_URL)})`,
        message: Message.chartWithoutRepo,
      },
      ...(Object.keys(RESERVED_FIELDS) as ReservedField[]).map(reservedRule),
    ],
  },
);

export const helmChartConditionSchema = object(
  {
    type: string({ maxLength: 64, description: 'JobCreated or Failed (others may be added).' }),
    status: string({ maxLength: 16, description: 'True, False or Unknown.' }),
    reason: string({ maxLength: 256 }),
    message: string({ maxLength: 32768 }),
    lastTransitionTime: string({ format: 'date-time' }),
  },
  { required: ['type', 'status'] },
);

/** The helm release as read from its record in the cluster (never its values: only their hash). */
export const helmReleaseStatusSchema = object(
  {
    name: string(),
    namespace: string(),
    revision: integer({ description: "The release's revision (helm's version)." }),
    status: string({ description: 'deployed, failed, pending-install, pending-upgrade, pending-rollback, …' }),
    chart: string({ description: 'The chart name recorded in the release.' }),
    chartVersion: string(),
    appVersion: string(),
    lastDeployed: string({ format: 'date-time' }),
    valuesHash: string({
      description:
        "sha256 of the release's computed values (chart defaults merged with the supplied values) as canonical JSON.",
    }),
  },
  { description: 'The helm release read from the cluster after each install and when it changes.' },
);

export const helmChartStatusSchema = object({
  jobName: string({ description: 'The Job that installs (or deletes) the chart.' }),
  conditions: listMap(helmChartConditionSchema, ['type']),
  observedGeneration: integer({ description: 'The generation the status describes.' }),
  digest: string({ description: 'Digest of the desired state last applied.' }),
  phase: string({ description: 'Pending, Installing, Installed, Failed, Backoff, Paused, Suspended or Deleting.' }),
  release: helmReleaseStatusSchema,
});

export const helmChartConfigSpecSchema = object(
  {
    values,
    valuesContent,
    valuesSecrets,
    // No default here (k3s defaults it to reinstall): it overrides the HelmChart's only when set by the user.
    failurePolicy: failurePolicy(false),
    serverSide,
    forceConflicts: boolean({ description: "Overrides the HelmChart's forceConflicts when set." }),
  },
  { description: 'Values and settings overlaid on the HelmChart of the same name and namespace.' },
);

const objectMeta = object({}, {});

/**
 * Checked when the object is created only: a name never changes, and a root rule is not ratcheted, so checking
 * it on update would refuse the finalizer and status writes of an object stored before the rule (an older CRD,
 * k3s's own) and leave it undeletable.
 */
const nameLimitRule = (message: string): CelRule => ({
  rule: `oldSelf.hasValue() || self.metadata.name.size() <= ${MAX_CHART_NAME}`,
  message,
  optionalOldSelf: true,
});

export const helmChartSchema = object(
  {
    apiVersion: string(),
    kind: string(),
    metadata: objectMeta,
    spec: helmChartSpecSchema,
    status: helmChartStatusSchema,
  },
  {
    required: ['spec'],
    description: 'A Helm release kept installed by a helm Job.',
    rules: [nameLimitRule(Message.nameTooLong)],
  },
);

export const helmChartConfigSchema = object(
  { apiVersion: string(), kind: string(), metadata: objectMeta, spec: helmChartConfigSpecSchema },
  {
    description: 'Overlays values on the HelmChart of the same name and namespace.',
    rules: [nameLimitRule(Message.configNameTooLong)],
  },
);
