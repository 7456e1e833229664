import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { resolveKubeConfig, type KubeConfigSources } from '../../src/kube/kubeconfig.js';

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

describe('the kubeconfig chain: in-cluster, flag, $KUBECONFIG, k3s, ~/.kube/config', () => {
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

  it('prefers the in-cluster service account when its files and the service env are present', () => {
    writeAll();
    const resolved = resolveKubeConfig(sources());
    expect(resolved.source).toBe('in-cluster');
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://10.43.0.1:443');
    expect(resolved.kubeConfig.getCurrentCluster()?.caFile).toBe(path.join(saDir, 'ca.crt'));
    expect(resolved.kubeConfig.getContextObject(resolved.kubeConfig.getCurrentContext())?.namespace).toBe(
      'kube-system',
    );
    expect(resolved.description).toContain(saDir);
  });

  it('brackets an IPv6 service host', () => {
    writeAll();
    const resolved = resolveKubeConfig(
      sources({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' } }),
    );
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
  });

  it('is not in-cluster without the service env, even with the files present', () => {
    writeAll();
    const resolved = resolveKubeConfig(sources({ env: { KUBECONFIG: envPath } }));
    expect(resolved.source).toBe('flag');
  });

  it('is not in-cluster without the token file', () => {
    writeAll();
    rmSync(path.join(saDir, 'token'));
    expect(resolveKubeConfig(sources()).source).toBe('flag');
  });

  it('takes the explicit path next, and names it', () => {
    writeAll();
    rmSync(saDir, { recursive: true });
    const resolved = resolveKubeConfig(sources());
    expect(resolved).toEqual(expect.objectContaining({ source: 'flag', location: flagPath }));
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://flag:6443');
    expect(resolved.description).toContain(`--kubeconfig ${flagPath}`);
  });

  it('refuses an explicit path that does not exist instead of falling through', () => {
    writeAll();
    expect(() =>
      resolveKubeConfig(
        sources({ serviceAccountDir: path.join(root, 'none'), explicitPath: path.join(root, 'missing.yaml') }),
      ),
    ).toThrow(/--kubeconfig does not exist: .*missing\.yaml/);
  });

  it('takes $KUBECONFIG next', () => {
    writeAll();
    const resolved = resolveKubeConfig(
      sources({ serviceAccountDir: path.join(root, 'none'), explicitPath: undefined }),
    );
    expect(resolved.source).toBe('KUBECONFIG');
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://env:6443');
    expect(resolved.description).toContain('$KUBECONFIG');
  });

  it('merges a $KUBECONFIG list like kubectl: the first current-context wins, missing entries are skipped', () => {
    writeAll();
    const second = kubeconfigFile(path.join(root, 'second.yaml'), 'https://second:6443', 'second');
    const list = [path.join(root, 'absent.yaml'), envPath, second].join(path.delimiter);
    const resolved = resolveKubeConfig(
      sources({ serviceAccountDir: path.join(root, 'none'), explicitPath: undefined, env: { KUBECONFIG: list } }),
    );
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://env:6443');
    expect(resolved.kubeConfig.getContexts().map((c) => c.name)).toEqual(['ctx', 'second']);
    expect(resolved.location).toBe([envPath, second].join(path.delimiter));
  });

  it('refuses a $KUBECONFIG that names no existing file', () => {
    writeAll();
    expect(() =>
      resolveKubeConfig(
        sources({
          serviceAccountDir: path.join(root, 'none'),
          explicitPath: undefined,
          env: { KUBECONFIG: path.join(root, 'nope.yaml') },
        }),
      ),
    ).toThrow(/KUBECONFIG names no existing file/);
  });

  it('takes k3s.yaml next', () => {
    writeAll();
    const resolved = resolveKubeConfig(
      sources({ serviceAccountDir: path.join(root, 'none'), explicitPath: undefined, env: {} }),
    );
    expect(resolved).toEqual(expect.objectContaining({ source: 'k3s', location: k3sPath }));
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://k3s:6443');
  });

  it('takes ~/.kube/config last', () => {
    writeAll();
    rmSync(k3sPath);
    const resolved = resolveKubeConfig(
      sources({ serviceAccountDir: path.join(root, 'none'), explicitPath: '', env: { KUBECONFIG: '' } }),
    );
    expect(resolved.source).toBe('home');
    expect(resolved.kubeConfig.getCurrentCluster()?.server).toBe('https://home:6443');
    expect(resolved.description).toContain(path.join(homeDir, '.kube', 'config'));
  });

  it('fails naming every place it looked when nothing is found', () => {
    expect(() => resolveKubeConfig(sources({ explicitPath: undefined, env: {} }))).toThrow(
      new RegExp(`no kubeconfig found.*${k3sPath}.*${path.join(homeDir, '.kube', 'config')}`),
    );
  });
});
