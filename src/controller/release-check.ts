import type { HelmChart } from '../api/index.js';
import { releaseMoved, type StoredRelease } from './release-drift.js';

/** What a release check reads: the release's newest stored record, and the chart as the watch has it now. */
export interface ReleaseSources {
  stored(): Promise<StoredRelease | undefined>;
  chart(): HelmChart | undefined;
}

/**
 * The stored release when it moved away from the chart's status (release-drift.ts), else undefined. The status is
 * taken from the watch after the stored release was read, never from a chart listed before: a resync sweep reads
 * 1,000 charts' releases one after another, minutes under load, and a chart listed before its workflow wrote any
 * status may have installed by its turn, its status then carrying the revision the read finds.
 */
export async function movedRelease(
  sources: ReleaseSources,
): Promise<{ stored: StoredRelease | undefined } | undefined> {
  const stored = await sources.stored();
  const chart = sources.chart();
  if (chart === undefined) return undefined;
  return releaseMoved(chart.status?.release, stored, chart.status?.phase) ? { stored } : undefined;
}
