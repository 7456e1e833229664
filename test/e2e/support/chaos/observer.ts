import type { V1Job } from '@kubernetes/client-node';
import type { HelmChart } from '../../../../src/api/index.js';
import {
  actionLabelKey,
  attemptAnnotationKey,
  chartLabelKey,
  digestAnnotationKey,
  uidLabelKey,
} from '../../../../src/build/labels.js';
import { customApi } from '../helmcharts.js';
import { clients } from '../kube.js';
import type { JobRecord } from './invariants.js';
import { keepWatching, type LastingWatch, type Listed } from '../keep-watching.js';

const group = 'helm.k3sm.io';

function jobRecord(job: V1Job, via: JobRecord['via']): JobRecord {
  const labels = job.metadata?.labels ?? {};
  const annotations = job.metadata?.annotations ?? {};
  return {
    uid: job.metadata?.uid ?? '',
    name: job.metadata?.name ?? '',
    chart: labels[chartLabelKey(group)] ?? '',
    chartUid: labels[uidLabelKey(group)] ?? '',
    action: labels[actionLabelKey(group)] ?? '',
    digest: annotations[digestAnnotationKey(group)] ?? '',
    attempt: annotations[attemptAnnotationKey(group)] ?? '',
    seenAt: Date.now(),
    via,
  };
}

/**
 * Everything the chaos run sees of one namespace for the whole run, across apiserver restarts: every Job ever
 * created (with the key it was created for), the latest state of each HelmChart, and when each chart last
 * showed progress — a status written, a Job created for it, or the chart gone.
 */
export class RunObserver {
  readonly jobs: JobRecord[] = [];
  private readonly jobUids = new Set<string>();
  private readonly charts = new Map<string, HelmChart>();
  private readonly progress = new Map<string, number[]>();
  private watches: LastingWatch[] = [];

  private constructor(readonly namespace: string) {}

  static async start(namespace: string): Promise<RunObserver> {
    const observer = new RunObserver(namespace);
    await observer.watchJobs();
    await observer.watchCharts();
    return observer;
  }

  chart(name: string): HelmChart | undefined {
    return this.charts.get(name);
  }

  chartNames(): string[] {
    return [...this.charts.keys()];
  }

  /** The first moment at or after `since` when the chart showed progress; undefined if it has not yet. */
  progressSince(name: string, since: number): number | undefined {
    return this.progress.get(name)?.find((t) => t >= since);
  }

  /** How often a watch had to list again, and any watch that gave up (the record is then incomplete). */
  health(): { gaps: number; failures: string[] } {
    return {
      gaps: this.watches.reduce((n, w) => n + w.gaps, 0),
      failures: this.watches.flatMap((w) => (w.failure === undefined ? [] : [w.failure.message])),
    };
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }

  private progressed(name: string): void {
    const times = this.progress.get(name) ?? [];
    times.push(Date.now());
    this.progress.set(name, times);
  }

  private addJob(job: V1Job, via: JobRecord['via']): void {
    const record = jobRecord(job, via);
    if (this.jobUids.has(record.uid)) return;
    this.jobUids.add(record.uid);
    this.jobs.push(record);
    if (record.chart !== '') this.progressed(record.chart);
  }

  private async watchJobs(): Promise<void> {
    const { batch } = clients();
    this.watches.push(
      await keepWatching<V1Job>(
        `/apis/batch/v1/namespaces/${this.namespace}/jobs`,
        () => batch.listNamespacedJob({ namespace: this.namespace }),
        {
          event: (type, job) => {
            if (type === 'ADDED') this.addJob(job, 'watch');
          },
          listed: (items) => {
            for (const job of items) this.addJob(job, 'list');
          },
        },
      ),
    );
  }

  private seeChart(chart: HelmChart): void {
    const name = chart.metadata.name;
    const before = this.charts.get(name);
    this.charts.set(name, chart);
    if (before !== undefined && JSON.stringify(before.status ?? {}) !== JSON.stringify(chart.status ?? {})) {
      this.progressed(name);
    }
  }

  private goneChart(name: string): void {
    if (this.charts.delete(name)) this.progressed(name);
  }

  private async watchCharts(): Promise<void> {
    const list = async () =>
      (await customApi().listNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: this.namespace,
        plural: 'helmcharts',
      })) as Listed<HelmChart>;
    this.watches.push(
      await keepWatching<HelmChart>(`/apis/${group}/v1/namespaces/${this.namespace}/helmcharts`, list, {
        event: (type, chart) => {
          if (type === 'DELETED') this.goneChart(chart.metadata.name);
          else this.seeChart(chart);
        },
        listed: (items) => {
          const present = new Set(items.map((c) => c.metadata.name));
          for (const name of [...this.charts.keys()]) if (!present.has(name)) this.goneChart(name);
          for (const chart of items) this.seeChart(chart);
        },
      }),
    );
  }
}
