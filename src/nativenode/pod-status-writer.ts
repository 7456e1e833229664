import type { CoreV1Api } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '../kube/k8s.js';
import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isNotFound } from '../kube/client.js';
import { renderPodStatus, type PodView } from './pod-status.js';

const retryMaxMs = 5_000;

/**
 * Writes one pod's status as a kubelet does. Writes are serialised so an older one never lands after a newer
 * one, and a write that fails (the apiserver restarting) is retried until it lands or a newer one replaces it:
 * a container that exits while the apiserver is away must still be reported, or its Job would wait forever.
 */
export class PodStatusWriter {
  private wanted: PodView | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly core: CoreV1Api,
    private readonly namespace: string,
    private readonly name: string,
    private readonly log: Logger,
    /** True once the pod is being stopped (deleted, or the node shutting down): then one attempt is enough. */
    private readonly stopping: () => boolean,
  ) {}

  /** Resolves once `view`, or a newer view, is written (or the pod is gone). */
  write(view: PodView): Promise<void> {
    this.wanted = view;
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  private async drain(): Promise<void> {
    let failures = 0;
    for (let view = this.wanted; view !== undefined; view = this.wanted) {
      this.wanted = undefined;
      try {
        await this.core.patchNamespacedPodStatus(
          {
            name: this.name,
            namespace: this.namespace,
            body: { status: renderPodStatus(view, new Date().toISOString()) },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        if (failures > 0) this.log.info({ failures }, 'pod status written after failed attempts');
        failures = 0;
      } catch (err) {
        if (isNotFound(err)) return;
        this.wanted ??= view;
        failures += 1;
        if (failures === 1 || failures % 20 === 0) {
          this.log.warn({ err: (err as Error).message, failures }, 'could not write pod status; retrying');
        }
        if (this.stopping()) return;
        await pause(Math.min(250 * 2 ** failures, retryMaxMs));
      }
    }
  }
}
