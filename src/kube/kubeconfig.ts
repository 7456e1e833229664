import { KubeConfig } from './k8s.js';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PooledKubeConfig } from './pooled-kube-config.js';

/**
 * Where the controller's and the worker's KubeConfig comes from: what the operator set wins, then what the
 * machine offers. An explicit path (--kubeconfig / HELMFLOW_KUBECONFIG), else $KUBECONFIG, else the pod's
 * in-cluster service account, else k3s's default, else ~/.kube/config. First match wins, and the caller logs the
 * description. An explicit choice that cannot be honoured (a flag or $KUBECONFIG naming no file) is an error
 * rather than a silent fall-through, so an operator's setting is never quietly ignored.
 */

export const IN_CLUSTER_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * Moves the in-cluster arm's service-account directory. For tests only: a process can then be shown a pod's
 * identity and a --kubeconfig at once, which no real pod needs.
 */
export const SERVICE_ACCOUNT_DIR_ENV = 'HELMFLOW_TEST_SERVICE_ACCOUNT_DIR';
export const K3S_KUBECONFIG = '/etc/rancher/k3s/k3s.yaml';

export type KubeConfigSourceKind = 'in-cluster' | 'flag' | 'KUBECONFIG' | 'k3s' | 'home';

export interface KubeConfigSources {
  /** The --kubeconfig flag, if given. */
  explicitPath?: string | undefined;
  /** Defaults to process.env; read for KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT and SERVICE_ACCOUNT_DIR_ENV. */
  env?: NodeJS.ProcessEnv;
  /** Where the pod's ServiceAccount files are mounted; injectable for tests. */
  serviceAccountDir?: string;
  /** k3s's admin kubeconfig; injectable for tests. */
  k3sPath?: string;
  /** The home directory whose .kube/config is the last arm; injectable for tests. */
  homeDir?: string;
}

export interface ResolvedKubeConfig {
  kubeConfig: KubeConfig;
  source: KubeConfigSourceKind;
  /** The file(s) or directory it was read from. */
  location: string;
  /** One line for the log: which arm won and from where. */
  description: string;
}

export function resolveKubeConfig(sources: KubeConfigSources = {}): ResolvedKubeConfig {
  const env = sources.env ?? process.env;
  const movedSaDir = env[SERVICE_ACCOUNT_DIR_ENV];
  const saDir =
    sources.serviceAccountDir ??
    (movedSaDir !== undefined && movedSaDir !== '' ? movedSaDir : IN_CLUSTER_SERVICE_ACCOUNT_DIR);
  const tried: string[] = [];

  if (sources.explicitPath !== undefined && sources.explicitPath !== '') {
    const file = sources.explicitPath;
    if (!existsSync(file)) throw new Error(`the kubeconfig given with --kubeconfig does not exist: ${file}`);
    return fromFiles('flag', [file], `--kubeconfig ${file}`);
  }
  tried.push('--kubeconfig (not given)');

  const fromEnv = env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== '') {
    // Like kubectl: a list of files, merged, the first one's current-context winning; missing entries skipped.
    const files = fromEnv.split(path.delimiter).filter((f) => f !== '');
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) throw new Error(`KUBECONFIG names no existing file: ${fromEnv}`);
    return fromFiles('KUBECONFIG', present, `$KUBECONFIG ${present.join(path.delimiter)}`);
  }
  tried.push('$KUBECONFIG (not set)');

  const inCluster = inClusterConfig(saDir, env);
  if (inCluster !== undefined) return inCluster;
  tried.push(`in-cluster (${saDir} with KUBERNETES_SERVICE_HOST/PORT)`);

  const k3s = sources.k3sPath ?? K3S_KUBECONFIG;
  if (existsSync(k3s)) return fromFiles('k3s', [k3s], `k3s default ${k3s}`);
  tried.push(k3s);

  const home = path.join(sources.homeDir ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return fromFiles('home', [home], `home ${home}`);
  tried.push(home);

  throw new Error(`no kubeconfig found; tried, in order: ${tried.join('; ')}`);
}

function fromFiles(source: KubeConfigSourceKind, files: string[], what: string): ResolvedKubeConfig {
  const kubeConfig = new PooledKubeConfig();
  const [first, ...rest] = files;
  if (first === undefined) throw new Error('no kubeconfig file to load');
  kubeConfig.loadFromFile(first);
  for (const file of rest) {
    const more = new KubeConfig();
    more.loadFromFile(file);
    kubeConfig.mergeConfig(more, true);
  }
  const server = kubeConfig.getCurrentCluster()?.server ?? 'no current cluster';
  return {
    kubeConfig,
    source,
    location: files.join(path.delimiter),
    description: `kubeconfig from ${what} (context ${kubeConfig.getCurrentContext()}, server ${server})`,
  };
}

/**
 * The pod's own identity, as client-go's rest.InClusterConfig: the token and CA files and the service env
 * must all be there. The token is read through a file provider, so a rotated projected token is picked up.
 */
function inClusterConfig(saDir: string, env: NodeJS.ProcessEnv): ResolvedKubeConfig | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenFile = path.join(saDir, 'token');
  const caFile = path.join(saDir, 'ca.crt');
  if (host === undefined || host === '' || port === undefined || port === '') return undefined;
  if (!existsSync(tokenFile) || !existsSync(caFile)) return undefined;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const namespaceFile = path.join(saDir, 'namespace');
  const kubeConfig = new PooledKubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'in-cluster', server, caFile, skipTLSVerify: false }],
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [
      {
        name: 'in-cluster',
        cluster: 'in-cluster',
        user: 'in-cluster',
        ...(existsSync(namespaceFile) ? { namespace: readTrimmed(namespaceFile) } : {}),
      },
    ],
    currentContext: 'in-cluster',
  });
  return {
    kubeConfig,
    source: 'in-cluster',
    location: saDir,
    description: `kubeconfig from the in-cluster service account ${saDir} (server ${server})`,
  };
}

function readTrimmed(file: string): string {
  return readFileSync(file, 'utf8').trim();
}
