import type { HelmChartStatus } from '../api/index.js';

/** What `helmflow chart check` asserts of a release (README, "The release as it is"). */
export interface ReleaseAssertions {
  status?: string;
  minRevision?: number;
  valuesHash?: string;
}

export type AssertionResult = { ok: true; message: string } | { ok: false; assertion: string; message: string };

/**
 * Checks the release a HelmChart's status reports, in a fixed order (exists, status, revision, values hash), and
 * names the first assertion that fails. Pure: table-tested.
 */
export function checkRelease(
  chart: string,
  release: HelmChartStatus['release'],
  want: ReleaseAssertions,
): AssertionResult {
  if (release === undefined || release.revision === undefined) {
    return { ok: false, assertion: 'exists', message: `${chart}: no helm release is recorded in its status` };
  }
  const { revision, status = 'unknown', valuesHash = '' } = release;
  if (want.status !== undefined && status !== want.status) {
    return { ok: false, assertion: 'status', message: `${chart}: release status is ${status}, not ${want.status}` };
  }
  if (want.minRevision !== undefined && revision < want.minRevision) {
    return {
      ok: false,
      assertion: 'revision',
      message: `${chart}: release revision is ${revision}, below ${want.minRevision}`,
    };
  }
  if (want.valuesHash !== undefined && valuesHash !== want.valuesHash) {
    return {
      ok: false,
      assertion: 'values-hash',
      message: `${chart}: values hash is ${valuesHash}, not ${want.valuesHash}`,
    };
  }
  return { ok: true, message: `${chart}: release revision ${revision} is ${status}, values hash ${valuesHash}` };
}
