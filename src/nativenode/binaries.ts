import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Finds a container's command on the node: an absolute path as given, otherwise the first executable match on
 * the pod's PATH (the pinned helm and kubectl come first). Undefined when the node lacks it.
 */
export function resolveBinary(command: string, searchPath: string): string | undefined {
  const candidates = command.includes('/') ? [command] : searchPath.split(':').map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return undefined;
}
