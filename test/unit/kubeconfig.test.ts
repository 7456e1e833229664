import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { resolveKubeConfig, SERVICE_ACCOUNT_DIR_ENV, type KubeConfigSources } from '../../src/kube/kubeconfig.js';

// Each arm of the chain gets a file naming a different server, so the test sees which arm won.
function kubeconfigFile(file: string, server: string, context = 'ctx'): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: context, cluster: { server } }],
      users: [{ name: context, user: { token: 't' } }],
      contexts: [{ name: context, context: { cluster: context, user: context } }],
      'current-context': context,
    }),
  );
  return file;
}

describe('the kubeconfig chain: flag, $KUBECONFIG, in-cluster, k3s, ~/.kube/config', () => {
  let root: string;
  let saDir: string;
  let k3sPath: string;
  let homeDir: string;
  let flagPath: string;
  let envPath: string;
  const inClusterEnv = { KUBERNETES_SERVICE_HOST: '10.43.0.1', KUBERNETES_SERVICE_PORT: '443' };

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'hf-kubeconfig-'));
    saDir = path.join(root, 'sa');
    k3sPath = path.join(root, 'etc', 'k3s.yaml');
    homeDir = path.join(root, 'home');
    flagPath = path.join(root, 'flag.yaml');
    envPath = path.join(root, 'env.yaml');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  function writeAll(): void {
    mkdirSync(saDir, { recursive: true });
    writeFileSync(path.join(saDir, 'token'), 'sa-token');
    writeFileSync(path.join(saDir, 'ca.crt'), 'not a real CA');
    writeFileSync(path.join(saDir, 'namespace'), 'kube-system\n');
    kubeconfigFile(flagPath, 'https://flag:6443');
    kubeconfigFile(envPath, 'https://env:6443');
    kubeconfigFile(k3sPath, 'https://k3s:6443');
    kubeconfigFile(path.join(homeDir, '.kube', 'config'), 'https://home:6443');
  }

  const sources = (over: Partial<KubeConfigSources> = {}): KubeConfigSources => ({
    serviceAccountDir: saDir,
    k3sPath,
    homeDir,
    explicitPath: flagPath,
    env: { ...inClusterEnv, KUBECONFIG: envPath },
    ...over,
  });
  const none = () => path.join(root, 'none');

  // Each row takes away the arms before the expected one; every arm after it stays present, so the row fails
  // if a later arm is put in front.
  it.each<[string, () => Partial<KubeConfigSources>, string, string]>([
    ['the flag over everything, in-cluster included', () => ({}), 'flag', 'https://flag:6443'],
    ['$KUBECONFIG over in-cluster', () => ({ explicitPath: undefined }), 'KUBECONFIG', 'https://env:6443'],
    ['$KUBECONFIG when the flag is empty', () => ({ explicitPath: '' }), 'KUBECONFIG', 'https://env:6443'],
    [
      'in-cluster over k3s and home',
      () => ({ explicitPath: undefined, env: inClusterEnv }),
      'in-cluster',
      'https://10.43.0.1:443',
    ],
    ['k3s when not in a pod (no service env)', () => ({ explicitPath: undefined, env: {} }), 'k3s', 'https://k3s:6443'],
    [
      'k3s when the token file is missing',
      () => ({ explicitPath: undefined, env: inClusterEnv, serviceAccountDir: none() }),
      'k3s',
      'https://k3s:6443',
    ],
  ])('takes %s', (_, over, source, server) => {
    writeAll();
    const resolved = resolveKubeConfig(sources(over()));
    expect(resolved.source).toBe(source);
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe(server);
  });

  it('reads the pod identity in-cluster: the CA file, the namespace, and names the directory', () => {
    writeAll();
    const resolved = resolveKubeConfig(sources({ explicitPath: undefined, env: inClusterEnv }));
    expect(resolved.kubeConfig.getCurrentCluster()?.caFile).toBe(path.join(saDir, 'ca.crt'));
    expect(resolved.kubeConfig.getContextObject(resolved.kubeConfig.getCurrentContext())?.namespace).toBe(
      'kube-system',
    );
    expect(resolved.description).toContain(saDir);
  });

  it('finds the service-account directory named by the test-only variable when none is passed', () => {
    writeAll();
    const resolved = resolveKubeConfig({
      env: { ...inClusterEnv, [SERVICE_ACCOUNT_DIR_ENV]: saDir },
      k3sPath,
      homeDir,
    });
    expect(resolved).toEqual(expect.objectContaining({ source: 'in-cluster', location: saDir }));
  });

  it('brackets an IPv6 service host', () => {
    writeAll();
    const resolved = resolveKubeConfig(
      sources({ explicitPath: undefined, env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' } }),
    );
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
  });

  it('names the flag it took', () => {
    writeAll();
    const resolved = resolveKubeConfig(sources());
    expect(resolved).toEqual(expect.objectContaining({ source: 'flag', location: flagPath }));
    expect(resolved.description).toContain(`--kubeconfig ${flagPath}`);
  });

  it('refuses an explicit path that does not exist instead of falling through, even in a pod', () => {
    writeAll();
    expect(() => resolveKubeConfig(sources({ explicitPath: path.join(root, 'missing.yaml') }))).toThrow(
      /--kubeconfig does not exist: .*missing\.yaml/,
    );
  });

  it('merges a $KUBECONFIG list like kubectl: the first current-context wins, missing entries are skipped', () => {
    writeAll();
    const second = kubeconfigFile(path.join(root, 'second.yaml'), 'https://second:6443', 'second');
    const list = [path.join(root, 'absent.yaml'), envPath, second].join(path.delimiter);
    const resolved = resolveKubeConfig(
      sources({ explicitPath: undefined, env: { ...inClusterEnv, KUBECONFIG: list } }),
    );
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://env:6443');
    expect(resolved.kubeConfig.getContexts().map((c) => c.name)).toEqual(['ctx', 'second']);
    expect(resolved.location).toBe([envPath, second].join(path.delimiter));
    expect(resolved.description).toContain('$KUBECONFIG');
  });

  it('refuses a $KUBECONFIG that names no existing file, even in a pod', () => {
    writeAll();
    expect(() =>
      resolveKubeConfig(
        sources({ explicitPath: undefined, env: { ...inClusterEnv, KUBECONFIG: path.join(root, 'nope.yaml') } }),
      ),
    ).toThrow(/KUBECONFIG names no existing file/);
  });

  it('takes ~/.kube/config last', () => {
    writeAll();
    rmSync(k3sPath);
    const resolved = resolveKubeConfig(
      sources({ serviceAccountDir: none(), explicitPath: '', env: { ...inClusterEnv, KUBECONFIG: '' } }),
    );
    expect(resolved.source).toBe('home');
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://home:6443');
    expect(resolved.description).toContain(path.join(homeDir, '.kube', 'config'));
  });

  it('fails naming every place it looked when nothing is found', () => {
    expect(() => resolveKubeConfig(sources({ explicitPath: undefined, env: {} }))).toThrow(
      new RegExp(`no kubeconfig found.*in-cluster.*${k3sPath}.*${path.join(homeDir, '.kube', 'config')}`),
    );
  });
});
