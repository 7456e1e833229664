import {
  CoordinationV1Api,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';

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

/** Per-call options whose request is aborted by `signal` (the HTTP call is cut, not merely left behind). */
function abortedBy(signal: AbortSignal, options?: ConfigurationOptions): ConfigurationOptions {
  return {
    ...options,
    middleware: [
      ...(options?.middleware ?? []),
      {
        pre: (request) => {
          request.setSignal(signal);
          return new Observable(Promise.resolve(request));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}

/**
 * Settles as `call` does, or rejects as soon as `signal` aborts, whether or not the underlying call honours the
 * signal: the deadline holds even for a client that ignores it.
 */
export function untilAborted<T>(call: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('lease call aborted');
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
