import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Settings } from '../../../../src/app/settings.js';
import { waitFor } from '../../../../src/lib/wait.js';
import { chartWorkflowId } from '../../../../workflows/contract.js';
import type { RunObserver } from './observer.js';
import type { KillMoment } from './plan.js';

const STARTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
/** How long a kill waits for its moment before it lands at once (and says so). */
const momentDeadlineMs = 30_000;

/** Finds the moments a kill waits for: a new install Job, or a Kubernetes call started on a worker. */
export class MomentFinder {
  private constructor(
    private readonly settings: Settings,
    private readonly observer: RunObserver,
    private readonly client: Client,
    private readonly connection: Connection,
  ) {}

  static async connect(settings: Settings, observer: RunObserver): Promise<MomentFinder> {
    const connection = await Connection.connect({ address: settings.temporalAddress });
    const client = new Client({ connection, namespace: settings.temporalNamespace });
    return new MomentFinder(settings, observer, client, connection);
  }

  /** A Kubernetes-call activity (not the Job wait) started on a worker for one of `charts`, if any now. */
  private async callInFlight(charts: readonly string[]): Promise<string | undefined> {
    const found = await Promise.all(
      charts.map(async (name) => {
        const id = chartWorkflowId({ group: this.settings.group, namespace: this.observer.namespace, name });
        try {
          const description = await this.client.workflow.getHandle(id).describe();
          const call = (description.raw.pendingActivities ?? []).find(
            (a) => a.state === STARTED && a.activityType?.name !== 'awaitJob',
          );
          return call === undefined ? undefined : `${name}: ${call.activityType?.name ?? '?'}`;
        } catch {
          return undefined;
        }
      }),
    );
    return found.find((f) => f !== undefined);
  }

  /**
   * Waits for `moment` after `since` among the charts `inFlight()` names; returns what was found, or says the
   * kill lands at once because the moment did not come within the deadline.
   */
  async await(moment: KillMoment, since: number, inFlight: () => string[]): Promise<string> {
    if (moment === 'at-once') return 'at once';
    try {
      if (moment === 'job-created') {
        const job = await waitFor(
          'an install Job to be created',
          () => this.observer.jobs.find((j) => j.action === 'install' && j.seenAt >= since),
          { timeoutMs: momentDeadlineMs, intervalMs: 20 },
        );
        return `after Job ${job.name} was created`;
      }
      const call = await waitFor('a Kubernetes call in flight on a worker', () => this.callInFlight(inFlight()), {
        timeoutMs: momentDeadlineMs,
        intervalMs: 10,
      });
      return `during ${call}`;
    } catch {
      return `at once (no ${moment} within ${momentDeadlineMs / 1000} s)`;
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
