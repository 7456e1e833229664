import { stringify } from 'yaml';
import { CliError, ExitCode } from './errors.js';

export type Output = 'text' | 'json' | 'yaml';

/** The -o value, or a usage error naming the formats the command knows. */
export function parseOutput<T extends Output>(value: string, allowed: T[]): T {
  if ((allowed as string[]).includes(value)) return value as T;
  throw new CliError(`-o must be one of ${allowed.join(', ')}, not ${value}`, ExitCode.usage);
}

export function printAs(output: 'json' | 'yaml', value: unknown): void {
  process.stdout.write(output === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value));
}
