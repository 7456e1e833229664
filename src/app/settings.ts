import { DEFAULT_API_GROUP, isApiGroup, type ApiGroup } from '../api/index.js';
import { DEFAULT_MAX_RUNNING_JOBS } from '../build/job-slots.js';
import { DEFAULT_CLUSTER_ROLE, DEFAULT_JOB_IMAGE, type BuildOptions } from '../build/options.js';
import { DEFAULT_LEASE_NAME, DEFAULT_LEASE_NAMESPACE, DEFAULT_LEASE_TIMINGS } from '../kube/leader-election.js';
import { DEFAULT_TASK_QUEUE, type Tuning } from '../../workflows/contract.js';
import { DEFAULT_WORKFLOW_CACHE } from '../worker/workflow-cache.js';

/** How the connection to Temporal is secured; connectionOptionsOf (temporal.ts) checks the combination. */
export interface TemporalTlsSettings {
  /** true/false when set, undefined when not: TLS is then on exactly when something below asks for it. */
  enabled: boolean | undefined;
  cert: string | undefined;
  key: string | undefined;
  ca: string | undefined;
  serverName: string | undefined;
}

/** Everything a helmflow process is configured with; each has a flag and an environment variable. */
export interface Settings {
  group: ApiGroup;
  kubeconfig: string | undefined;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTls: TemporalTlsSettings;
  /** A Temporal Cloud API key (sent as a bearer token, over TLS only); never logged. */
  temporalApiKey: string | undefined;
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

/** One row per setting: the flag, its environment variable and its default, so --help documents them all. */
export const settingSpecs = [
  {
    flag: '--group <group>',
    env: 'HELMFLOW_GROUP',
    def: DEFAULT_API_GROUP,
    help: 'API group: helm.k3sm.io or helm.cattle.io',
  },
  {
    flag: '--kubeconfig <path>',
    env: 'HELMFLOW_KUBECONFIG',
    def: '',
    help: 'kubeconfig (else in-cluster, $KUBECONFIG, k3s, ~/.kube/config)',
  },
  { flag: '--temporal-address <host:port>', env: 'TEMPORAL_ADDRESS', def: '127.0.0.1:7233', help: 'Temporal frontend' },
  { flag: '--temporal-namespace <ns>', env: 'TEMPORAL_NAMESPACE', def: 'default', help: 'Temporal namespace' },
  {
    flag: '--temporal-tls-cert <path>',
    env: 'TEMPORAL_TLS_CERT',
    def: '',
    help: 'client certificate for Temporal mTLS',
  },
  { flag: '--temporal-tls-key <path>', env: 'TEMPORAL_TLS_KEY', def: '', help: 'client key for Temporal mTLS' },
  { flag: '--temporal-tls-ca <path>', env: 'TEMPORAL_TLS_CA', def: '', help: 'CA of the Temporal server' },
  {
    flag: '--temporal-tls <true|false>',
    env: 'TEMPORAL_TLS',
    def: '',
    help: 'TLS to Temporal; true alone trusts the system CAs (default: on when a cert, CA, server name or API key is set)',
  },
  {
    flag: '--temporal-tls-server-name <name>',
    env: 'TEMPORAL_TLS_SERVER_NAME',
    def: '',
    help: 'server name expected in the Temporal server certificate',
  },
  {
    flag: '--temporal-api-key <key>',
    env: 'TEMPORAL_API_KEY',
    def: '',
    help: 'Temporal Cloud API key (prefer the variable: flags show in ps); implies TLS',
  },
  {
    flag: '--task-queue <name>',
    env: 'HELMFLOW_TASK_QUEUE',
    def: DEFAULT_TASK_QUEUE,
    help: 'Temporal task queue of the chart workflows',
  },
  {
    flag: '--lease-namespace <ns>',
    env: 'HELMFLOW_LEASE_NAMESPACE',
    def: DEFAULT_LEASE_NAMESPACE,
    help: 'namespace of the leader Lease',
  },
  {
    flag: '--lease-name <name>',
    env: 'HELMFLOW_LEASE_NAME',
    def: DEFAULT_LEASE_NAME,
    help: 'name of the leader Lease',
  },
  {
    flag: '--lease-duration-seconds <n>',
    env: 'HELMFLOW_LEASE_DURATION_SECONDS',
    def: String(DEFAULT_LEASE_TIMINGS.durationSeconds),
    help: 'how long a standby controller waits, from the last renewal it saw, before taking the Lease over',
  },
  {
    flag: '--lease-renew-deadline-seconds <n>',
    env: 'HELMFLOW_LEASE_RENEW_DEADLINE_SECONDS',
    def: String(DEFAULT_LEASE_TIMINGS.renewDeadlineSeconds),
    help: 'the leader stops acting when it could not renew the Lease for this long (below the duration)',
  },
  {
    flag: '--lease-retry-period-seconds <n>',
    env: 'HELMFLOW_LEASE_RETRY_PERIOD_SECONDS',
    def: String(DEFAULT_LEASE_TIMINGS.retryPeriodSeconds),
    help: 'how often the leader renews the Lease and a standby tries to take it (below the renew deadline)',
  },
  {
    flag: '--manifests-dir <dir>',
    env: 'HELMFLOW_MANIFESTS_DIR',
    def: '/var/lib/k3sm/manifests',
    help: 'auto-deploy directory ("" disables)',
  },
  {
    flag: '--http-port <port>',
    env: 'HELMFLOW_HTTP_PORT',
    def: '9090',
    help: '/metrics, /healthz, /readyz (0 disables)',
  },
  {
    flag: '--http-host <address>',
    env: 'HELMFLOW_HTTP_HOST',
    def: '127.0.0.1',
    help: 'address of the HTTP endpoint (0.0.0.0 in a pod)',
  },
  {
    flag: '--job-image <image>',
    env: 'HELMFLOW_JOB_IMAGE',
    def: DEFAULT_JOB_IMAGE,
    help: 'image with helm for the Jobs',
  },
  {
    flag: '--cluster-role <name>',
    env: 'HELMFLOW_CLUSTER_ROLE',
    def: DEFAULT_CLUSTER_ROLE,
    help: 'ClusterRole the chart identity is bound to',
  },
  {
    flag: '--api-server-port <port>',
    env: 'HELMFLOW_API_SERVER_PORT',
    def: '',
    help: 'apiserver port for bootstrap Jobs',
  },
  {
    flag: '--tuning <json>',
    env: 'HELMFLOW_TUNING',
    def: '',
    help: 'workflow durations as JSON (backoffBaseSeconds, …)',
  },
  {
    flag: '--activity-slots <n>',
    env: 'HELMFLOW_ACTIVITY_SLOTS',
    def: '1500',
    help: 'activity slots per worker; each chart waiting on its Job holds one',
  },
  {
    flag: '--max-running-jobs <n>',
    env: 'HELMFLOW_MAX_RUNNING_JOBS',
    def: String(DEFAULT_MAX_RUNNING_JOBS),
    help: 'install Jobs running at once, cluster-wide; more charts wait for a slot (JobCreated=False/WaitingForJobSlot)',
  },
  {
    flag: '--workflow-cache <n>',
    env: 'HELMFLOW_WORKFLOW_CACHE',
    def: String(DEFAULT_WORKFLOW_CACHE),
    help: 'chart workflows a worker keeps in memory; others replay their short history when they next run',
  },
  {
    flag: '--resync-seconds <n>',
    env: 'HELMFLOW_RESYNC_SECONDS',
    def: '300',
    help: 'how often the controller sweeps every chart; an idle chart costs no signal',
  },
  {
    flag: '--disable-leader-election',
    env: 'HELMFLOW_DISABLE_LEADER_ELECTION',
    def: '',
    help: 'act without the Lease (tests only)',
  },
] as const;

/** commander's camelCase option name for a flag like --temporal-address. */
export function optionKey(flag: string): string {
  const name = /^--([a-z-]+)/.exec(flag)?.[1] ?? '';
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function resolveSettings(options: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Settings {
  const value = (flag: string): string => {
    const spec = settingSpecs.find((s) => s.flag === flag);
    if (spec === undefined) throw new Error(`unknown setting ${flag}`);
    const given = options[optionKey(flag)];
    if (typeof given === 'string') return given;
    if (given === true) return 'true';
    return env[spec.env] ?? spec.def;
  };
  const group = value('--group <group>');
  if (!isApiGroup(group)) throw new Error(`--group must be helm.k3sm.io or helm.cattle.io, not ${group}`);
  const wholeNumber = (flag: string, min: number, what: string): number => {
    const given = value(flag);
    const n = Number(given);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag.split(' ')[0] ?? flag} must be ${what}, not ${given}`);
    return n;
  };
  const port = wholeNumber('--http-port <port>', 0, 'a port number');
  const apiServerPort = value('--api-server-port <port>');
  const activitySlots = wholeNumber('--activity-slots <n>', 1, 'a whole number of at least 1');
  const maxRunningJobs = wholeNumber('--max-running-jobs <n>', 1, 'a whole number of at least 1');
  const workflowCache = wholeNumber('--workflow-cache <n>', 0, 'a whole number');
  const resyncSeconds = wholeNumber('--resync-seconds <n>', 1, 'a whole number of at least 1');
  const leaseDurationSeconds = wholeNumber('--lease-duration-seconds <n>', 2, 'a whole number of at least 2');
  const leaseRenewDeadlineSeconds = wholeNumber(
    '--lease-renew-deadline-seconds <n>',
    1,
    'a whole number of at least 1',
  );
  const leaseRetryPeriodSeconds = wholeNumber('--lease-retry-period-seconds <n>', 1, 'a whole number of at least 1');
  // The leader must give up before a standby may take over, and must get to retry before it gives up.
  if (leaseRenewDeadlineSeconds >= leaseDurationSeconds || leaseRetryPeriodSeconds >= leaseRenewDeadlineSeconds) {
    throw new Error(
      `--lease-retry-period-seconds (${String(leaseRetryPeriodSeconds)}) must be below --lease-renew-deadline-seconds (${String(leaseRenewDeadlineSeconds)}), which must be below --lease-duration-seconds (${String(leaseDurationSeconds)})`,
    );
  }
  const tuning = value('--tuning <json>');
  const tls = value('--temporal-tls <true|false>');
  if (!['', 'true', 'false'].includes(tls)) throw new Error(`--temporal-tls must be true or false, not ${tls}`);
  const orUndefined = (v: string) => (v === '' ? undefined : v);
  return {
    group,
    kubeconfig: orUndefined(value('--kubeconfig <path>')),
    temporalAddress: value('--temporal-address <host:port>'),
    temporalNamespace: value('--temporal-namespace <ns>'),
    temporalTls: {
      cert: orUndefined(value('--temporal-tls-cert <path>')),
      key: orUndefined(value('--temporal-tls-key <path>')),
      ca: orUndefined(value('--temporal-tls-ca <path>')),
      serverName: orUndefined(value('--temporal-tls-server-name <name>')),
      enabled: tls === '' ? undefined : tls === 'true',
    },
    temporalApiKey: orUndefined(value('--temporal-api-key <key>')),
    taskQueue: value('--task-queue <name>'),
    leaseNamespace: value('--lease-namespace <ns>'),
    leaseName: value('--lease-name <name>'),
    leaseDurationSeconds,
    leaseRenewDeadlineSeconds,
    leaseRetryPeriodSeconds,
    manifestsDir: value('--manifests-dir <dir>'),
    httpPort: port,
    httpHost: value('--http-host <address>'),
    jobImage: value('--job-image <image>'),
    clusterRole: value('--cluster-role <name>'),
    apiServerPort: apiServerPort === '' ? undefined : Number(apiServerPort),
    tuning: tuning === '' ? undefined : (JSON.parse(tuning) as Partial<Tuning>),
    activitySlots,
    maxRunningJobs,
    workflowCache,
    resyncSeconds,
    disableLeaderElection: value('--disable-leader-election') === 'true',
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
