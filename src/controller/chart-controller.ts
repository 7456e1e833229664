import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api } from '../kube/k8s.js';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  chartKeyText,
  isUnmanaged,
  valuesSecretNames,
  type ApiGroup,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
} from '../api/index.js';
import type { BuildOptions } from '../build/options.js';
import { chartSettingsOf } from '../build/settings.js';
import { latestReleaseLabels } from '../kube/helm-releases.js';
import { secretText } from '../kube/secret-data.js';
import { chartWorkflowId, type ChartRef, type DesiredState, type Tuning } from '../../workflows/contract.js';
import { decide, ignoreReason } from './desired-state.js';
import { dependencyKeys } from './dependencies.js';
import { Dependents } from './dependents.js';
import { addFinalizer } from './finalizer.js';
import { movedRelease } from './release-check.js';
import { chartInformers, type ChartInformers } from './informers.js';
import { stillDelivered, type Delivered } from './delivered.js';
import { catchUpUrgency } from './catch-up.js';
import type { Urgency } from './pending-keys.js';
import { ChartSignals } from './signals.js';
import { WorkQueue } from './work-queue.js';

export interface ChartControllerConfig {
  kubeConfig: KubeConfig;
  temporal: Client;
  taskQueue: string;
  group: ApiGroup;
  build: BuildOptions;
  log: Logger;
  tuning?: Partial<Tuning>;
  /**
   * This process's leadership term (the Lease's leaseTransitions when it took the lead), sent with every desired
   * state so a chart's workflow ignores what a stale leader still sends. Absent without leader election.
   */
  term?: number;
  /**
   * This often every chart is looked at again, so nothing missed can stay missed: a chart whose workflow no longer
   * runs the run that took its last signal is signalled again; one whose workflow has it costs nothing.
   */
  resyncMs?: number;
  /** Resync signals are paced to one per this many ms (default 50: 1,000 charts in 50 s), changes never wait. */
  resyncIntervalMs?: number;
  /** Hooks for metrics. */
  onSignal?: (kind: 'desired' | 'delete' | 'retry' | 'releaseChanged', urgency: Urgency) => void;
  onSignalError?: (err: unknown) => void;
  onSweep?: (queued: number) => void;
  onWatchEvent?: (kind: string) => void;
}

// The same text as the depends-on index's keys (chartKeyText), so a dependent found there is a key of this queue.
const keyOf = (namespace: string, name: string) => chartKeyText({ namespace, name });
/** keyOf's inverse. */
const partsOf = (key: string) => {
  const [namespace = '', name = ''] = key.split('/');
  return { namespace, name };
};

/** How long a run just signalled may be missing from Temporal's listing (visibility is eventually consistent). */
const VISIBILITY_LAG_MS = 10_000;

/**
 * Turns Kubernetes objects into workflow signals and holds no lifecycle state: it adds the finalizer, computes
 * each chart's desired state and signals the chart's workflow; a deletion becomes a delete signal; the retry
 * annotation becomes a retry signal. What it remembers (the last signal each workflow took, delivered.ts) only
 * saves repeated signals: forgotten on restart, and whenever Temporal no longer lists the run that took it.
 */
export class ChartController {
  private readonly informers: ChartInformers;
  private readonly queue: WorkQueue;
  private readonly signals: ChartSignals;
  private readonly delivered = new Map<string, Delivered>();
  private readonly dependents = new Dependents();
  private sweeping = false;
  /** Charts whose stored release is compared with their status when next reconciled (first sight, or a sweep). */
  private readonly releaseDue = new Set<string>();
  private readonly core: CoreV1Api;
  private resync: NodeJS.Timeout | undefined;
  /** Whether the initial lists are in; until then, the keys their events name wait in `initial`. */
  private listed = false;
  private readonly initial = new Set<string>();

  constructor(private readonly config: ChartControllerConfig) {
    this.informers = chartInformers(config.kubeConfig, config.group, config.log);
    this.signals = new ChartSignals(config.temporal, config.taskQueue, config.tuning);
    this.core = config.kubeConfig.makeApiClient(CoreV1Api);
    this.queue = new WorkQueue((key, urgency) => this.reconcile(key, urgency), {
      concurrency: 8,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      resyncConcurrency: 2,
      resyncIntervalMs: config.resyncIntervalMs ?? 50,
      onError: (key, err) => {
        config.onSignalError?.(err);
        config.log.warn({ chart: key, err: (err as Error).message }, 'could not signal the chart workflow; will retry');
      },
    });
  }

  /**
   * What the initial lists report is the controller catching up: it is queued once every list is in (so no chart
   * is decided before its config, its values Secrets and its dependencies are cached), and waits behind changes,
   * except the charts someone applied or edited while no controller served them (catch-up.ts).
   */
  async start(): Promise<void> {
    this.watchCharts();
    this.watchConfigs();
    this.watchSecrets();
    await this.informers.start();
    this.listed = true;
    for (const key of this.initial) {
      const { namespace, name } = partsOf(key);
      this.queue.add(key, catchUpUrgency(this.informers.charts.get(name, namespace), this.config.group));
    }
    this.initial.clear();
    this.resync = setInterval(() => void this.sweep(), this.config.resyncMs ?? 300_000);
  }

  /** A chart's key to reconcile: a change once the initial lists are in, before that kept for start. */
  private enqueue(key: string): void {
    if (this.listed) this.queue.add(key, 'change');
    else this.initial.add(key);
  }

  private watchCharts(): void {
    const { charts } = this.informers;
    // A chart others depend on: its change (status, annotations, deletion) may end or start their wait.
    const dependentsOf = (chart: HelmChart, deleted = false) => {
      const key = keyOf(chart.metadata.namespace, chart.metadata.name);
      this.dependents.set(key, deleted ? [] : dependencyKeys(chart).map(chartKeyText));
      for (const dependent of this.dependents.of(key)) this.enqueue(dependent);
    };
    const chartChanged = (chart: HelmChart) => {
      this.config.onWatchEvent?.('helmchart');
      this.enqueue(keyOf(chart.metadata.namespace, chart.metadata.name));
      dependentsOf(chart);
    };
    charts.on('add', (chart) => {
      // First sight (the initial list included): its stored release is compared once reconciled.
      this.releaseDue.add(keyOf(chart.metadata.namespace, chart.metadata.name));
      chartChanged(chart);
    });
    charts.on('update', chartChanged);
    charts.on('delete', (chart) => {
      this.config.onWatchEvent?.('helmchart');
      this.delivered.delete(keyOf(chart.metadata.namespace, chart.metadata.name));
      this.releaseDue.delete(keyOf(chart.metadata.namespace, chart.metadata.name));
      dependentsOf(chart, true);
    });
  }

  /** A HelmChartConfig is its chart's overlay: the chart of the same namespace and name is reconciled. */
  private watchConfigs(): void {
    const configChanged = (config: HelmChartConfig) => {
      this.config.onWatchEvent?.('helmchartconfig');
      this.enqueue(keyOf(config.metadata.namespace, config.metadata.name));
    };
    for (const event of ['add', 'update', 'delete'] as const) this.informers.configs.on(event, configChanged);
  }

  /** A Secret is reconciled through each chart of its namespace that names it among its values. */
  private watchSecrets(): void {
    const secretChanged = (secret: { metadata?: { namespace?: string; name?: string } }) => {
      const namespace = secret.metadata?.namespace ?? '';
      const name = secret.metadata?.name ?? '';
      for (const chart of this.informers.charts.list(namespace)) {
        if (this.referencedSecrets(chart).includes(name)) {
          this.config.onWatchEvent?.('secret');
          this.enqueue(keyOf(namespace, chart.metadata.name));
        }
      }
    };
    for (const event of ['add', 'update', 'delete'] as const) this.informers.secrets.on(event, secretChanged);
  }

  /**
   * The resync: one listing of the running chart workflows (a visibility query, no history written), then a
   * resync of each chart whose workflow may lack its last signal (delivered.ts). An idle chart whose workflow
   * still runs the run that took its signal costs no signal and no history. If Temporal cannot list, the sweep
   * waits for the next one (a signal would fail as well).
   */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const listedAt = Date.now();
      const running = await this.runningWorkflows();
      let queued = 0;
      for (const chart of this.informers.charts.list()) {
        const ref: ChartRef = {
          group: this.config.group,
          namespace: chart.metadata.namespace,
          name: chart.metadata.name,
        };
        // Never signalled, so never remembered: a chart the controller ignores is not queued again and again.
        if (ignoreReason(chart, this.config.group) !== undefined) continue;
        const key = keyOf(ref.namespace, ref.name);
        const delivered = this.delivered.get(key);
        if (stillDelivered(delivered, running.get(chartWorkflowId(ref)), listedAt, VISIBILITY_LAG_MS)) {
          // An idle chart: no signal, unless its stored release moved (checked here, one Secret list call).
          if (delivered?.fingerprint.startsWith('delete:') === false) await this.checkReleaseOf(key, ref, chart);
          continue;
        }
        this.delivered.delete(key);
        this.releaseDue.add(key);
        this.queue.add(key, 'resync');
        queued += 1;
      }
      this.config.onSweep?.(queued);
    } catch (err) {
      this.config.onSignalError?.(err);
      this.config.log.warn(
        { err: (err as Error).message },
        'could not list the chart workflows; the next resync retries',
      );
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Running chart workflows in the Temporal namespace: workflow id → run id. On any task queue: a chart's workflow
   * id is one per namespace, and a signal reaches it wherever it was started.
   */
  private async runningWorkflows(): Promise<Map<string, string>> {
    const running = new Map<string, string>();
    const query = `WorkflowType = 'helmChartWorkflow' AND ExecutionStatus = 'Running'`;
    for await (const execution of this.config.temporal.workflow.list({ query })) {
      running.set(execution.workflowId, execution.runId);
    }
    return running;
  }

  async stop(): Promise<void> {
    if (this.resync) clearInterval(this.resync);
    this.queue.close();
    await this.informers.stop();
  }

  /** The phase in each watched HelmChart's status, for the charts-by-phase metric. */
  phases(): (string | undefined)[] {
    return this.informers.charts.list().map((chart) => chart.status?.phase);
  }

  /** Charts waiting for the controller, by urgency (the queued-charts metric). */
  queued(): { change: number; resync: number } {
    return this.queue.waiting;
  }

  private configOf(chart: HelmChart): HelmChartConfig | undefined {
    return this.informers.configs.get(chart.metadata.name, chart.metadata.namespace);
  }

  private referencedSecrets(chart: HelmChart): string[] {
    return valuesSecretNames(chart, this.configOf(chart));
  }

  private secretData(chart: HelmChart): SecretData {
    const data: Record<string, Record<string, string>> = {};
    for (const name of this.referencedSecrets(chart)) {
      const secret = this.informers.secrets.get(name, chart.metadata.namespace);
      if (secret === undefined) continue;
      data[name] = secretText(secret);
    }
    return data;
  }

  private remember(key: string, fingerprint: string, runId: string): void {
    this.delivered.set(key, { fingerprint, runId, at: Date.now() });
  }

  private async reconcile(key: string, urgency: Urgency): Promise<void> {
    const { namespace, name } = partsOf(key);
    const chart = this.informers.charts.get(name, namespace);
    if (chart === undefined) return;
    const ref: ChartRef = { group: this.config.group, namespace, name };
    const config = this.configOf(chart);
    const action = decide(
      chart,
      config,
      this.secretData(chart),
      { ...this.config.build, group: this.config.group },
      (dependency) => this.informers.charts.get(dependency.name, dependency.namespace),
    );
    switch (action.kind) {
      case 'ignore':
        return;
      case 'addFinalizer':
        await addFinalizer(this.config.kubeConfig, chart, this.config.group);
        return;
      case 'delete': {
        const fingerprint = `delete:${action.uid}`;
        if (this.delivered.get(key)?.fingerprint === fingerprint) return;
        const request = { uid: action.uid, ...(action.keepRelease ? { keepRelease: true } : {}) };
        this.remember(key, fingerprint, await this.signals.delete(ref, request));
        this.config.onSignal?.('delete', urgency);
        this.config.log.info({ chart: key, uid: action.uid }, 'signalled delete');
        return;
      }
      case 'desired':
        await this.sendDesired(key, ref, action.state, action.retryToken, urgency);
        if (!this.releaseDue.has(key)) return;
        // Forgotten only once compared: a failed comparison is retried with the key.
        await this.checkRelease(key, ref, chart, urgency);
        this.releaseDue.delete(key);
    }
  }

  /** A sweep's release check: a failure is logged and the sweep goes on to the next chart. */
  private async checkReleaseOf(key: string, ref: ChartRef, chart: HelmChart): Promise<void> {
    try {
      await this.checkRelease(key, ref, chart, 'resync');
    } catch (err) {
      this.config.onSignalError?.(err);
      this.config.log.warn({ chart: key, err: (err as Error).message }, 'could not compare the stored release');
    }
  }

  /**
   * Compares the chart's stored helm release (its newest record's labels: one list call) with status.release as
   * the watch has it after that read, and signals the workflow to read it again only when they differ
   * (release-check.ts); done when the controller first sees a chart and on each resync sweep. Releases kept by the
   * configmap driver are not compared: the controller may list Secrets, not ConfigMaps.
   */
  private async checkRelease(key: string, ref: ChartRef, chart: HelmChart, urgency: Urgency): Promise<void> {
    if (isUnmanaged(chart.metadata.annotations, this.config.group)) return;
    const { targetNamespace, release, driver } = chartSettingsOf(chart, this.configOf(chart));
    if (driver !== 'secret') return;
    const moved = await movedRelease({
      stored: () => latestReleaseLabels(this.core, targetNamespace, release),
      chart: () => this.informers.charts.get(ref.name, ref.namespace),
    });
    if (moved === undefined) return;
    const { stored } = moved;
    const runId = await this.signals.releaseChanged(ref);
    this.config.onSignal?.('releaseChanged', urgency);
    this.config.log.info({ chart: key, stored }, 'signalled release changed');
    // A run other than the one that took the last desired state (it had ended) lacks it: send it again.
    if (this.delivered.get(key)?.runId !== runId) {
      this.delivered.delete(key);
      this.queue.add(key, 'resync');
    }
  }

  private async sendDesired(
    key: string,
    ref: ChartRef,
    decided: DesiredState,
    retryToken: string | undefined,
    urgency: Urgency,
  ) {
    const { term } = this.config;
    const state = term === undefined ? decided : { ...decided, term };
    const fingerprint = JSON.stringify([state, retryToken]);
    if (this.delivered.get(key)?.fingerprint === fingerprint) return;
    let runId = await this.signals.desired(ref, state);
    this.config.onSignal?.('desired', urgency);
    this.config.log.info({ chart: key, generation: state.generation, digest: state.digest }, 'signalled desired state');
    if (retryToken !== undefined && retryToken !== '') {
      runId = await this.signals.retry(ref, {
        requestedBy: 'the helm.k3sm.io/retry annotation',
        token: `${state.uid}/${retryToken}`,
      });
      this.config.onSignal?.('retry', urgency);
    }
    this.remember(key, fingerprint, runId);
  }
}
