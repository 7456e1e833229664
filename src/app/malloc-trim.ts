// glibc keeps the memory a process frees: it gives back only what lies at the top of its heaps, so after a burst of
// work (a thousand charts installed at once) helmflow stays as large as the burst made it. With 1,000 installed
// charts at rest, 65 of helmflow's 278 MiB were such freed memory, and glibc's malloc_trim gave them back (called
// from a debugger; bench/README.md). So helmflow calls it once it is quiet. Where there is no glibc (musl, macOS)
// there is nothing to call, and nothing is done.
import type { Logger } from 'pino';

/** How often helmflow looks whether to give freed memory back: a burst's goes within a minute or two of its end. */
export const TRIM_EVERY_MS = 60_000;

type Trim = (pad: number, done: (err: unknown, kept: number) => void) => void;

/**
 * glibc's malloc_trim(pad), called on a thread of libuv's pool; undefined where the C library is not glibc. koffi
 * is loaded on the first trim, so the CLI's short commands never load it.
 */
async function loadTrim(log: Logger): Promise<Trim | undefined> {
  const { default: koffi } = await import('koffi');
  try {
    // Off the event loop, on libuv's pool. After a burst the call can take most of a second, and it holds glibc's
    // arena locks meanwhile, so the event loop still waits at its next allocation (README, "What giving memory
    // back costs"): the quiet gate below keeps trims to moments when little is waiting.
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)').async as Trim;
  } catch {
    log.debug('no glibc: freed memory is left to the C library');
    return undefined;
  }
}

let loaded: Promise<Trim | undefined> | undefined;

/** Gives freed memory back to the system once; resolves whether there was a glibc to ask. */
export async function trimFreedMemory(log: Logger): Promise<boolean> {
  const trim = await (loaded ??= loadTrim(log));
  if (trim === undefined) return false;
  return new Promise((resolve, reject) => {
    trim(0, (err) => {
      if (err === null || err === undefined) resolve(true);
      else reject(err instanceof Error ? err : new Error('malloc_trim failed', { cause: err }));
    });
  });
}

/** The share of one core below which the process counts as quiet. */
export const QUIET_CORE_SHARE = 0.2;

/**
 * Whether to trim after `everyMs` in which the process used `cpuMicros` of CPU: only once it is quiet. Trimming while
 * it works would give back pages it takes again at once, each costing a page fault.
 */
export function quietEnoughToTrim(cpuMicros: number, everyMs: number): boolean {
  return cpuMicros <= QUIET_CORE_SHARE * everyMs * 1000;
}

/** One trim as the process saw it: how long the call took, and how far its resident memory fell meanwhile. */
export interface TrimOutcome {
  seconds: number;
  returnedBytes: number;
}

/**
 * Every `everyMs`, trims if the process was quiet since the last look, until stopped; never keeps it running. Each
 * trim that ran is handed to `onTrim` (the metrics), so what trimming costs and gives back is seen, not guessed.
 */
export function trimFreedMemoryEvery(
  log: Logger,
  onTrim: (outcome: TrimOutcome) => void,
  everyMs = TRIM_EVERY_MS,
): { stop: () => void } {
  let running = false;
  let since = process.cpuUsage();
  const timer = setInterval(() => {
    const used = process.cpuUsage(since);
    since = process.cpuUsage();
    if (running || !quietEnoughToTrim(used.user + used.system, everyMs)) return;
    running = true;
    const started = performance.now();
    const before = process.memoryUsage.rss();
    trimFreedMemory(log)
      .then((trimmed) => {
        if (!trimmed) return;
        const outcome = {
          seconds: (performance.now() - started) / 1000,
          returnedBytes: before - process.memoryUsage.rss(),
        };
        log.debug(outcome, 'gave freed memory back');
        onTrim(outcome);
      })
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
