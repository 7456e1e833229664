#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../config/pins.js';
import { registerChartCommands } from './chart-commands.js';
import { ExitCode } from './errors.js';
import { registerGetCommand } from './get-command.js';
import { registerProcessCommands } from './process-commands.js';
import { registerStackCommands, registerToolCommands } from './stack-commands.js';

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

const program = new Command('helmflow')
  .description('Installs Helm charts the way k3s does, each HelmChart run as a durable Temporal workflow.')
  .version(packageJson.version)
  // Usage errors exit 2 (README "Exit codes"); set before the commands so each inherits it.
  .exitOverride()
  // commander's own errors (a bad option value, an unknown flag) read as helmflow's do: one line, `helmflow: `.
  .configureOutput({
    outputError: (message, write) => {
      write(message.replace(/^error: /u, 'helmflow: '));
    },
  });
registerStackCommands(program);
registerToolCommands(program);
registerProcessCommands(program);
registerGetCommand(program);
registerChartCommands(program);

try {
  await program.parseAsync();
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // commander has printed its message; help and --version end with exit code 0.
  process.exitCode = err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
}
