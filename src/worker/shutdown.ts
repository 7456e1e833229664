/**
 * How a worker stops on SIGTERM, in three bounds (README, Operations: Shutdown; the deploy files'
 * terminationGracePeriodSeconds must exceed the last).
 *
 * The grace time: the worker polls no more and gives running activities this long to finish. Then it cancels
 * them: a Job wait ends at once and goes back to Temporal as a failed attempt (the SDK's WorkerShutdown), which
 * Temporal retries at once on another worker, or on this one once restarted. The Job itself keeps running.
 */
export const SHUTDOWN_GRACE_SECONDS = 10;
/** After this the worker gives up on a clean shutdown (Temporal's shutdownForceTime). */
export const SHUTDOWN_FORCE_SECONDS = 20;
/** The process exits by then whatever holds it (src/app/run.ts), inside Kubernetes's default 30 s grace. */
export const SHUTDOWN_EXIT_SECONDS = SHUTDOWN_FORCE_SECONDS + 5;
