// What the benches read of a process from /proc: CPU seconds and resident memory, as the kernel counts them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The fields of /proc/<pid>/stat after the command name (which may itself hold spaces): field 3 is [0]. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid); // utime and stime are fields 14 and 15
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** CPU seconds of this process's children that have ended and been waited for (cutime + cstime). */
export function endedChildrenCpuSeconds(): number {
  const fields = statFields('self'); // cutime and cstime are fields 16 and 17
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
}

/** Resident memory now. */
export function rssBytes(pid: number): number {
  return statusKiB(pid, 'VmRSS') * 1024;
}

/** The most resident memory the process has held since it started (the kernel's high-water mark). */
export function peakRssBytes(pid: number): number {
  return statusKiB(pid, 'VmHWM') * 1024;
}

export const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);
