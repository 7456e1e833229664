// What a waiting step's looks keep in memory: N activities at once, each looking L times with a short wait between
// looks, as helmflow's Job-slot wait and Job wait do (a look a second, for up to 25 and 10 minutes). Side by side:
// the SDK's Context.sleep and activities/next-look.ts. For each it prints the main thread's JS heap still in use once the
// looks are done but the activities not yet ended (after a full collection), per activity and per look. Runs in
// Temporal's MockActivityEnvironment: no server, so the figure is the wait's alone.
// Run: node --expose-gc --import tsx bench/waiting-looks.ts [--activities N] [--looks L]
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { nextLook } from '../activities/next-look.js';
import { benchCommand, wholeNumber } from './flags.js';

const { activities, looks } = benchCommand('waiting-looks', "What a waiting step's looks keep in memory")
  .option('--activities <n>', 'activities waiting at once', wholeNumber(1), 1000)
  .option('--looks <n>', 'looks each activity makes', wholeNumber(1), 300)
  .parse()
  .opts<{ activities: number; looks: number }>();
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined)
  throw new Error('run node with --expose-gc: node --expose-gc --import tsx bench/waiting-looks.ts');

type Wait = (context: Context) => Promise<void>;
const designs: [string, Wait][] = [
  ['Context.sleep(1)', (context) => context.sleep(1)],
  ['nextLook(context, 1) (activities/next-look.ts)', (context) => nextLook(context, 1)],
];

function heapUsed(): number {
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

/** Heap kept by `activities` activities that each paused `looks` times and have not ended yet. */
async function kept(wait: Wait): Promise<number> {
  let release: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (release = resolve));
  let done = 0;
  let allLooked: () => void = () => undefined;
  const looked = new Promise<void>((resolve) => (allLooked = resolve));
  const before = heapUsed();
  const running = Array.from({ length: activities }, () =>
    new MockActivityEnvironment().run(async () => {
      const context = Context.current();
      for (let i = 0; i < looks; i++) await wait(context);
      done += 1;
      if (done === activities) allLooked();
      await ended;
    }),
  );
  await looked;
  await yieldToLoop();
  const after = heapUsed();
  release();
  await Promise.all(running);
  return after - before;
}

console.log(`${String(activities)} activities at once, ${String(looks)} looks each, 1 ms between looks`);
for (const [name, wait] of designs) {
  const bytes = await kept(wait);
  console.log(
    `  ${name.padEnd(48)} heap kept ${(bytes / 2 ** 20).toFixed(1).padStart(7)} MiB, ` +
      `${(bytes / activities / 1024).toFixed(1).padStart(7)} KiB per activity, ${(bytes / activities / looks).toFixed(0).padStart(5)} B per look`,
  );
}
