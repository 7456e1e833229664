import { Command } from 'commander';
import { settingOptions, settingSpecs, type SettingValues } from '../../../src/app/setting-specs.js';
import { settingsOf, type Settings } from '../../../src/app/settings.js';

/**
 * A process's settings as `helmflow run <args>` would read them with `env` as its environment: commander's own
 * parsing, with every setting's variable taken from `env` only (the test's environment is put back after). A value
 * commander refuses throws its message.
 */
export function parseSettings(args: readonly string[], env: NodeJS.ProcessEnv = {}): Settings {
  const command = new Command('run')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  for (const option of settingOptions()) command.addOption(option);
  const names = Object.values(settingSpecs).map((spec) => spec.env);
  const saved = new Map(names.map((name) => [name, process.env[name]]));
  for (const name of names) {
    const value = env[name];
    if (value === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = value;
  }
  try {
    command.parse([...args], { from: 'user' });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
  return settingsOf(command.opts<SettingValues>());
}
