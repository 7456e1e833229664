import path from 'node:path';

/** Loopback ports of one embedded stack. A test stack uses its own set so it never meets a user's stack. */
export interface StackPorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  nativeNodeKubelet: number;
  temporal: number;
  temporalUi: number;
  temporalMetrics: number;
}

export const defaultPorts: StackPorts = {
  etcdClient: 12379,
  etcdPeer: 12380,
  apiserver: 16443,
  controllerManager: 20257,
  nativeNodeKubelet: 20250,
  temporal: 7233,
  temporalUi: 8233,
  temporalMetrics: 20900,
};

/** The same ports shifted by `offset`, for a second stack beside the first. */
export function shiftedPorts(offset: number): StackPorts {
  const shifted = { ...defaultPorts };
  for (const key of Object.keys(shifted) as (keyof StackPorts)[]) shifted[key] += offset;
  return shifted;
}

export type Component = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'native-node' | 'temporal';

/** A process the stack directory owns: a component, or helmflow itself started on the stack by `up`. */
export type Daemon = Component | 'helmflow';

/** Start order; stop runs it backwards. */
export const components: readonly Component[] = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'native-node',
  'temporal',
];

/** Every file of a stack, derived from its state directory so nothing is spread around the machine. */
export class StackLayout {
  constructor(
    readonly stateDir: string,
    readonly ports: StackPorts,
  ) {}

  get pkiDir(): string {
    return path.join(this.stateDir, 'pki');
  }
  get caCert(): string {
    return path.join(this.pkiDir, 'ca.crt');
  }
  get caKey(): string {
    return path.join(this.pkiDir, 'ca.key');
  }
  get apiserverCert(): string {
    return path.join(this.pkiDir, 'apiserver.crt');
  }
  get apiserverKey(): string {
    return path.join(this.pkiDir, 'apiserver.key');
  }
  get kubeletCert(): string {
    return path.join(this.pkiDir, 'kubelet.crt');
  }
  get kubeletKey(): string {
    return path.join(this.pkiDir, 'kubelet.key');
  }
  get serviceAccountKey(): string {
    return path.join(this.pkiDir, 'service-account.key');
  }
  get serviceAccountPub(): string {
    return path.join(this.pkiDir, 'service-account.pub');
  }
  get tokenFile(): string {
    return path.join(this.pkiDir, 'tokens.csv');
  }
  /** The admin kubeconfig the README points users at. */
  get adminKubeconfig(): string {
    return path.join(this.stateDir, 'kubeconfig');
  }
  get controllerManagerKubeconfig(): string {
    return path.join(this.pkiDir, 'controller-manager.kubeconfig');
  }
  get nativeNodeKubeconfig(): string {
    return path.join(this.pkiDir, 'native-node.kubeconfig');
  }
  get etcdDataDir(): string {
    return path.join(this.stateDir, 'etcd');
  }
  get temporalDb(): string {
    return path.join(this.stateDir, 'temporal.db');
  }
  get podsDir(): string {
    return path.join(this.stateDir, 'pods');
  }
  /** Binaries the native node puts first on a pod's PATH (helm and kubectl at their pinned builds). */
  get nodeBinDir(): string {
    return path.join(this.stateDir, 'node-bin');
  }
  /** The embedded stack's auto-deploy directory (the seed's /var/lib/k3sm/manifests). */
  get manifestsDir(): string {
    return path.join(this.stateDir, 'manifests');
  }
  get logsDir(): string {
    return path.join(this.stateDir, 'logs');
  }
  logFile(component: Daemon): string {
    return path.join(this.logsDir, `${component}.log`);
  }
  pidFile(component: Daemon): string {
    return path.join(this.stateDir, 'run', `${component}.pid`);
  }
  get apiserverUrl(): string {
    return `https://127.0.0.1:${this.ports.apiserver}`;
  }
  get temporalAddress(): string {
    return `127.0.0.1:${this.ports.temporal}`;
  }
  get temporalUiUrl(): string {
    return `http://127.0.0.1:${this.ports.temporalUi}`;
  }
}
