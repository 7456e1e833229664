import { Option } from 'commander';
import { DEFAULT_API_GROUP } from '../api/index.js';
import { DEFAULT_MAX_RUNNING_JOBS } from '../build/job-slots.js';
import { DEFAULT_CLUSTER_ROLE, DEFAULT_JOB_IMAGE } from '../build/options.js';
import { DEFAULT_LEASE_NAME, DEFAULT_LEASE_NAMESPACE, DEFAULT_LEASE_TIMINGS } from '../kube/leader-election.js';
import { DEFAULT_TASK_QUEUE } from '../../workflows/contract.js';
import { DEFAULT_WORKFLOW_CACHE } from '../worker/workflow-cache.js';
import { apiGroup, orEmpty, port, text, trueOrFalse, tuningJson, wholeNumber, type Parse } from './setting-values.js';

/** One setting: its flag, its environment variable, its default and how its text is read. */
export interface SettingSpec<T, D extends T | undefined = T | undefined> {
  flag: string;
  env: string;
  help: string;
  /** undefined: none, the setting is unset unless given. */
  def: D;
  parse: Parse<T>;
  /** A switch: the bare flag means true (`--disable-leader-election`). */
  preset?: string;
}

const setting = <T, D extends T | undefined>(
  flag: string,
  env: string,
  def: D,
  parse: Parse<T>,
  help: string,
): SettingSpec<T, D> => ({
  flag,
  env,
  def,
  parse,
  help,
});

/**
 * Every setting, keyed by commander's name for its flag (`--temporal-address` → temporalAddress), so the values
 * commander parses are typed by this table (SettingValues). --help lists each with its variable and default.
 */
export const settingSpecs = {
  group: setting(
    '--group <group>',
    'HELMFLOW_GROUP',
    DEFAULT_API_GROUP,
    apiGroup,
    'API group: helm.k3sm.io or helm.cattle.io',
  ),
  kubeconfig: setting(
    '--kubeconfig <path>',
    'HELMFLOW_KUBECONFIG',
    undefined,
    text,
    'kubeconfig (else in-cluster, $KUBECONFIG, k3s, ~/.kube/config)',
  ),
  temporalAddress: setting(
    '--temporal-address <host:port>',
    'TEMPORAL_ADDRESS',
    '127.0.0.1:7233',
    text,
    'Temporal frontend',
  ),
  temporalNamespace: setting('--temporal-namespace <ns>', 'TEMPORAL_NAMESPACE', 'default', text, 'Temporal namespace'),
  temporalTlsCert: setting(
    '--temporal-tls-cert <path>',
    'TEMPORAL_TLS_CERT',
    undefined,
    text,
    'client certificate for Temporal mTLS',
  ),
  temporalTlsKey: setting(
    '--temporal-tls-key <path>',
    'TEMPORAL_TLS_KEY',
    undefined,
    text,
    'client key for Temporal mTLS',
  ),
  temporalTlsCa: setting('--temporal-tls-ca <path>', 'TEMPORAL_TLS_CA', undefined, text, 'CA of the Temporal server'),
  temporalTls: setting(
    '--temporal-tls <true|false>',
    'TEMPORAL_TLS',
    undefined,
    orEmpty(trueOrFalse),
    'TLS to Temporal; true alone trusts the system CAs (default: on when a cert, CA, server name or API key is set)',
  ),
  temporalTlsServerName: setting(
    '--temporal-tls-server-name <name>',
    'TEMPORAL_TLS_SERVER_NAME',
    undefined,
    text,
    'server name expected in the Temporal server certificate',
  ),
  temporalApiKey: setting(
    '--temporal-api-key <key>',
    'TEMPORAL_API_KEY',
    undefined,
    text,
    'Temporal Cloud API key (prefer the variable: flags show in ps); implies TLS',
  ),
  taskQueue: setting(
    '--task-queue <name>',
    'HELMFLOW_TASK_QUEUE',
    DEFAULT_TASK_QUEUE,
    text,
    'Temporal task queue of the chart workflows',
  ),
  leaseNamespace: setting(
    '--lease-namespace <ns>',
    'HELMFLOW_LEASE_NAMESPACE',
    DEFAULT_LEASE_NAMESPACE,
    text,
    'namespace of the leader Lease',
  ),
  leaseName: setting(
    '--lease-name <name>',
    'HELMFLOW_LEASE_NAME',
    DEFAULT_LEASE_NAME,
    text,
    'name of the leader Lease',
  ),
  leaseDurationSeconds: setting(
    '--lease-duration-seconds <n>',
    'HELMFLOW_LEASE_DURATION_SECONDS',
    DEFAULT_LEASE_TIMINGS.durationSeconds,
    wholeNumber(2),
    'how long a standby controller waits, from the last renewal it saw, before taking the Lease over',
  ),
  leaseRenewDeadlineSeconds: setting(
    '--lease-renew-deadline-seconds <n>',
    'HELMFLOW_LEASE_RENEW_DEADLINE_SECONDS',
    DEFAULT_LEASE_TIMINGS.renewDeadlineSeconds,
    wholeNumber(1),
    'the leader stops acting when it could not renew the Lease for this long (below the duration)',
  ),
  leaseRetryPeriodSeconds: setting(
    '--lease-retry-period-seconds <n>',
    'HELMFLOW_LEASE_RETRY_PERIOD_SECONDS',
    DEFAULT_LEASE_TIMINGS.retryPeriodSeconds,
    wholeNumber(1),
    'how often the leader renews the Lease and a standby tries to take it (below the renew deadline)',
  ),
  manifestsDir: setting(
    '--manifests-dir <dir>',
    'HELMFLOW_MANIFESTS_DIR',
    '/var/lib/k3sm/manifests',
    text,
    'auto-deploy directory ("" disables)',
  ),
  httpPort: setting('--http-port <port>', 'HELMFLOW_HTTP_PORT', 9090, port, '/metrics, /healthz, /readyz (0 disables)'),
  httpHost: setting(
    '--http-host <address>',
    'HELMFLOW_HTTP_HOST',
    '127.0.0.1',
    text,
    'address of the HTTP endpoint (0.0.0.0 in a pod)',
  ),
  jobImage: setting(
    '--job-image <image>',
    'HELMFLOW_JOB_IMAGE',
    DEFAULT_JOB_IMAGE,
    text,
    'image with helm for the Jobs',
  ),
  clusterRole: setting(
    '--cluster-role <name>',
    'HELMFLOW_CLUSTER_ROLE',
    DEFAULT_CLUSTER_ROLE,
    text,
    'ClusterRole the chart identity is bound to',
  ),
  apiServerPort: setting(
    '--api-server-port <port>',
    'HELMFLOW_API_SERVER_PORT',
    undefined,
    orEmpty(port),
    'apiserver port for bootstrap Jobs',
  ),
  tuning: setting(
    '--tuning <json>',
    'HELMFLOW_TUNING',
    undefined,
    orEmpty(tuningJson),
    'workflow durations as JSON (backoffBaseSeconds, …)',
  ),
  activitySlots: setting(
    '--activity-slots <n>',
    'HELMFLOW_ACTIVITY_SLOTS',
    1500,
    wholeNumber(1),
    'activity slots per worker; each chart waiting on its Job holds one',
  ),
  maxRunningJobs: setting(
    '--max-running-jobs <n>',
    'HELMFLOW_MAX_RUNNING_JOBS',
    DEFAULT_MAX_RUNNING_JOBS,
    wholeNumber(1),
    'install Jobs running at once, cluster-wide; more charts wait for a slot (JobCreated=False/WaitingForJobSlot)',
  ),
  workflowCache: setting(
    '--workflow-cache <n>',
    'HELMFLOW_WORKFLOW_CACHE',
    DEFAULT_WORKFLOW_CACHE,
    wholeNumber(0),
    'chart workflows a worker keeps in memory; others replay their short history when they next run',
  ),
  resyncSeconds: setting(
    '--resync-seconds <n>',
    'HELMFLOW_RESYNC_SECONDS',
    300,
    wholeNumber(1),
    'how often the controller sweeps every chart; an idle chart costs no signal',
  ),
  disableLeaderElection: {
    ...setting(
      '--disable-leader-election [true|false]',
      'HELMFLOW_DISABLE_LEADER_ELECTION',
      false,
      trueOrFalse,
      'act without the Lease (tests only)',
    ),
    preset: 'true',
  },
};

export type SettingKey = keyof typeof settingSpecs;

/** What commander hands an action once every setting is parsed: each setting's value, or its default. */
export type SettingValues = {
  [K in SettingKey]: (typeof settingSpecs)[K] extends SettingSpec<infer T, infer D> ? T | D : never;
};

/** The settings that reach Kubernetes and Temporal: the ones the operator CLI takes too. */
export const connectionSettingKeys = [
  'group',
  'kubeconfig',
  'temporalAddress',
  'temporalNamespace',
  'temporalTlsCert',
  'temporalTlsKey',
  'temporalTlsCa',
  'temporalTls',
  'temporalTlsServerName',
  'temporalApiKey',
] as const satisfies readonly SettingKey[];

/** commander's options for `keys` (all by default): each reads its flag, else its variable, else its default. */
export function settingOptions(keys: readonly SettingKey[] = Object.keys(settingSpecs) as SettingKey[]): Option[] {
  return keys.map((key) => {
    const spec: SettingSpec<unknown> = settingSpecs[key];
    const option = new Option(spec.flag, spec.help).env(spec.env).argParser(spec.parse);
    if (spec.def !== undefined) option.default(spec.def);
    return spec.preset === undefined ? option : option.preset(spec.preset);
  });
}

/** Every setting at its default, as a process with no flag and no variable set would run. */
export function defaultSettingValues(): SettingValues {
  return Object.fromEntries(Object.entries(settingSpecs).map(([key, spec]) => [key, spec.def])) as SettingValues;
}
