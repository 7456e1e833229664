import { deleteRunningHelmflowJobs } from './leftover-jobs.js';

// Each e2e file starts with no helmflow Job of an earlier file still running (leftover-jobs.ts says why). A stack
// that cannot be reached here is left to the file's own tests to report.
beforeAll(async () => {
  try {
    const deleted = await deleteRunningHelmflowJobs();
    if (deleted.length > 0)
      process.stderr.write(`helmflow e2e: deleted Jobs earlier files left running: ${deleted.join(', ')}\n`);
  } catch (err) {
    process.stderr.write(
      `helmflow e2e: could not look for Jobs earlier files left running: ${(err as Error).message}\n`,
    );
  }
});
