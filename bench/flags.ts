// The benches' command lines, read by commander as the CLI's are: --help answers, and a mistyped flag or a bad
// value is refused before any stack starts, where reading process.argv by hand ran a long bench on its defaults.
import { Command } from 'commander';
import { wholeNumber } from '../src/app/setting-values.js';

export { wholeNumber };

/** A bench's command: `npx tsx bench/<name>.ts`, described by `about`. */
export function benchCommand(name: string, about: string): Command {
  return new Command(`npx tsx bench/${name}.ts`).description(about);
}

/** Parses a comma-separated list of whole numbers of at least `least` (`100,1000`), or refuses it. */
export function wholeNumbers(least: number): (value: string) => number[] {
  const each = wholeNumber(least);
  return (value) => value.split(',').map(each);
}
