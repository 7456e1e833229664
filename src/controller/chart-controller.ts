import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  valuesSecretNames,
  type ApiGroup,
  type HelmChart,
  type HelmChartConfig,
  type SecretData,
} from '../api/index.js';
import type { BuildOptions } from '../build/options.js';
import { settingsOf } from '../build/settings.js';
import { latestReleaseLabels } from '../kube/helm-releases.js';
import { secretText } from '../kube/secret-data.js';
import type { ChartRef, DesiredState, Tuning } from '../../workflows/contract.js';
import { decide } from './desired-state.js';
import { addFinalizer } from './finalizer.js';
import { releaseMoved } from './release-drift.js';
import { chartInformers, type ChartInformers } from './informers.js';
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
  /** Every chart is signalled again this often, so nothing missed can stay missed. */
  resyncMs?: number;
  /** Hooks for metrics. */
  onSignal?: (kind: 'desired' | 'delete' | 'retry' | 'releaseChanged') => void;
  onSignalError?: (err: unknown) => void;
  onWatchEvent?: (kind: string) => void;
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * Turns Kubernetes objects into workflow signals and holds no lifecycle state: it adds the finalizer, computes
 * each chart's desired state and signals the chart's workflow; a deletion becomes a delete signal; the retry
 * annotation becomes a retry signal. What it remembers (the last signal sent) only saves repeated signals.
 */
export class ChartController {
  private readonly informers: ChartInformers;
  private readonly queue: WorkQueue;
  private readonly signals: ChartSignals;
  private readonly sent = new Map<string, string>();
  /** When each chart's stored release was last compared with its status (once per resync period). */
  private readonly releaseCheckedAt = new Map<string, number>();
  private readonly core: CoreV1Api;
  private resync: NodeJS.Timeout | undefined;

  constructor(private readonly config: ChartControllerConfig) {
    this.informers = chartInformers(config.kubeConfig, config.group, config.log);
    this.signals = new ChartSignals(config.temporal, config.taskQueue, config.tuning);
    this.core = config.kubeConfig.makeApiClient(CoreV1Api);
    this.queue = new WorkQueue((key) => this.reconcile(key), {
      concurrency: 8,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      onError: (key, err) => {
        config.onSignalError?.(err);
        config.log.warn({ chart: key, err: (err as Error).message }, 'could not signal the chart workflow; will retry');
      },
    });
  }

  async start(): Promise<void> {
    const { charts, configs, secrets } = this.informers;
    const chartChanged = (chart: HelmChart) => {
      this.config.onWatchEvent?.('helmchart');
      this.queue.add(keyOf(chart.metadata.namespace, chart.metadata.name));
    };
    charts.on('add', chartChanged);
    charts.on('update', chartChanged);
    charts.on('delete', (chart) => {
      this.config.onWatchEvent?.('helmchart');
      this.sent.delete(keyOf(chart.metadata.namespace, chart.metadata.name));
      this.releaseCheckedAt.delete(keyOf(chart.metadata.namespace, chart.metadata.name));
    });
    const configChanged = (config: HelmChartConfig) => {
      this.config.onWatchEvent?.('helmchartconfig');
      this.queue.add(keyOf(config.metadata.namespace, config.metadata.name));
    };
    configs.on('add', configChanged);
    configs.on('update', configChanged);
    configs.on('delete', configChanged);
    const secretChanged = (secret: { metadata?: { namespace?: string; name?: string } }) => {
      const namespace = secret.metadata?.namespace ?? '';
      const name = secret.metadata?.name ?? '';
      for (const chart of charts.list(namespace)) {
        if (this.referencedSecrets(chart).includes(name)) {
          this.config.onWatchEvent?.('secret');
          this.queue.add(keyOf(namespace, chart.metadata.name));
        }
      }
    };
    secrets.on('add', secretChanged);
    secrets.on('update', secretChanged);
    secrets.on('delete', secretChanged);
    await this.informers.start();
    this.resync = setInterval(() => {
      this.sent.clear();
      for (const chart of charts.list()) this.queue.add(keyOf(chart.metadata.namespace, chart.metadata.name));
    }, this.config.resyncMs ?? 300_000);
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

  get backlog(): number {
    return this.queue.depth;
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

  private async reconcile(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const chart = this.informers.charts.get(name, namespace);
    if (chart === undefined) return;
    const ref: ChartRef = { group: this.config.group, namespace, name };
    const config = this.configOf(chart);
    const action = decide(chart, config, this.secretData(chart), { ...this.config.build, group: this.config.group });
    switch (action.kind) {
      case 'ignore':
        return;
      case 'addFinalizer':
        await addFinalizer(this.config.kubeConfig, chart, this.config.group);
        return;
      case 'delete':
        if (this.sent.get(key) === `delete:${action.uid}`) return;
        await this.signals.delete(ref, { uid: action.uid, ...(action.keepRelease ? { keepRelease: true } : {}) });
        this.sent.set(key, `delete:${action.uid}`);
        this.config.onSignal?.('delete');
        this.config.log.info({ chart: key, uid: action.uid }, 'signalled delete');
        return;
      case 'desired':
        await this.sendDesired(key, ref, action.state, action.retryToken);
        await this.checkRelease(key, ref, chart);
    }
  }

  /**
   * Once per resync period, compares the chart's stored helm release (its newest record's labels: one list call)
   * with status.release and signals the workflow to read it again only when they differ. Releases kept by the
   * configmap driver are not compared: the controller may list Secrets, not ConfigMaps.
   */
  private async checkRelease(key: string, ref: ChartRef, chart: HelmChart): Promise<void> {
    const now = Date.now();
    const period = this.config.resyncMs ?? 300_000;
    if (now - (this.releaseCheckedAt.get(key) ?? -Infinity) < period) return;
    const { targetNamespace, release, driver } = settingsOf(chart, this.configOf(chart));
    if (driver !== 'secret') return;
    const stored = await latestReleaseLabels(this.core, targetNamespace, release);
    if (releaseMoved(chart.status?.release, stored)) {
      await this.signals.releaseChanged(ref);
      this.config.onSignal?.('releaseChanged');
      this.config.log.info({ chart: key, stored }, 'signalled release changed');
    }
    this.releaseCheckedAt.set(key, now);
  }

  private async sendDesired(key: string, ref: ChartRef, decided: DesiredState, retryToken: string | undefined) {
    const { term } = this.config;
    const state = term === undefined ? decided : { ...decided, term };
    const fingerprint = JSON.stringify([state, retryToken]);
    if (this.sent.get(key) === fingerprint) return;
    await this.signals.desired(ref, state);
    this.config.onSignal?.('desired');
    this.config.log.info({ chart: key, generation: state.generation, digest: state.digest }, 'signalled desired state');
    if (retryToken !== undefined && retryToken !== '') {
      await this.signals.retry(ref, {
        requestedBy: 'the helm.k3sm.io/retry annotation',
        token: `${state.uid}/${retryToken}`,
      });
      this.config.onSignal?.('retry');
    }
    this.sent.set(key, fingerprint);
  }
}
