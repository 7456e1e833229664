import { tsToMs } from '@temporalio/common/lib/time.js';
import { Watch, type V1Job } from '@kubernetes/client-node';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Settings } from '../../../src/app/settings.js';
import { chartWorkflowId, statusQuery, type ChartStatus } from '../../../workflows/contract.js';
import { waitFor, WaitAborted } from '../../../src/lib/wait.js';
import { kubeConfig } from './kube.js';

/** Every Job ever created in a namespace while the watch runs: ADDED events, distinct uids, with their times. */
export interface JobLog {
  /** Jobs seen ADDED, in order: name, uid, when this process saw the event. */
  readonly added: { name: string; uid: string; seenAt: number }[];
  /** Distinct uids of Jobs named `name` seen so far. */
  uidsOf(name: string): string[];
  stop(): void;
}

/**
 * Watches Jobs in `namespace` from now on. Resolves once the watch is established, so a Job created after that
 * cannot be missed; a watch that ends early fails the next `uidsOf` rather than undercount silently.
 */
export async function watchJobs(namespace: string): Promise<JobLog> {
  const added: JobLog['added'] = [];
  let ended: unknown;
  let stopped = false;
  const request = await new Watch(kubeConfig()).watch(
    `/apis/batch/v1/namespaces/${namespace}/jobs`,
    { allowWatchBookmarks: false },
    (type: string, job: V1Job) => {
      if (type !== 'ADDED') return;
      added.push({ name: job.metadata?.name ?? '', uid: job.metadata?.uid ?? '', seenAt: Date.now() });
    },
    (err: unknown) => {
      if (!stopped) ended = err ?? new Error('the Job watch ended');
    },
  );
  return {
    added,
    uidsOf: (name) => {
      if (ended !== undefined)
        throw new Error(
          `the Job watch of ${namespace} ended early: ${ended instanceof Error ? ended.message : 'no error given'}`,
        );
      return [...new Set(added.filter((a) => a.name === name).map((a) => a.uid))];
    },
    stop: () => {
      stopped = true;
      request.abort();
    },
  };
}

/** The chart workflow's own account of a chart (its status query), through the Temporal frontend. */
export async function chartWorkflowStatus(settings: Settings, namespace: string, name: string): Promise<ChartStatus> {
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    const id = chartWorkflowId({ group: settings.group, namespace, name });
    return await client.workflow.getHandle(id).query(statusQuery);
  } finally {
    await connection.close();
  }
}

/** What the Temporal UI shows as a chart workflow's current details (the SDK's built-in metadata query). */
export async function chartWorkflowDetails(settings: Settings, namespace: string, name: string): Promise<string> {
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    const id = chartWorkflowId({ group: settings.group, namespace, name });
    const metadata = await client.workflow
      .getHandle(id)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return metadata.currentDetails ?? '';
  } finally {
    await connection.close();
  }
}

/**
 * Checks that `holds` stays true for `ms`, looking every `intervalMs`: an observation window for a claim that
 * something does NOT happen, not a synchronisation. Fails at the first look where it no longer holds.
 */
export async function holdsFor(
  description: string,
  holds: () => Promise<boolean> | boolean,
  ms: number,
  intervalMs = 250,
): Promise<void> {
  const until = Date.now() + ms;
  await waitFor(
    `${description} for ${ms} ms`,
    async () => {
      if (!(await holds())) throw new WaitAborted(`${description} stopped holding`);
      return Date.now() >= until || undefined;
    },
    { timeoutMs: ms + 30_000, intervalMs },
  );
}

/** One activity the chart workflow waits on, as Temporal's describe shows it. */
export interface PendingActivity {
  type: string;
  /** A worker has started the current attempt. */
  started: boolean;
  attempt: number;
  /** The worker that started the current attempt (`<pid>@<host>`, the SDK's default identity). */
  lastWorkerIdentity: string;
  /** Why the previous attempt ended: an application failure's type, or `timeout` / `other`. */
  lastFailure?: { kind: string; message: string };
  lastStartedTime?: Date;
  /** The heartbeat timeout it was scheduled with, in seconds (absent: none). */
  heartbeatTimeoutSeconds?: number;
}

/** The activities the chart workflow waits on now (Temporal's describe). */
export async function pendingActivities(
  settings: Settings,
  namespace: string,
  name: string,
): Promise<PendingActivity[]> {
  const connection = await Connection.connect({ address: settings.temporalAddress });
  try {
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    const id = chartWorkflowId({ group: settings.group, namespace, name });
    const description = await client.workflow.getHandle(id).describe();
    return (description.raw.pendingActivities ?? []).map((a) => {
      const failure = a.lastFailure;
      const kind = failure?.applicationFailureInfo
        ? (failure.applicationFailureInfo.type ?? '')
        : failure?.timeoutFailureInfo
          ? 'timeout'
          : 'other';
      const started = a.lastStartedTime?.seconds;
      const heartbeat = a.activityOptions?.heartbeatTimeout;
      return {
        type: a.activityType?.name ?? '',
        started: a.state === proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        attempt: a.attempt ?? 0,
        lastWorkerIdentity: a.lastWorkerIdentity ?? '',
        ...(failure ? { lastFailure: { kind, message: failure.message ?? '' } } : {}),
        ...(started != null
          ? { lastStartedTime: new Date(Number(started) * 1000 + (a.lastStartedTime?.nanos ?? 0) / 1e6) }
          : {}),
        ...(heartbeat != null ? { heartbeatTimeoutSeconds: tsToMs(heartbeat) / 1000 } : {}),
      };
    });
  } finally {
    await connection.close();
  }
}

/**
 * What Temporal says of a chart's workflow (group helm.k3sm.io), for a wait that timed out on the chart: whether it
 * exists, its status and task queue, and each pending activity with its attempt and last failure. Never throws.
 */
export async function workflowSaid(temporalAddress: string, namespace: string, name: string): Promise<string> {
  const id = chartWorkflowId({ group: 'helm.k3sm.io', namespace, name });
  try {
    const connection = await Connection.connect({ address: temporalAddress });
    try {
      const description = await new Client({ connection }).workflow.getHandle(id).describe();
      const pending = (description.raw.pendingActivities ?? []).map(
        (a) =>
          `${a.activityType?.name ?? ''} attempt ${String(a.attempt ?? 0)}${a.lastFailure ? ` (last failure: ${a.lastFailure.message ?? ''})` : ''}`,
      );
      return `workflow ${id}: ${description.status.name} on task queue ${description.taskQueue}, history ${String(description.historyLength)} events, pending [${pending.join('; ')}]`;
    } finally {
      await connection.close();
    }
  } catch (err) {
    return `workflow ${id}: ${(err as Error).message}`;
  }
}
