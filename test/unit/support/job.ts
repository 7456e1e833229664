import type { V1Container, V1Job, V1PodSpec } from '@kubernetes/client-node';

export function podOf(job: V1Job): V1PodSpec {
  const pod = job.spec?.template.spec;
  if (pod === undefined) throw new Error('job has no pod template');
  return pod;
}

export function containerOf(job: V1Job): V1Container {
  const container = podOf(job).containers[0];
  if (container === undefined) throw new Error('job has no container');
  return container;
}

export function argsOf(job: V1Job): string[] {
  return containerOf(job).args ?? [];
}

/** The value following a flag in an argument list, or undefined when the flag is absent. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

/** Every value given to a repeated flag, in order. */
export function flagValues(args: readonly string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
}
