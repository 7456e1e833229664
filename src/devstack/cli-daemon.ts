import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../config/pins.js';

/**
 * Node's arguments to run one helmflow CLI command as a daemon: the TypeScript entry through tsx's loader,
 * named by path because a daemon's working directory is the state directory, not the repo.
 */
export function cliDaemonArgs(command: string, ...args: string[]): string[] {
  return [
    '--import',
    pathToFileURL(path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
    path.join(repoRoot, 'src', 'cli', 'main.ts'),
    command,
    ...args,
  ];
}
