/**
 * Chart workflows a worker keeps in memory, by default. An idle chart gets no workflow task, so the cache only has
 * to hold the charts at work, and a chart evicted replays its short history when it next runs: at 300 charts, 64
 * rather than 200 rested with about 13 MiB less (bench/README.md, which keeps what the replays were seen to cost).
 */
export const DEFAULT_WORKFLOW_CACHE = 64;
