import { Counter } from 'prom-client';
import { HealthServer } from '../../src/observability/http.js';
import {
  countChartsFrom,
  countQueuedFrom,
  createMetrics,
  recordInstallFailure,
  recordInstallOutcome,
  recordMallocTrim,
  recordManifestFiles,
  recordSignalError,
  recordSignalSent,
  recordWatchEvent,
  setLeader,
  type HelmflowMetrics,
} from '../../src/observability/metrics.js';

describe('the metrics and health endpoint', () => {
  let m: HelmflowMetrics;
  let server: HealthServer;

  beforeEach(async () => {
    m = createMetrics();
    server = await HealthServer.start({ port: 0, host: '127.0.0.1', registry: m.registry });
  });
  afterEach(async () => {
    await server.close();
  });

  const get = (path: string, method = 'GET') => fetch(`${server.url}${path}`, { method });

  it('serves the default process metrics in the Prometheus text format', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('counts watch events, signals sent and signal errors, and the leader flag', async () => {
    recordWatchEvent('HelmChart', 'ADDED', m);
    recordWatchEvent('HelmChart', 'ADDED', m);
    recordWatchEvent('Job', 'MODIFIED', m);
    recordSignalSent('desired', m);
    recordSignalError('desired', 'unavailable', m);
    setLeader(true, m);
    recordManifestFiles([{ outcome: 'applied' }, { outcome: 'applied' }, { outcome: 'failed' }], m);
    const text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_watch_events_total{resource="HelmChart",type="ADDED"} 2');
    expect(text).toContain('helmflow_watch_events_total{resource="Job",type="MODIFIED"} 1');
    expect(text).toContain('helmflow_signals_total{signal="desired"} 1');
    expect(text).toContain('helmflow_signal_errors_total{signal="desired",reason="unavailable"} 1');
    expect(text).toMatch(/^helmflow_leader 1$/m);
    expect(text).toContain('helmflow_manifest_files_total{outcome="applied"} 2');
    expect(text).toContain('helmflow_manifest_files_total{outcome="failed"} 1');
  });

  it('counts charts by phase at each scrape from the source the leader names, and none without one', async () => {
    expect(await (await get('/metrics')).text()).not.toMatch(/^helmflow_charts\{/m);
    let phases: (string | undefined)[] = ['Installed', 'Installed', 'Failed', undefined];
    countChartsFrom(() => phases, m);
    let text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_charts{phase="Installed"} 2');
    expect(text).toContain('helmflow_charts{phase="Failed"} 1');
    expect(text).toContain('helmflow_charts{phase="Pending"} 1');
    phases = ['Installed'];
    text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_charts{phase="Installed"} 1');
    expect(text).not.toContain('phase="Failed"');
  });

  it("reads the controller's queued charts by urgency at each scrape, and none without a leader", async () => {
    expect(await (await get('/metrics')).text()).toContain('helmflow_controller_queued_charts{urgency="resync"} 0');
    let waiting = { change: 1, resync: 250 };
    countQueuedFrom(() => waiting, m);
    let text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_controller_queued_charts{urgency="change"} 1');
    expect(text).toContain('helmflow_controller_queued_charts{urgency="resync"} 250');
    waiting = { change: 0, resync: 3 };
    text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_controller_queued_charts{urgency="resync"} 3');
  });

  it('records install durations by outcome and failures by reason', async () => {
    recordInstallOutcome('succeeded', 3, m);
    recordInstallOutcome('failed', 42, m);
    recordInstallFailure('BackoffLimitExceeded', m);
    const text = await (await get('/metrics')).text();
    expect(text).toContain('helmflow_install_duration_seconds_bucket{le="5",outcome="succeeded"} 1');
    expect(text).toContain('helmflow_install_duration_seconds_bucket{le="30",outcome="failed"} 0');
    expect(text).toContain('helmflow_install_duration_seconds_count{outcome="failed"} 1');
    expect(text).toContain('helmflow_install_failures_total{reason="BackoffLimitExceeded"} 1');
  });

  it('adds up the malloc_trim calls, their seconds and what they gave back, never a negative amount', async () => {
    recordMallocTrim(0.25, 64 * 2 ** 20, m);
    recordMallocTrim(0.5, -4096, m); // the process grew across the call: other threads allocated meanwhile
    const text = await (await get('/metrics')).text();
    expect(text).toMatch(/^helmflow_malloc_trim_duration_seconds_count 2$/m);
    expect(text).toMatch(/^helmflow_malloc_trim_duration_seconds_sum 0.75$/m);
    expect(text).toMatch(/^helmflow_malloc_trim_duration_seconds_bucket\{le="0.25"\} 1$/m);
    expect(text).toMatch(/^helmflow_malloc_trim_duration_seconds_bucket\{le="0.5"\} 2$/m);
    expect(text).toMatch(/^helmflow_malloc_trim_returned_bytes_total 67108864$/m);
  });

  it('serves metrics other modules register on the registry', async () => {
    new Counter({ name: 'helmflow_worker_probe_total', help: 'a probe', registers: [m.registry] }).inc(5);
    expect(await (await get('/metrics')).text()).toMatch(/^helmflow_worker_probe_total 5$/m);
  });

  it('answers /healthz while the process runs', async () => {
    const res = await get('/healthz');
    expect([res.status, await res.text()]).toEqual([200, 'ok\n']);
  });

  it('reports /readyz from the flag the process sets, with the reason when not ready', async () => {
    let res = await get('/readyz');
    expect([res.status, await res.text()]).toEqual([503, 'not ready: starting\n']);
    server.setReady(true);
    res = await get('/readyz');
    expect([res.status, await res.text()]).toEqual([200, 'ok\n']);
    server.setReady(false, 'temporal unreachable');
    res = await get('/readyz');
    expect([res.status, await res.text()]).toEqual([503, 'not ready: temporal unreachable\n']);
  });

  it('answers HEAD, and refuses other paths and methods', async () => {
    expect((await get('/healthz', 'HEAD')).status).toBe(200);
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });
});
