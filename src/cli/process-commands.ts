import type { Command } from 'commander';
import { runRoles, type Role } from '../app/run.js';
import { settingOptions, type SettingValues } from '../app/setting-specs.js';
import { settingsOf } from '../app/settings.js';
import { createLogger } from '../config/logger.js';
import { ExitCode } from './errors.js';

function withSettings(command: Command): Command {
  for (const option of settingOptions()) command.addOption(option);
  return command;
}

export function registerProcessCommands(program: Command): void {
  const roles: [Role, string][] = [
    ['controller', 'watch HelmCharts and signal their workflows (one leader by Lease)'],
    ['worker', 'run the chart workflows and their Kubernetes activities'],
    ['run', 'controller and worker in one process'],
  ];
  for (const [role, description] of roles) {
    const command: Command = withSettings(program.command(role).description(description));
    command.action(async (options: SettingValues) => {
      let settings;
      try {
        settings = settingsOf(options);
      } catch (err) {
        // Each value was checked as commander read it; a rule between settings is a usage error too.
        command.error(`error: ${(err as Error).message}`, { exitCode: ExitCode.usage });
      }
      await runRoles(role, settings, createLogger(`helmflow-${role}`));
      process.exit(0);
    });
  }
}
