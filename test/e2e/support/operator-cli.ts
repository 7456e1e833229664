import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../src/config/pins.js';
import { testLayout } from './stack.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The compiled `helmflow` CLI (dist/, as installed) against the test stack, with a clean environment: the
 * kubeconfig, Temporal address and UI are given as flags, as an operator would on another machine.
 */
export function helmflowCli(
  args: string[],
  { temporalAddress, connection = true }: { temporalAddress?: string; connection?: boolean } = {},
): CliResult {
  const layout = testLayout();
  const flags = [
    '--kubeconfig',
    layout.adminKubeconfig,
    '--temporal-address',
    temporalAddress ?? layout.temporalAddress,
    '--temporal-ui',
    layout.temporalUiUrl,
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const name of ['KUBECONFIG', 'TEMPORAL_ADDRESS', 'HELMFLOW_KUBECONFIG', 'HELMFLOW_TEMPORAL_UI'])
    env[name] = undefined;
  const result = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'dist', 'src', 'cli', 'main.js'), ...args, ...(connection ? flags : [])],
    { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
