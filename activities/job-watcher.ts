import type { BatchV1Api, KubeConfig, V1Job } from '@kubernetes/client-node';
import { makeInformer } from '../src/kube/k8s.js';
import type { Logger } from 'pino';
import { MANAGED_BY } from '../src/build/labels.js';
import { restartOnError } from '../src/kube/restart-watch.js';
import { withoutManagedFields } from '../src/kube/trim-cache.js';

/**
 * One watch of helmflow's Jobs per worker, shared by every waiting activity: a thousand charts waiting at once
 * cost one watch, not a thousand polls. Falls back to a direct read when the cache has not seen a Job yet.
 */
export class JobWatcher {
  private readonly informer;
  private started: Promise<void> | undefined;
  private stopped = false;

  constructor(
    kc: KubeConfig,
    private readonly batch: BatchV1Api,
    private readonly log: Logger,
  ) {
    this.informer = withoutManagedFields(
      makeInformer<V1Job>(
        kc,
        '/apis/batch/v1/jobs',
        () => batch.listJobForAllNamespaces({ labelSelector: `app.kubernetes.io/managed-by=${MANAGED_BY}` }),
        `app.kubernetes.io/managed-by=${MANAGED_BY}`,
      ),
    );
    restartOnError(this.informer, { what: 'jobs', log, stopped: () => this.stopped });
  }

  start(): Promise<void> {
    this.started ??= this.informer.start();
    return this.started;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
  }

  /** Every helmflow Job the watch has seen (call start first). */
  list(): readonly V1Job[] {
    return this.informer.list();
  }

  /** The Job as the watch last saw it, or as the apiserver has it now when the watch has not seen it. */
  async get(namespace: string, name: string, fresh = false): Promise<V1Job | undefined> {
    const cached = fresh ? undefined : this.informer.get(name, namespace);
    if (cached !== undefined) return cached;
    try {
      return await this.batch.readNamespacedJob({ name, namespace });
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}
