import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { FailurePolicy } from '../../../src/api/index.js';
import { waitFor } from '../../../src/lib/wait.js';
import type { helmChartWorkflow } from '../../../workflows/chart.js';
import {
  chartSearchAttributes,
  chartWorkflowId,
  phaseAtStart,
  desiredStateSignal,
  statusQuery,
  type ChartRef,
  type ChartStatus,
  type DesiredState,
  type Tuning,
} from '../../../workflows/contract.js';
import type { FakeCluster } from './fake-activities.js';
import { workflowBundle } from './env.js';

export type ChartHandle = WorkflowHandle<typeof helmChartWorkflow>;
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let counter = 0;

/** A name no other test in this process uses: each test has its own task queue and workflow id. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export const ref = (name: string): ChartRef => ({ group: 'helm.k3sm.io', namespace: 'kube-system', name });

export const desired = (
  digest: string,
  {
    generation = 1,
    uid = 'uid-1',
    failurePolicy = 'reinstall',
  }: Partial<DesiredState> & {
    failurePolicy?: FailurePolicy;
  } = {},
): DesiredState => ({ uid, generation, digest, failurePolicy });

/** Heartbeats reach the server at once, so a cancellation reaches a waiting fake within a fraction of a second. */
export const testWorkerOptions = {
  maxHeartbeatThrottleInterval: '100 milliseconds',
  defaultHeartbeatThrottleInterval: '100 milliseconds',
} satisfies Partial<WorkerOptions>;

/** A worker on `taskQueue` serving the chart workflow with the fake's activities; the caller runs and stops it. */
export async function createWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  cluster: FakeCluster,
  options: Partial<WorkerOptions> = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: cluster.activities(),
    ...testWorkerOptions,
    ...options,
  });
}

/** A worker on a fresh task queue serving the chart workflow with the fake's activities while `fn` runs. */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  cluster: FakeCluster,
  fn: (taskQueue: string) => Promise<T>,
  options: Partial<WorkerOptions> = {},
): Promise<T> {
  const taskQueue = uniqueName('charts');
  const worker = await createWorker(env, taskQueue, cluster, options);
  return worker.runUntil(fn(taskQueue));
}

/**
 * Starts (or signals) the chart's workflow the way the controller does (src/controller/signals.ts):
 * signalWithStart with a desired state and the search attributes of a starting install. `searchAttributes:
 * false` starts it as a controller before the lean shape did, without them.
 */
export async function startChart(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  chart: ChartRef,
  first: DesiredState,
  tuning?: Partial<Tuning>,
  { searchAttributes = true }: { searchAttributes?: boolean } = {},
): Promise<ChartHandle> {
  return env.client.workflow.signalWithStart<typeof helmChartWorkflow, [DesiredState]>('helmChartWorkflow', {
    taskQueue,
    workflowId: chartWorkflowId(chart),
    args: [tuning === undefined ? { ref: chart } : { ref: chart, tuning }],
    signal: desiredStateSignal,
    signalArgs: [first],
    ...(searchAttributes ? { typedSearchAttributes: chartSearchAttributes(chart, phaseAtStart('desired')) } : {}),
  });
}

/** Polls the status query until `accept` holds (deadline-bounded); returns the status that satisfied it. */
export async function waitForStatus(
  handle: ChartHandle,
  description: string,
  accept: (status: ChartStatus) => boolean,
  timeoutMs = 30_000,
): Promise<ChartStatus> {
  return waitFor(
    description,
    async () => {
      const status = await handle.query(statusQuery);
      return accept(status) ? status : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** Waits, bounded, for a condition on in-memory state (the fake's records). */
export async function until(description: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  await waitFor(description, () => condition() || undefined, { timeoutMs, intervalMs: 50 });
}

export async function historyOf(handle: ChartHandle, runId?: string): Promise<HistoryEvent[]> {
  const h = runId === undefined ? handle : handle.client.getHandle(handle.workflowId, runId);
  return (await h.fetchHistory()).events ?? [];
}

/**
 * Waits until the workflow has handled its last signal: a workflow task completed after the signal's event. An
 * absence asserted afterwards (no new attempt, no new Job) is then one the workflow decided, not a race.
 */
export async function untilSignalHandled(handle: ChartHandle, timeoutMs = 15_000): Promise<HistoryEvent[]> {
  const isSignal = (e: HistoryEvent) => e.workflowExecutionSignaledEventAttributes != null;
  return untilHandled(handle, undefined, 'its last signal', isSignal, timeoutMs);
}

/**
 * The history of run `runId` (the current one if not given) once a workflow task has completed after its Temporal
 * cancel request: a cancelled run may continue as new at once.
 */
export async function untilCancelHandled(handle: ChartHandle, runId?: string): Promise<HistoryEvent[]> {
  return untilHandled(
    handle,
    runId,
    'the cancel request',
    (e) => e.workflowExecutionCancelRequestedEventAttributes != null,
  );
}

async function untilHandled(
  handle: ChartHandle,
  runId: string | undefined,
  what: string,
  isRequest: (event: HistoryEvent) => boolean,
  timeoutMs = 15_000,
): Promise<HistoryEvent[]> {
  return waitFor(
    `workflow ${handle.workflowId} to handle ${what}`,
    async () => {
      const events = await historyOf(handle, runId);
      const last = events.findLastIndex(isRequest);
      const handled = events.slice(last + 1).some((e) => e.workflowTaskCompletedEventAttributes != null);
      return last !== -1 && handled ? events : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** The durations (seconds) of the timers a run started, in order. */
export function timerSeconds(events: HistoryEvent[]): number[] {
  return events
    .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
    .filter((d) => d !== undefined && d !== null)
    .map((d) => tsToMs(d) / 1000);
}

/** The activity types scheduled in a run, in order. */
export function scheduledActivities(events: HistoryEvent[]): string[] {
  return events
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((n): n is string => typeof n === 'string');
}

/** The summaries the Temporal UI shows for a run's events (activities and timers), in order; events without one are left out. */
export function summaries(events: HistoryEvent[]): string[] {
  return events
    .map((e) => e.userMetadata?.summary?.data)
    .filter((d): d is Uint8Array => d instanceof Uint8Array)
    .map((d) => Buffer.from(d).toString('utf8'));
}

/**
 * Waits until the run has nothing in flight: no activity pending, no workflow task scheduled. A workflow that
 * stays busy (a loop that keeps scheduling work) never gets here, so an absence can be asserted afterwards.
 */
export async function untilIdle(handle: ChartHandle, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    `workflow ${handle.workflowId} idle`,
    async () => {
      const { raw } = await handle.describe();
      return (raw.pendingActivities ?? []).length === 0 && (raw.pendingWorkflowTask ?? undefined) === undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}
