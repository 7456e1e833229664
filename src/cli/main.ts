#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, toolPaths } from '../config/pins.js';
import { defaultStackLayout } from '../devstack/stack.js';
import { registerChartCommands } from './chart-commands.js';
import { ExitCode } from './errors.js';
import { registerGetCommand } from './get-command.js';
import { registerProcessCommands } from './process-commands.js';
import { registerStackCommands } from './stack-commands.js';

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

const program = new Command('helmflow')
  .description('Installs Helm charts the way k3s does, each HelmChart run as a durable Temporal workflow.')
  .version(packageJson.version)
  // Usage errors exit 2 (README "Exit codes"); set before the commands so each inherits it.
  .exitOverride();
registerStackCommands(program);
registerProcessCommands(program);
registerGetCommand(program);
registerChartCommands(program);

for (const tool of ['kubectl', 'helm', 'temporal'] as const) {
  program
    .command(tool)
    .description(`run the pinned ${tool} against the embedded stack`)
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action((args: string[]) => {
      const layout = defaultStackLayout();
      const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: process.env.KUBECONFIG ?? layout.adminKubeconfig };
      if (tool === 'temporal') env.TEMPORAL_ADDRESS = process.env.TEMPORAL_ADDRESS ?? layout.temporalAddress;
      const result = spawnSync(toolPaths()[tool], args, { stdio: 'inherit', env });
      process.exitCode = result.status ?? 1;
    });
}

try {
  await program.parseAsync();
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // commander has printed its message; help and --version end with exit code 0.
  process.exitCode = err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
}
