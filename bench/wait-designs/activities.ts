// The bench's stand-ins for helmflow's Job activities. "The Job" is an in-process flag: the cost measured is
// Temporal's, not the apiserver's (helmflow's awaitJob reads a shared informer cache, which is just as cheap).
import { Context } from '@temporalio/activity';

export type JobOutcome = 'succeeded';

/** All the bench's Jobs: they finish together when the bench says so. */
export class FakeJobs {
  finished = false;
  /** awaitJob activities running now (design (a)). */
  waiting = 0;
  /** readJob activities run so far (design (b)). */
  reads = 0;
}

export interface WaitActivities {
  awaitJob(): Promise<JobOutcome>;
  readJob(): Promise<JobOutcome | undefined>;
}

/** activities/jobs.ts looks at its Job once a second and heartbeats after each look. */
const pollMs = 1_000;

export function createWaitActivities(jobs: FakeJobs): WaitActivities {
  return {
    async awaitJob() {
      const context = Context.current();
      jobs.waiting += 1;
      try {
        for (;;) {
          if (jobs.finished) return 'succeeded';
          // As in helmflow: a heartbeat per look; the SDK sends one to the server at most every
          // 0.8 × heartbeatTimeout (24 s), which is what the server pays for.
          context.heartbeat();
          await context.sleep(pollMs);
        }
      } finally {
        jobs.waiting -= 1;
      }
    },
    readJob() {
      jobs.reads += 1;
      return Promise.resolve(jobs.finished ? 'succeeded' : undefined);
    },
  };
}
