import type { V1EnvVar, V1Toleration } from '@kubernetes/client-node';

/**
 * A bootstrap chart (CNI, cloud controller, ...) must install before the cluster network and nodes are ready,
 * so, as in k3s, its Job uses the host network, reaches the apiserver on localhost, runs on a control-plane
 * node and tolerates the taints of a node that is not ready yet.
 */
export const BOOTSTRAP_NODE_SELECTOR: Readonly<Record<string, string>> = {
  'node-role.kubernetes.io/control-plane': 'true',
};

export function bootstrapTolerations(): V1Toleration[] {
  return [
    { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' },
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
    { key: 'CriticalAddonsOnly', operator: 'Exists' },
    { key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  ];
}

/** The in-cluster apiserver address helm uses, pointed at the host's apiserver (no cluster DNS or service yet). */
export function bootstrapEnv(apiServerPort: number): V1EnvVar[] {
  return [
    { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
    { name: 'KUBERNETES_SERVICE_PORT', value: String(apiServerPort) },
  ];
}
