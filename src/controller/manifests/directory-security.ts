import { statSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * Whoever can write the auto-deploy directory can start a cluster-admin install (its Job runs as cluster-admin),
 * so the directory, each directory above it, and each file must be writable only by root. The controller's own
 * user is trusted too: it holds the admin credentials already (a development stack runs unprivileged).
 */
export class InsecureManifestPathError extends Error {
  constructor(
    readonly file: string,
    readonly mode: number,
    readonly uid: number,
    why: string,
  ) {
    super(`refusing ${file} (mode ${formatMode(mode)}, owner uid ${uid}): ${why}`);
    this.name = 'InsecureManifestPathError';
  }
}

export function defaultTrustedUids(): number[] {
  const me = process.getuid?.();
  return me === undefined || me === 0 ? [0] : [0, me];
}

export function formatMode(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
}

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

function why(stats: Stats, trustedUids: readonly number[], what: string): string | undefined {
  if (!trustedUids.includes(stats.uid)) return `${what} is owned by a user other than root`;
  if ((stats.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    return `${what} is group- or world-writable, so users other than root can change it (chmod go-w)`;
  }
  return undefined;
}

/** Throws InsecureManifestPathError naming the first path that others could write. */
export function checkManifestDirectory(directory: string, trustedUids: readonly number[] = defaultTrustedUids()): void {
  const dir = path.resolve(directory);
  const stats = statSync(dir);
  if (!stats.isDirectory()) throw new Error(`the auto-deploy directory ${dir} is not a directory`);
  const problem = why(stats, trustedUids, 'the auto-deploy directory');
  if (problem !== undefined) throw new InsecureManifestPathError(dir, stats.mode, stats.uid, problem);
  // An ancestor that others can write lets them swap the directory out, unless its sticky bit (as on /tmp)
  // keeps them from renaming an entry they do not own.
  for (let parent = path.dirname(dir), child = dir; parent !== child; child = parent, parent = path.dirname(parent)) {
    const p = statSync(parent);
    if (!trustedUids.includes(p.uid)) {
      throw new InsecureManifestPathError(
        parent,
        p.mode,
        p.uid,
        `a directory above ${dir} is owned by a user other than root`,
      );
    }
    if ((p.mode & GROUP_OR_OTHER_WRITE) !== 0 && (p.mode & STICKY) === 0) {
      throw new InsecureManifestPathError(
        parent,
        p.mode,
        p.uid,
        `a directory above ${dir} is group- or world-writable`,
      );
    }
  }
}

/** A manifest file must meet the same rule as its directory; returns why not, or undefined. */
export function manifestFileProblem(
  stats: Stats,
  trustedUids: readonly number[] = defaultTrustedUids(),
): string | undefined {
  if (!stats.isFile()) return 'not a regular file';
  const problem = why(stats, trustedUids, 'the file');
  return problem === undefined ? undefined : `${problem} (mode ${formatMode(stats.mode)}, owner uid ${stats.uid})`;
}
