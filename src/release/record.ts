/**
 * Helm's release record, as helm 4 stores it (pkg/storage/driver: one Secret `sh.helm.release.v1.<name>.v<rev>`
 * of type helm.sh/release.v1, labelled owner=helm, name, status, version; its `release` key holds base64 of the
 * gzipped JSON of pkg/release/v1.Release). Only the fields helmflow reads are typed here.
 */
export interface ReleaseRecord {
  name?: string;
  namespace?: string;
  version?: number;
  info?: { status?: string; last_deployed?: string; first_deployed?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string }; values?: Record<string, unknown> };
  /** The values supplied to this revision (may hold secrets: never copied anywhere, only hashed). */
  config?: Record<string, unknown>;
}

/** The label selector of every stored revision of one release. */
export function releaseSelector(release: string): string {
  return `owner=helm,name=${release}`;
}
