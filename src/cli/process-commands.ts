import type { Command } from 'commander';
import { runRoles, type Role } from '../app/run.js';
import { resolveSettings, settingSpecs } from '../app/settings.js';
import { createLogger } from '../config/logger.js';

function withSettings(command: Command): Command {
  for (const spec of settingSpecs) command.option(spec.flag, `${spec.help} [$${spec.env}]`);
  return command;
}

export function registerProcessCommands(program: Command): void {
  const roles: [Role, string][] = [
    ['controller', 'watch HelmCharts and signal their workflows (one leader by Lease)'],
    ['worker', 'run the chart workflows and their Kubernetes activities'],
    ['run', 'controller and worker in one process'],
  ];
  for (const [role, description] of roles) {
    withSettings(program.command(role).description(description)).action(async (options: Record<string, unknown>) => {
      const log = createLogger(`helmflow-${role}`);
      await runRoles(role, resolveSettings(options), log);
      process.exit(0);
    });
  }
}
