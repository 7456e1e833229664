/**
 * Condition reasons for a HelmChart the controller refuses (the Failed condition's reason). Extra reasons may be
 * added; none is ever renamed, since users and alerts match on them.
 */
export const Reason = {
  InsecureRepo: 'InsecureRepo',
  InvalidRepo: 'InvalidRepo',
  CredentialsInURL: 'CredentialsInURL',
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
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Why a HelmChart cannot be installed: a condition reason and a sentence for the user. */
export interface Refusal {
  reason: Reason;
  message: string;
}
