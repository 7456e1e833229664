import type { ConfigurationOptions } from '@kubernetes/client-node';
import { Observable } from './k8s.js';

/** Per-call options whose request is aborted by `signal` (the HTTP call is cut, not merely left behind). */
export function abortedBy(signal: AbortSignal, options?: ConfigurationOptions): ConfigurationOptions {
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
  return signal.reason instanceof Error ? signal.reason : new Error('call aborted');
}

/**
 * `call` with a deadline of `ms`: its HTTP request is cut then (a call on a half-open connection would otherwise
 * wait for as long as the connection lives), and it rejects saying which call did not answer.
 */
export async function withDeadline<T>(
  what: string,
  ms: number,
  call: (options: ConfigurationOptions) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await untilAborted(call(abortedBy(signal)), signal);
  } catch (err) {
    if (signal.aborted) throw new Error(`${what} did not answer within ${String(ms)} ms`);
    throw err;
  }
}
