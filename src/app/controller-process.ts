import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { ChartController } from '../controller/chart-controller.js';
import {
  ensureManifestIdentity,
  InsecureManifestPathError,
  ManifestDirectory,
  ManifestIdentity,
} from '../controller/manifests/index.js';
import { ensureCrds } from '../kube/crds.js';
import { ensureDigestKey } from '../kube/digest-key.js';
import { resolveKubeConfig } from '../kube/kubeconfig.js';
import { LeaderElector } from '../kube/leader-election.js';
import { buildOptionsOf, type Settings } from './settings.js';
import { pause } from './pause.js';
import { temporalClient } from './temporal.js';
import { countChartsFrom, countQueuedFrom } from '../observability/metrics.js';

export interface ControllerHooks {
  onSignal?: (kind: 'desired' | 'delete' | 'retry' | 'releaseChanged') => void;
  /** Each resync sweep that listed the chart workflows, with how many charts it queued. */
  onSweep?: (queued: number) => void;
  onSignalError?: (err: unknown) => void;
  onWatchEvent?: (kind: string) => void;
  onLeading?: (leading: boolean) => void;
  /** Why the controller is not ready (undefined once it is), each time that may have changed. */
  onReadiness?: (notReady: string | undefined) => void;
}

/** How often the controller checks that its Temporal namespace answers: soon while it does not, then slowly. */
const TEMPORAL_RETRY_MS = 2_000;
const TEMPORAL_RECHECK_MS = 15_000;

/** Checks that the Temporal namespace answers until `stop`, reporting each change. */
async function watchTemporal(
  temporal: Client,
  settings: Settings,
  log: Logger,
  stop: AbortSignal,
  report: (notReady: string | undefined) => void,
): Promise<void> {
  let last: string | undefined = 'unchecked';
  while (!stop.aborted) {
    let now: string | undefined;
    try {
      await temporal.workflowService.describeNamespace({ namespace: settings.temporalNamespace });
      now = undefined;
    } catch (err) {
      now = `Temporal namespace ${settings.temporalNamespace} at ${settings.temporalAddress} does not answer: ${(err as Error).message}`;
    }
    if (now !== last) {
      if (now !== undefined) log.warn(now);
      report(now);
      last = now;
    }
    await pause(now === undefined ? TEMPORAL_RECHECK_MS : TEMPORAL_RETRY_MS, stop);
  }
}

/**
 * The controller process: takes the Lease, then (as leader only) installs the CRDs, watches charts and signals
 * their workflows, and sweeps the auto-deploy directory. Runs until `stop` aborts, then gives the Lease up.
 */

export async function runController(settings: Settings, log: Logger, stop: AbortSignal, hooks: ControllerHooks = {}) {
  const kube = resolveKubeConfig({ explicitPath: settings.kubeconfig });
  log.info({ kubeconfig: kube.description }, 'kubeconfig chosen');
  const kc = kube.kubeConfig;
  const temporal = temporalClient(settings);
  let temporalState: string | undefined = `connecting to Temporal at ${settings.temporalAddress}`;
  let leadingState: string | undefined;
  // Ready: the Temporal namespace answers and, when leading, the watches have started. A standby (another
  // replica holds the Lease) is ready: it has nothing to start until it leads, and a rollout must not wait on it.
  const publish = () => hooks.onReadiness?.(temporalState ?? leadingState);
  publish();
  const temporalWatch = watchTemporal(temporal, settings, log, stop, (notReady) => {
    temporalState = notReady;
    publish();
  });
  let active: { controller: ChartController; manifests: ManifestDirectory | undefined } | undefined;
  let transition: Promise<void> = Promise.resolve();

  let elector: LeaderElector | undefined;
  const stillLeading = () => !stop.aborted && (elector === undefined || elector.isLeader);

  const lead = async () => {
    log.info('leading: starting the chart controller');
    leadingState = 'leading: starting the watches';
    publish();
    await ensureCrds(kc, settings.group);
    const digestKey = await ensureDigestKey(kc, settings.leaseNamespace, log, stop);
    const controller = new ChartController({
      kubeConfig: kc,
      temporal,
      taskQueue: settings.taskQueue,
      group: settings.group,
      build: buildOptionsOf(settings, digestKey),
      log,
      ...(settings.tuning ? { tuning: settings.tuning } : {}),
      resyncMs: settings.resyncSeconds * 1000,
      // The Lease's leaseTransitions when this process took it: each desired state carries it, so a chart's
      // workflow ignores what a stale leader still sends after another replica took over.
      ...(elector?.term === undefined ? {} : { term: elector.term }),
      ...hooks,
    });
    await controller.start();
    let manifests: ManifestDirectory | undefined;
    if (settings.manifestsDir !== '') {
      try {
        await ensureManifestIdentity(kc, settings.group);
        const identity = new ManifestIdentity(kc);
        manifests = new ManifestDirectory({
          kubeConfig: () => identity.kubeConfig(),
          directory: settings.manifestsDir,
          logger: log,
        });
        await manifests.start();
      } catch (err) {
        // A refused directory is reported and skipped; the charts already in the cluster are still served.
        const level = err instanceof InsecureManifestPathError ? 'error' : 'warn';
        log[level]({ err: (err as Error).message, dir: settings.manifestsDir }, 'auto-deploy directory not used');
        manifests = undefined;
      }
    }
    if (!stillLeading()) {
      // Leadership ended while starting: what was started must not act.
      await manifests?.stop();
      await controller.stop();
      return;
    }
    active = { controller, manifests };
    countChartsFrom(() => controller.phases());
    countQueuedFrom(() => controller.queued());
    leadingState = undefined;
    publish();
    hooks.onLeading?.(true);
  };
  const unlead = async () => {
    const current = active;
    active = undefined;
    countChartsFrom(() => []);
    countQueuedFrom(() => ({ change: 0, resync: 0 }));
    leadingState = undefined;
    publish();
    hooks.onLeading?.(false);
    if (current === undefined) return;
    log.info('no longer leading: stopping the chart controller');
    // stop() closes the signal queue before its first await: nothing is signalled from here on.
    const controllerStopped = current.controller.stop();
    await current.manifests?.stop();
    await controllerStopped;
  };
  const queue = (step: () => Promise<void>) => {
    transition = transition.then(step).catch((err: unknown) => {
      log.error({ err: (err as Error).message }, 'controller transition failed');
    });
  };

  // A leader that failed to start (apiserver hiccup) tries again while it still leads.
  const leadUntilStarted = async (): Promise<void> => {
    for (;;) {
      try {
        await lead();
        return;
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'could not start leading; retrying');
        await unlead();
        leadingState = `leading, but the watches could not start: ${(err as Error).message}`;
        publish();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        if (!stillLeading()) return;
      }
    }
  };
  if (settings.disableLeaderElection) {
    log.warn('leader election disabled: acting without the Lease');
    queue(leadUntilStarted);
  } else {
    elector = new LeaderElector({
      kubeConfig: kc,
      namespace: settings.leaseNamespace,
      name: settings.leaseName,
      leaseDurationSeconds: settings.leaseDurationSeconds,
      renewDeadlineMs: settings.leaseRenewDeadlineSeconds * 1000,
      // Renewals and a candidate's tries share one period, as in client-go and Flux.
      renewIntervalMs: settings.leaseRetryPeriodSeconds * 1000,
      retryPeriodMs: settings.leaseRetryPeriodSeconds * 1000,
      logger: log,
      onStartedLeading: () => {
        queue(leadUntilStarted);
      },
      // At once, not behind a transition that may itself hang: a leader that lost the Lease stops signalling now.
      onStoppedLeading: () => {
        void unlead().catch((err: unknown) => {
          log.error({ err: (err as Error).message }, 'could not stop the chart controller');
        });
      },
    });
    elector.start();
  }
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else
      stop.addEventListener(
        'abort',
        () => {
          resolve();
        },
        { once: true },
      );
  });
  await elector?.stop();
  queue(unlead);
  await transition;
  await temporalWatch;
  await temporal.connection.close();
}
