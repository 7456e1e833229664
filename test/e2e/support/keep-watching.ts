import { Watch } from '@kubernetes/client-node';
import { waitFor } from '../../../src/lib/wait.js';
import { kubeConfig } from './kube.js';

export interface Listed<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface WatchHandlers<T> {
  /** A watch event, as it arrives. */
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** Everything that exists after a (re)list: what changed while no watch ran is found here. */
  listed(items: T[]): void;
}

/** A watch that outlives apiserver restarts; `gaps` counts how often it had to list again. */
export interface LastingWatch {
  readonly gaps: number;
  /** Set when it could not list again within its deadline: the record is incomplete from then on. */
  readonly failure: Error | undefined;
  stop(): void;
}

/**
 * List, then watch from the list's resourceVersion; when the watch ends (an apiserver killed, a 410 for a
 * version it no longer has) list again and go on. Objects created and removed between the end of a watch and
 * the next list are the only ones it can miss; a gap lasts from the apiserver answering again to one list.
 */
export async function keepWatching<T>(
  path: string,
  list: () => Promise<Listed<T>>,
  handlers: WatchHandlers<T>,
): Promise<LastingWatch> {
  const state = { stopped: false };
  let gaps = 0;
  let failure: Error | undefined;
  let abort: AbortController | undefined;

  const start = async (): Promise<{ end: Promise<void> }> => {
    const listed = await list();
    handlers.listed(listed.items);
    let ended!: () => void;
    const end = new Promise<void>((resolve) => {
      ended = resolve;
    });
    abort = await new Watch(kubeConfig()).watch(
      path,
      { resourceVersion: listed.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type: string, object: T) => {
        if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') handlers.event(type, object);
        else if (type === 'ERROR') abort?.abort();
      },
      () => {
        ended();
      },
    );
    return { end };
  };
  // The end is wrapped in an object: a promise returned as is would be awaited to the watch's end.
  const once = () => waitFor(`the apiserver to list and watch ${path}`, start, { timeoutMs: 300_000, intervalMs: 100 });

  let current = await once();
  void (async () => {
    try {
      for (;;) {
        await current.end;
        if (state.stopped) return;
        gaps += 1;
        current = await once();
      }
    } catch (err) {
      failure = err as Error;
    }
  })();
  return {
    get gaps() {
      return gaps;
    },
    get failure() {
      return failure;
    },
    stop: () => {
      state.stopped = true;
      abort?.abort();
    },
  };
}
