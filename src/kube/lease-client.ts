import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { CoordinationV1Api, PatchStrategy, setHeaderOptions } from './k8s.js';
import { abortedBy, untilAborted } from './deadline.js';

/**
 * The calls a LeaderElector makes on its Lease. Each is given the signal of its deadline and must end (reject)
 * when it aborts: a leader on a half-open connection may not wait for its call longer than it may lead.
 */
export interface LeaseClient {
  read(signal: AbortSignal): Promise<V1Lease>;
  create(body: V1Lease, signal: AbortSignal): Promise<V1Lease>;
  /** A JSON merge patch carrying the resourceVersion that was read. */
  patch(body: object, signal: AbortSignal): Promise<V1Lease>;
}

/** The LeaseClient of one Lease through the Kubernetes API. */
export function kubeLeaseClient(kubeConfig: KubeConfig, namespace: string, name: string): LeaseClient {
  const api = kubeConfig.makeApiClient(CoordinationV1Api);
  return {
    read: (signal) => untilAborted(api.readNamespacedLease({ name, namespace }, abortedBy(signal)), signal),
    create: (body, signal) => untilAborted(api.createNamespacedLease({ namespace, body }, abortedBy(signal)), signal),
    patch: (body, signal) =>
      untilAborted(
        api.patchNamespacedLease(
          { name, namespace, body },
          abortedBy(signal, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
        ),
        signal,
      ),
  };
}
