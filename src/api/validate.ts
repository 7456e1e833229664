import { decodedBase64Length } from './base64.js';
import { goDurationSeconds } from './duration.js';
import { FAILURE_POLICIES, HELM_DRIVERS, HELM_VERSIONS, SERVER_SIDE_VALUES } from './helm-chart-schema.js';
import {
  MAX_CHART_BYTES,
  MAX_NAMESPACE_LENGTH,
  MAX_CHART_NAME,
  MAX_VALUES_SECRET_KEYS,
  MAX_VALUES_SECRETS,
} from './limits.js';
import {
  Message,
  RESERVED_FIELDS,
  reservedFieldMessage,
  valuesSecretKeyNotFoundMessage,
  valuesSecretNotFoundMessage,
  type ReservedField,
} from './messages.js';
import { DNS_LABEL, HTTP_OR_HTTPS_URL, HTTP_URL, OCI_OR_HTTP_URL, URL_WITH_USERINFO, matches } from './patterns.js';
import { Reason, type Refusal } from './reasons.js';
import type { HelmChart, HelmChartConfig, HelmChartSpec, ValuesSecret } from './types.js';

/**
 * The apiserver's rules again, in code. The install Job runs as cluster-admin, so anything that slipped past the
 * CRD (an older CRD, k3s's own helm.cattle.io CRD without these rules, a direct etcd write) is refused here with
 * a Failed condition instead of being run. Every function is pure and lists problems in a fixed order; the
 * `validate…` forms return the first, for the condition.
 */

/** Data of the Secrets named by valuesSecrets: Secret name → key → text; a missing Secret is absent. */
export type SecretData = Readonly<Record<string, Readonly<Record<string, string>> | undefined>>;

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value !== '';
const refuse = (reason: Reason, message: string): Refusal => ({ reason, message });
const oneOf = (allowed: readonly string[], value: unknown): boolean =>
  typeof value === 'string' && allowed.includes(value);

function reservedFieldSet(spec: HelmChartSpec, field: ReservedField): boolean {
  const value: unknown = spec[field];
  return value !== undefined && value !== null && value !== false && value !== '';
}

function sourceProblems(spec: HelmChartSpec): Refusal[] {
  const problems: Refusal[] = [];
  const { repo, chart, chartContent } = spec;
  if (nonEmpty(repo) && matches(HTTP_URL, repo)) problems.push(refuse(Reason.InsecureRepo, Message.insecureRepo));
  if (nonEmpty(chart) && matches(HTTP_URL, chart)) problems.push(refuse(Reason.InsecureRepo, Message.insecureChart));
  if (nonEmpty(repo) && matches(URL_WITH_USERINFO, repo)) {
    problems.push(refuse(Reason.CredentialsInURL, Message.credentialsInRepo));
  }
  if (nonEmpty(chart) && matches(URL_WITH_USERINFO, chart)) {
    problems.push(refuse(Reason.CredentialsInURL, Message.credentialsInChart));
  }
  for (const field of Object.keys(RESERVED_FIELDS) as ReservedField[]) {
    if (reservedFieldSet(spec, field)) problems.push(refuse(Reason.ReservedField, reservedFieldMessage(field)));
  }
  if (!nonEmpty(chart) && !nonEmpty(chartContent)) problems.push(refuse(Reason.ChartMissing, Message.chartMissing));
  if (nonEmpty(repo) && !matches(HTTP_OR_HTTPS_URL, repo)) {
    problems.push(refuse(Reason.InvalidRepo, Message.invalidRepo));
  }
  if (nonEmpty(chart) && chart.startsWith('-')) problems.push(refuse(Reason.InvalidChart, Message.invalidChart));
  else if (nonEmpty(chart) && !nonEmpty(chartContent) && !nonEmpty(repo) && !matches(OCI_OR_HTTP_URL, chart)) {
    problems.push(refuse(Reason.InvalidChart, Message.chartWithoutRepo));
  }
  if (nonEmpty(chartContent)) {
    const bytes = decodedBase64Length(chartContent);
    if (bytes === undefined) problems.push(refuse(Reason.InvalidChartContent, Message.invalidChartContent));
    else if (bytes >= MAX_CHART_BYTES) problems.push(refuse(Reason.ChartContentTooLarge, Message.chartContentTooLarge));
  }
  return problems;
}

function valuesSecretsProblems(list: readonly ValuesSecret[] | undefined): Refusal[] {
  if (list === undefined) return [];
  const tooMany = list.length > MAX_VALUES_SECRETS || list.some((s) => (s.keys?.length ?? 0) > MAX_VALUES_SECRET_KEYS);
  return tooMany ? [refuse(Reason.TooManyValuesSecrets, Message.tooManyValuesSecrets)] : [];
}

function failurePolicyProblems(value: unknown): Refusal[] {
  return value === undefined || oneOf(FAILURE_POLICIES, value)
    ? []
    : [refuse(Reason.InvalidFailurePolicy, Message.invalidFailurePolicy)];
}

function serverSideProblems(value: unknown): Refusal[] {
  return value === undefined || oneOf(SERVER_SIDE_VALUES, value)
    ? []
    : [refuse(Reason.InvalidServerSide, Message.invalidServerSide)];
}

function settingsProblems(spec: HelmChartSpec): Refusal[] {
  const problems: Refusal[] = [];
  problems.push(...failurePolicyProblems(spec.failurePolicy), ...serverSideProblems(spec.serverSide));
  if (spec.timeout !== undefined && !((goDurationSeconds(spec.timeout) ?? 0) > 0)) {
    problems.push(refuse(Reason.InvalidTimeout, Message.invalidTimeout));
  }
  if (spec.driver !== undefined && !oneOf(HELM_DRIVERS, spec.driver)) {
    problems.push(refuse(Reason.InvalidDriver, Message.invalidDriver));
  }
  const target = spec.targetNamespace;
  if (nonEmpty(target) && (target.length > MAX_NAMESPACE_LENGTH || !matches(DNS_LABEL, target))) {
    problems.push(refuse(Reason.InvalidTargetNamespace, Message.invalidTargetNamespace));
  }
  const limit = spec.backOffLimit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0 && limit <= 2 ** 31 - 1)) {
    problems.push(refuse(Reason.InvalidBackOffLimit, Message.invalidBackOffLimit));
  }
  const setValues: unknown[] = Object.values(spec.set ?? {});
  if (setValues.some((v) => !(typeof v === 'string' || Number.isInteger(v)))) {
    problems.push(refuse(Reason.InvalidSet, Message.invalidSet));
  }
  if (spec.helmVersion !== undefined && !oneOf(HELM_VERSIONS, spec.helmVersion)) {
    problems.push(refuse(Reason.UnsupportedHelmVersion, Message.unsupportedHelmVersion));
  }
  problems.push(...valuesSecretsProblems(spec.valuesSecrets));
  return problems;
}

/** Everything wrong with a HelmChart on its own, most important first (InsecureRepo leads, as in the seed). */
export function helmChartProblems(chart: HelmChart): Refusal[] {
  const problems = sourceProblems(chart.spec);
  if (chart.metadata.name.length > MAX_CHART_NAME) problems.push(refuse(Reason.NameTooLong, Message.nameTooLong));
  return [...problems, ...settingsProblems(chart.spec)];
}

export function helmChartConfigProblems(config: HelmChartConfig): Refusal[] {
  const spec = config.spec ?? {};
  return [
    ...(config.metadata.name.length > MAX_CHART_NAME ? [refuse(Reason.NameTooLong, Message.configNameTooLong)] : []),
    ...failurePolicyProblems(spec.failurePolicy),
    ...serverSideProblems(spec.serverSide),
    ...valuesSecretsProblems(spec.valuesSecrets),
  ];
}

/** A Secret is read when it names keys and is not the chart's own values Secret (k3s skips both). */
export function readsSecret(chartName: string, entry: ValuesSecret): entry is ValuesSecret & { name: string } {
  return nonEmpty(entry.name) && (entry.keys?.length ?? 0) > 0 && entry.name !== `chart-values-${chartName}`;
}

/** The names of the Secrets a chart and its HelmChartConfig read values from, each once. */
export function valuesSecretNames(chart: HelmChart, config: HelmChartConfig | undefined): string[] {
  const entries = [...(chart.spec.valuesSecrets ?? []), ...(config?.spec?.valuesSecrets ?? [])];
  return [...new Set(entries.filter((e) => readsSecret(chart.metadata.name, e)).map((e) => e.name))];
}

function secretProblems(owner: string, chartName: string, list: readonly ValuesSecret[], data: SecretData): Refusal[] {
  const problems: Refusal[] = [];
  for (const entry of list) {
    // ignoreUpdates makes the Secret and its keys optional (k3s mounts it with optional: true).
    if (!readsSecret(chartName, entry) || entry.ignoreUpdates === true) continue;
    const secret = data[entry.name];
    if (secret === undefined) {
      problems.push(refuse(Reason.ValuesSecretNotFound, valuesSecretNotFoundMessage(owner, entry.name)));
      continue;
    }
    for (const key of entry.keys ?? []) {
      if (secret[key] === undefined) {
        problems.push(refuse(Reason.ValuesSecretKeyNotFound, valuesSecretKeyNotFoundMessage(owner, entry.name, key)));
      }
    }
  }
  return problems;
}

/** Required values Secrets (and keys) that are missing. */
export function valuesSecretProblems(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  data: SecretData,
): Refusal[] {
  const name = chart.metadata.name;
  return [
    ...secretProblems('HelmChart', name, chart.spec.valuesSecrets ?? [], data),
    ...secretProblems('HelmChartConfig', name, config?.spec?.valuesSecrets ?? [], data),
  ];
}

/** Everything that stops an install: the chart, its config, then its values Secrets. */
export function installProblems(chart: HelmChart, config: HelmChartConfig | undefined, data: SecretData): Refusal[] {
  return [
    ...helmChartProblems(chart),
    ...(config === undefined ? [] : helmChartConfigProblems(config)),
    ...valuesSecretProblems(chart, config, data),
  ];
}

export function validateHelmChart(chart: HelmChart): Refusal | undefined {
  return helmChartProblems(chart)[0];
}

export function validateHelmChartConfig(config: HelmChartConfig): Refusal | undefined {
  return helmChartConfigProblems(config)[0];
}

/** The refusal to report on the Failed condition, or undefined when the install may run. */
export function validateInstall(
  chart: HelmChart,
  config: HelmChartConfig | undefined,
  data: SecretData,
): Refusal | undefined {
  return installProblems(chart, config, data)[0];
}
