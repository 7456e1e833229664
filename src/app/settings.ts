import type { ApiGroup } from '../api/index.js';
import type { BuildOptions } from '../build/options.js';
import type { Tuning } from '../../workflows/contract.js';
import { connectionSettingKeys, defaultSettingValues, type SettingValues } from './setting-specs.js';
import { given } from './setting-values.js';

/** How the connection to Temporal is secured; connectionOptionsOf (temporal.ts) checks the combination. */
export interface TemporalTlsSettings {
  /** true/false when set, undefined when not: TLS is then on exactly when something below asks for it. */
  enabled: boolean | undefined;
  cert: string | undefined;
  key: string | undefined;
  ca: string | undefined;
  serverName: string | undefined;
}

/** Where a process finds Kubernetes and Temporal: the settings the operator CLI shares with the processes. */
export interface ConnectionSettings {
  group: ApiGroup;
  kubeconfig: string | undefined;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTls: TemporalTlsSettings;
  /** A Temporal Cloud API key (sent as a bearer token, over TLS only); never logged. */
  temporalApiKey: string | undefined;
}

/** Everything a helmflow process is configured with; each has a flag and an environment variable. */
export interface Settings extends ConnectionSettings {
  taskQueue: string;
  leaseNamespace: string;
  leaseName: string;
  /** How long a standby waits from the last renewal it saw before taking the Lease over. */
  leaseDurationSeconds: number;
  /** The leader stops acting when no renewal succeeded for this long; shorter than the duration. */
  leaseRenewDeadlineSeconds: number;
  /** How often the leader renews, and a candidate tries; shorter than the renew deadline. */
  leaseRetryPeriodSeconds: number;
  /** Empty disables the auto-deploy directory. */
  manifestsDir: string;
  /** 0 disables the HTTP endpoint (metrics, health, readiness); the worker core's metrics use a free loopback port of their own, served through it. */
  httpPort: number;
  httpHost: string;
  jobImage: string;
  clusterRole: string;
  /** The apiserver port bootstrap Jobs reach on the host network. */
  apiServerPort: number | undefined;
  tuning: Partial<Tuning> | undefined;
  /** Activity slots per worker: each chart waiting on its Job holds one (README, Configuration). */
  activitySlots: number;
  /** helmflow's install Jobs running at once, cluster-wide; a chart past it waits for a slot before its Job. */
  maxRunningJobs: number;
  /** Chart workflows a worker keeps in memory between their tasks (Temporal's sticky cache). */
  workflowCache: number;
  /** How often the controller sweeps every chart; only charts whose workflow may lack their last signal are signalled. */
  resyncSeconds: number;
  /** Only for tests of HA overlap: run the controller without taking the Lease. */
  disableLeaderElection: boolean;
}

/** Where a process connects, from commander's values. */
export function connectionSettingsOf(
  values: Pick<SettingValues, (typeof connectionSettingKeys)[number]>,
): ConnectionSettings {
  return {
    group: values.group,
    kubeconfig: given(values.kubeconfig),
    temporalAddress: values.temporalAddress,
    temporalNamespace: values.temporalNamespace,
    temporalTls: {
      cert: given(values.temporalTlsCert),
      key: given(values.temporalTlsKey),
      ca: given(values.temporalTlsCa),
      serverName: given(values.temporalTlsServerName),
      enabled: given(values.temporalTls),
    },
    temporalApiKey: given(values.temporalApiKey),
  };
}

/**
 * A process's settings from commander's values; each value is checked already (its parse), so what is left are
 * the rules between settings. Throws a message naming the flags when one is broken.
 */
export function settingsOf(values: SettingValues = defaultSettingValues()): Settings {
  const { leaseDurationSeconds, leaseRenewDeadlineSeconds, leaseRetryPeriodSeconds } = values;
  // The leader must give up before a standby may take over, and must get to retry before it gives up.
  if (leaseRenewDeadlineSeconds >= leaseDurationSeconds || leaseRetryPeriodSeconds >= leaseRenewDeadlineSeconds) {
    throw new Error(
      `--lease-retry-period-seconds (${String(leaseRetryPeriodSeconds)}) must be below --lease-renew-deadline-seconds (${String(leaseRenewDeadlineSeconds)}), which must be below --lease-duration-seconds (${String(leaseDurationSeconds)})`,
    );
  }
  return {
    ...connectionSettingsOf(values),
    taskQueue: values.taskQueue,
    leaseNamespace: values.leaseNamespace,
    leaseName: values.leaseName,
    leaseDurationSeconds,
    leaseRenewDeadlineSeconds,
    leaseRetryPeriodSeconds,
    manifestsDir: values.manifestsDir,
    httpPort: values.httpPort,
    httpHost: values.httpHost,
    jobImage: values.jobImage,
    clusterRole: values.clusterRole,
    apiServerPort: given(values.apiServerPort),
    tuning: given(values.tuning),
    activitySlots: values.activitySlots,
    maxRunningJobs: values.maxRunningJobs,
    workflowCache: values.workflowCache,
    resyncSeconds: values.resyncSeconds,
    disableLeaderElection: values.disableLeaderElection,
  };
}

/**
 * What the builders need from the settings: the controller's digest and the worker's objects must agree. The
 * digest key is required here so no process can build with a key other than the cluster's.
 */
export function buildOptionsOf(settings: Settings, digestKey: Uint8Array): BuildOptions {
  return {
    digestKey,
    group: settings.group,
    jobImage: settings.jobImage,
    clusterRole: settings.clusterRole,
    ...(settings.apiServerPort === undefined ? {} : { apiServerPort: settings.apiServerPort }),
  };
}
