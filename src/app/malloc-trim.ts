// glibc keeps the memory a process frees: it gives back only what lies at the top of its heaps, so after a burst of
// work (a thousand charts installed at once) helmflow stays as large as the burst made it. With 1,000 installed
// charts at rest, 65 of helmflow's 278 MiB were such freed memory, and glibc's malloc_trim gave them back (called
// from a debugger; bench/README.md). So helmflow calls it now and then. Where there is no glibc (musl, macOS) there
// is nothing to call, and nothing is done.
import koffi from 'koffi';
import type { Logger } from 'pino';

/** How often freed memory is given back: a burst's memory goes within a minute of the burst. */
export const TRIM_EVERY_MS = 60_000;

type Trim = (pad: number, done: (err: unknown, kept: number) => void) => void;

/** glibc's malloc_trim(pad), called on a thread of libuv's pool; undefined where the C library is not glibc. */
function loadTrim(): Trim | undefined {
  try {
    // After a burst the call can take a second, with the event loop free meanwhile.
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)').async as Trim;
  } catch {
    return undefined;
  }
}

let loaded: { trim: Trim | undefined } | undefined;
const glibcTrim = (): Trim | undefined => (loaded ??= { trim: loadTrim() }).trim;

/** Gives freed memory back to the system once; resolves whether there was a glibc to ask. */
export function trimFreedMemory(): Promise<boolean> {
  const trim = glibcTrim();
  return new Promise((resolve, reject) => {
    if (trim === undefined) {
      resolve(false);
      return;
    }
    trim(0, (err) => {
      if (err === null || err === undefined) resolve(true);
      else reject(err instanceof Error ? err : new Error('malloc_trim failed', { cause: err }));
    });
  });
}

/** Trims every `everyMs` until stopped; the timer never keeps the process running. */
export function trimFreedMemoryEvery(log: Logger, everyMs = TRIM_EVERY_MS): { stop: () => void } {
  if (glibcTrim() === undefined) {
    log.debug('no glibc: freed memory is left to the C library');
    return { stop: () => undefined };
  }
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    trimFreedMemory()
      .catch((err: unknown) => {
        log.warn({ err }, 'could not give freed memory back');
      })
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}
