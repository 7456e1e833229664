/**
 * helm arguments for spec.set, k3s's way: keys sorted; integers and values that read as true, false or null go
 * through --set (helm types them), everything else through --set-string so "1.0" or "yes" stay strings.
 */
export function setArgs(set: Readonly<Record<string, number | string>> | undefined): string[] {
  const args: string[] = [];
  for (const key of Object.keys(set ?? {}).sort()) {
    const value = set?.[key];
    if (value === undefined) continue;
    if (typedBySet(value)) args.push('--set', `${key}=${String(value)}`);
    else args.push('--set-string', `${key}=${escapeCommas(value)}`);
  }
  return args;
}

function typedBySet(value: number | string): boolean {
  return typeof value === 'number' || ['true', 'false', 'null'].includes(value.toLowerCase());
}

/**
 * helm splits --set-string at commas. A comma preceded by an even number of backslashes (none included) is a
 * separator, so it gets one more backslash; one already escaped is left alone.
 */
export function escapeCommas(value: string | number): string {
  return String(value).replace(/\\*,/gu, (run) => (run.length % 2 === 1 ? `\\${run}` : run));
}
