import { crdsJobName, deleteJobName, installJobName } from '../build/names.js';

/** Numbers the apiserver rules (schema.ts) and the code checks (validate.ts) share. */

/** Helm release names are limited to 53 characters (a release's Secret name adds a suffix to it). */
export const MAX_RELEASE_NAME = 53;

/** A label value's limit: the Job controller labels each Job's pods with job-name=<the Job's name>. */
export const MAX_LABEL_VALUE = 63;

/**
 * The longest HelmChart name whose every derived name fits: the Job names (helm-install-<name>, the longest,
 * helm-delete-<name> and helm-crds-<name>) must be label values, which binds harder than the release limit. Derived from names.ts so
 * that a longer prefix there lowers it here.
 */
export const MAX_CHART_NAME = Math.min(
  MAX_RELEASE_NAME,
  MAX_LABEL_VALUE - Math.max(installJobName('').length, deleteJobName('').length, crdsJobName('').length),
);

/** The chart archive lives in a ConfigMap, so its decoded size must stay under 1 MiB. */
export const MAX_CHART_BYTES = 1024 * 1024;

/**
 * The longest padded base64 text whose decoded size is under MAX_CHART_BYTES: 1 MiB − 1 = 1048575 bytes is an
 * exact multiple of 3, so it encodes to 4 × 349525 = 1398100 characters; 1 MiB itself needs 1398104.
 */
export const MAX_CHART_CONTENT_CHARS = 4 * Math.ceil((MAX_CHART_BYTES - 1) / 3);

/** helm's --timeout when spec.timeout is empty (k3s and the seed: 5m0s). */
export const DEFAULT_TIMEOUT = '5m0s';

/** k3s's Job backoffLimit when spec.backOffLimit is unset. */
export const DEFAULT_BACKOFF_LIMIT = 1000;

/**
 * Bounds on list sizes, so CEL cost stays within the apiserver's budget and values file names (values-NNN-…)
 * keep a fixed width: 2 × (2 + 20 × 20) files at most.
 */
export const MAX_VALUES_SECRETS = 20;
export const MAX_VALUES_SECRET_KEYS = 20;

/** Bounds on strings that CEL rules read, for the same cost reason. */
export const MAX_URL_LENGTH = 2048;
export const MAX_VERSION_LENGTH = 256;
export const MAX_TIMEOUT_LENGTH = 32;
export const MAX_NAMESPACE_LENGTH = 63;
