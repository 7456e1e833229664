import path from 'node:path';

/**
 * A pod's sandbox is a directory that stands in for the container's root: a mount at /a/b lands at
 * <sandbox>/a/b and the process runs in <sandbox>/<workingDir>, so the relative paths in a Job's command
 * resolve the same here as in a container.
 */
export function inSandbox(sandbox: string, containerPath: string): string {
  const resolved = path.resolve(sandbox, '.' + path.posix.resolve('/', containerPath));
  if (resolved !== sandbox && !resolved.startsWith(sandbox + path.sep)) {
    throw new Error(`path ${containerPath} escapes the pod sandbox`);
  }
  return resolved;
}
