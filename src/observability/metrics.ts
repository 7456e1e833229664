import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * helmflow's Prometheus metrics. One registry per process carries the default process metrics and helmflow's
 * own; other modules register theirs on `registry` (Temporal worker metrics, say) so /metrics serves them all.
 * Labels stay low-cardinality: kinds and outcomes, never chart names.
 */
export interface HelmflowMetrics {
  registry: Registry;
  /** Watch events the controller received, by resource (HelmChart, HelmChartConfig, Secret, Job) and type. */
  watchEvents: Counter<'resource' | 'type'>;
  /** Signals delivered to chart workflows (signalWithStart), by signal name. */
  signalsSent: Counter<'signal'>;
  /** Signals that failed (to be retried), by signal name and a short reason. */
  signalErrors: Counter<'signal' | 'reason'>;
  /** Controller resync sweeps, and the charts they queued (an idle installation queues none). */
  resyncSweeps: Counter;
  resyncQueued: Counter;
  /** 1 while this process holds the controller Lease. */
  leader: Gauge;
  /** Auto-deploy files swept, by outcome (applied, failed). */
  manifestFiles: Counter<'outcome'>;
  /** HelmCharts by the phase in their status, as the leading controller's watch sees them (none on a standby). */
  charts: Gauge<'phase'>;
  /** Names what the charts gauge counts at each scrape. */
  countChartsFrom(source: ChartPhases): void;
  /** Charts waiting in the leading controller's work queue, by urgency: someone's change, or catching up. */
  queued: Gauge<'urgency'>;
  /** Names what the queued gauge reads at each scrape. */
  countQueuedFrom(source: QueuedCharts): void;
  /** From an install Job's creation to its end, by outcome (succeeded, failed, gone). */
  installDuration: Histogram<'outcome'>;
  /** Install attempts that ended Failed, by the Failed condition's reason. */
  installFailures: Counter<'reason'>;
  /**
   * How long each call asking glibc to give freed memory back took (its count and sum too), and how far the resident
   * memory fell across them. A call holds glibc's arena locks: a thread that allocates meanwhile waits for it.
   */
  mallocTrimDuration: Histogram;
  mallocTrimReturnedBytes: Counter;
}

/** What the charts gauge counts when scraped: the phase of every HelmChart the leader watches. */
export type ChartPhases = () => Iterable<string | undefined>;

/** What the queued gauge reads when scraped: the leading controller's waiting keys by urgency. */
export type QueuedCharts = () => { change: number; resync: number };

export function createMetrics({ defaultMetrics = true }: { defaultMetrics?: boolean } = {}): HelmflowMetrics {
  const registry = new Registry();
  if (defaultMetrics) collectDefaultMetrics({ register: registry });
  let chartPhases: ChartPhases = () => [];
  const charts = new Gauge({
    name: 'helmflow_charts',
    help: 'HelmCharts by status phase, counted by the leading controller.',
    labelNames: ['phase'],
    registers: [registry],
    collect() {
      // Counted at scrape time from the watch's cache, so the figure is never stale and costs nothing between scrapes.
      this.reset();
      for (const phase of chartPhases()) this.inc({ phase: phase ?? 'Pending' });
    },
  });
  let queuedCharts: QueuedCharts = () => ({ change: 0, resync: 0 });
  const queued = new Gauge({
    name: 'helmflow_controller_queued_charts',
    help: "Charts waiting in the leading controller's work queue, by urgency (change or resync).",
    labelNames: ['urgency'],
    registers: [registry],
    collect() {
      const { change, resync } = queuedCharts();
      this.set({ urgency: 'change' }, change);
      this.set({ urgency: 'resync' }, resync);
    },
  });
  return {
    charts,
    countChartsFrom(source: ChartPhases) {
      chartPhases = source;
    },
    queued,
    countQueuedFrom(source: QueuedCharts) {
      queuedCharts = source;
    },
    installDuration: new Histogram({
      name: 'helmflow_install_duration_seconds',
      help: "Seconds from an install Job's creation to its end, by outcome.",
      labelNames: ['outcome'],
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200],
      registers: [registry],
    }),
    installFailures: new Counter({
      name: 'helmflow_install_failures_total',
      help: 'Install attempts that ended Failed, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    mallocTrimDuration: new Histogram({
      name: 'helmflow_malloc_trim_duration_seconds',
      help: 'Seconds each call asking glibc to give freed memory back (malloc_trim) took.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    mallocTrimReturnedBytes: new Counter({
      name: 'helmflow_malloc_trim_returned_bytes_total',
      help: "Bytes the process's resident memory fell across the malloc_trim calls.",
      registers: [registry],
    }),
    registry,
    watchEvents: new Counter({
      name: 'helmflow_watch_events_total',
      help: 'Watch events received by the controller.',
      labelNames: ['resource', 'type'],
      registers: [registry],
    }),
    signalsSent: new Counter({
      name: 'helmflow_signals_total',
      help: 'Signals sent to chart workflows.',
      labelNames: ['signal'],
      registers: [registry],
    }),
    signalErrors: new Counter({
      name: 'helmflow_signal_errors_total',
      help: 'Signals to chart workflows that failed.',
      labelNames: ['signal', 'reason'],
      registers: [registry],
    }),
    resyncSweeps: new Counter({
      name: 'helmflow_resync_sweeps_total',
      help: 'Resync sweeps that listed the chart workflows.',
      registers: [registry],
    }),
    resyncQueued: new Counter({
      name: 'helmflow_resync_queued_total',
      help: 'Charts a resync sweep queued because their workflow may lack their last signal.',
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'helmflow_leader',
      help: '1 while this process holds the controller Lease, else 0.',
      registers: [registry],
    }),
    manifestFiles: new Counter({
      name: 'helmflow_manifest_files_total',
      help: 'Auto-deploy directory files swept, by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}

let processMetrics: HelmflowMetrics | undefined;

/** The process's metrics, created on first use; the helpers below and the HTTP server default to it. */
export function metrics(): HelmflowMetrics {
  processMetrics ??= createMetrics();
  return processMetrics;
}

export function recordWatchEvent(resource: string, type: string, m: HelmflowMetrics = metrics()): void {
  m.watchEvents.inc({ resource, type });
}

export function recordSignalSent(signal: string, m: HelmflowMetrics = metrics()): void {
  m.signalsSent.inc({ signal });
}

export function recordSignalError(signal: string, reason: string, m: HelmflowMetrics = metrics()): void {
  m.signalErrors.inc({ signal, reason });
}

export function recordResyncSweep(queued: number, m: HelmflowMetrics = metrics()): void {
  m.resyncSweeps.inc();
  m.resyncQueued.inc(queued);
}

export function setLeader(leading: boolean, m: HelmflowMetrics = metrics()): void {
  m.leader.set(leading ? 1 : 0);
}

export function recordManifestFiles(files: readonly { outcome: string }[], m: HelmflowMetrics = metrics()): void {
  for (const file of files) m.manifestFiles.inc({ outcome: file.outcome });
}

/** Where the charts gauge reads phases from: the leading controller's HelmChart cache; `() => []` when not leading. */
export function countChartsFrom(source: ChartPhases, m: HelmflowMetrics = metrics()): void {
  m.countChartsFrom(source);
}

/** Where the queued gauge reads from: the leading controller's work queue; nothing queued when not leading. */
export function countQueuedFrom(source: QueuedCharts, m: HelmflowMetrics = metrics()): void {
  m.countQueuedFrom(source);
}

export function recordInstallOutcome(outcome: string, seconds: number, m: HelmflowMetrics = metrics()): void {
  m.installDuration.observe({ outcome }, seconds);
}

export function recordInstallFailure(reason: string, m: HelmflowMetrics = metrics()): void {
  m.installFailures.inc({ reason });
}

/** One malloc_trim call: how long it took, and how far the resident memory fell across it (never below 0). */
export function recordMallocTrim(seconds: number, returnedBytes: number, m: HelmflowMetrics = metrics()): void {
  m.mallocTrimDuration.observe(seconds);
  m.mallocTrimReturnedBytes.inc(Math.max(0, returnedBytes));
}
