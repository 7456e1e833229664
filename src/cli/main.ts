#!/usr/bin/env node
import { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { toolPaths } from '../config/pins.js';
import { defaultStackLayout } from '../devstack/stack.js';
import { registerChartCommands } from './chart-commands.js';
import { registerProcessCommands } from './process-commands.js';
import { registerStackCommands } from './stack-commands.js';

const program = new Command('helmflow').description(
  'Installs Helm charts the way k3s does, each HelmChart run as a durable Temporal workflow.',
);
registerStackCommands(program);
registerProcessCommands(program);
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

await program.parseAsync();
