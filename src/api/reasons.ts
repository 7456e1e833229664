/**
 * Condition reasons for a HelmChart the controller refuses (the Failed condition's reason). Extra reasons may be
 * added; none is ever renamed, since users and alerts match on them.
 */
export const Reason = {
  InsecureRepo: 'InsecureRepo',
  InvalidRepo: 'InvalidRepo',
  InvalidChart: 'InvalidChart',
  ChartMissing: 'ChartMissing',
  ReservedField: 'ReservedField',
  ChartContentTooLarge: 'ChartContentTooLarge',
  InvalidChartContent: 'InvalidChartContent',
  NameTooLong: 'NameTooLong',
  InvalidFailurePolicy: 'InvalidFailurePolicy',
  InvalidServerSide: 'InvalidServerSide',
  InvalidTimeout: 'InvalidTimeout',
  InvalidDriver: 'InvalidDriver',
  InvalidTargetNamespace: 'InvalidTargetNamespace',
  InvalidBackOffLimit: 'InvalidBackOffLimit',
  InvalidSet: 'InvalidSet',
  UnsupportedHelmVersion: 'UnsupportedHelmVersion',
  TooManyValuesSecrets: 'TooManyValuesSecrets',
  ValuesSecretNotFound: 'ValuesSecretNotFound',
  ValuesSecretKeyNotFound: 'ValuesSecretKeyNotFound',
  /** An object of a derived name (ServiceAccount, Secret, ConfigMap, binding) belongs to someone else. */
  ObjectNotOwned: 'ObjectNotOwned',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Why a HelmChart cannot be installed: a condition reason and a sentence for the user. */
export interface Refusal {
  reason: Reason;
  message: string;
}

/**
 * The `Installed` condition, by Kubernetes conventions (k3s's `Failed` keeps its meaning: the Job failed): False with
 * `InstallAttemptFailed` as soon as a pod of the install Job fails while the Job still retries, True once it succeeds.
 */
export const InstalledCondition = {
  type: 'Installed',
  attemptFailed: 'InstallAttemptFailed',
  succeeded: 'InstallSucceeded',
} as const;
