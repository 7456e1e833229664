import { VALUES_DIR, type ValuesFile } from './values-files.js';

/** What spec.set becomes: helm arguments, and the files (keys of the values Secret) that string values travel in. */
export interface SetEntries {
  args: string[];
  files: ValuesFile[];
}

/**
 * spec.set, typed k3s's way, keys sorted: integers and values that read as true, false or null go through --set
 * (helm types them; they are in the Job's args), every other value is a string and goes through
 * `--set-file <key>=values/set-NNN`, its text a key of the values Secret, so it never reaches args. helm parses
 * the key of --set-file exactly as that of --set and --set-string (dots, brackets, escapes) and applies
 * --set-file after --set, as it applied --set-string, so precedence is unchanged.
 */
export function setEntries(set: Readonly<Record<string, number | string>> | undefined): SetEntries {
  const args: string[] = [];
  const files: ValuesFile[] = [];
  for (const key of Object.keys(set ?? {}).sort()) {
    const value = set?.[key];
    if (value === undefined) continue;
    if (typeof value === 'number' || typedBySet(value)) {
      args.push('--set', `${key}=${String(value)}`);
      continue;
    }
    const name = `set-${String(files.length + 1).padStart(3, '0')}`;
    const file = { key: name, path: `${VALUES_DIR}/${name}`, content: setStringText(value) };
    files.push(file);
    args.push('--set-file', `${key}=${file.path}`);
  }
  return { args, files };
}

function typedBySet(value: string): boolean {
  return ['true', 'false', 'null'].includes(value.toLowerCase());
}

/**
 * The string helm made of a value given as `--set-string key=<value>` (k3s's way, commas escaped): each backslash
 * escapes the character after it, and a last lone backslash is dropped. --set-file reads its file verbatim, so the
 * file holds this text and the release gets the value it got before, and gets under k3s. One difference, on
 * purpose: a value starting with `{` was read by --set-string as a helm list (and text after its `}` as more
 * keys); here it stays the string it is in spec.set.
 */
export function setStringText(value: string): string {
  return value.replace(/\\(.?)/gsu, '$1');
}
