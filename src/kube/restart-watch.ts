import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';

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
        log.warn({ watch: what, err: (err as Error | undefined)?.message }, 'watch restart failed; trying again');
        restartLater();
      });
    }, delayMs);
  };
  informer.on('error', (err: unknown) => {
    if (stopped()) return;
    log.warn({ watch: what, err: (err as Error | undefined)?.message }, 'watch failed; restarting');
    restartLater();
  });
}
