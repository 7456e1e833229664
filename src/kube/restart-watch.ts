import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { apiErrorOf } from './api-errors.js';

const defaultDelayMs = 2_000;

export interface RestartWatchOptions {
  /** The watch's name in logs, e.g. "helmcharts". */
  what: string;
  log: Logger;
  /** True once the owner stopped the informer on purpose: then an error is the stop, not a failure. */
  stopped: () => boolean;
  delayMs?: number;
}

/**
 * What the log says of a failed watch: the apiserver's status, reason and message, not client-node's whole
 * exception (its text carries every response header, one long line per failure).
 */
export function watchFailure(err: unknown): { status?: number; reason?: string; err: string } {
  const { status, reason, message } = apiErrorOf(err);
  return { ...(status === undefined ? {} : { status }), ...(reason === undefined ? {} : { reason }), err: message };
}

/**
 * Makes an informer recover by itself: a failed watch or list (an apiserver restart, a network error) is started
 * again after a short delay, and its fresh list brings the cache back in step. A restart that itself fails is
 * tried again, so an apiserver that is down for a while is waited out rather than given up on.
 */
export function restartOnError<T extends KubernetesObject>(
  informer: Informer<T>,
  { what, log, stopped, delayMs = defaultDelayMs }: RestartWatchOptions,
): void {
  const restartLater = () => {
    setTimeout(() => {
      if (stopped()) return;
      informer.start().catch((err: unknown) => {
        log.warn({ watch: what, ...watchFailure(err) }, 'watch restart failed; trying again');
        restartLater();
      });
    }, delayMs);
  };
  informer.on('error', (err: unknown) => {
    if (stopped()) return;
    log.warn({ watch: what, ...watchFailure(err) }, 'watch failed; restarting');
    restartLater();
  });
}
