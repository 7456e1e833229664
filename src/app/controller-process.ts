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
import { temporalClient } from './temporal.js';

export interface ControllerHooks {
  onSignal?: (kind: 'desired' | 'delete' | 'retry') => void;
  onSignalError?: (err: unknown) => void;
  onWatchEvent?: (kind: string) => void;
  onLeading?: (leading: boolean) => void;
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
  let active: { controller: ChartController; manifests: ManifestDirectory | undefined } | undefined;
  let transition: Promise<void> = Promise.resolve();

  let elector: LeaderElector | undefined;
  const stillLeading = () => !stop.aborted && (elector === undefined || elector.isLeader);

  const lead = async () => {
    log.info('leading: starting the chart controller');
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
    hooks.onLeading?.(true);
  };
  const unlead = async () => {
    const current = active;
    active = undefined;
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
}
