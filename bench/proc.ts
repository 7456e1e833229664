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

/** When a process started, in clock ticks after boot: with its pid, it names one process even once pids are reused. */
export function startTicks(pid: number): string {
  return statFields(pid)[19] ?? ''; // starttime is field 22
}

/** CPU seconds of a process's children (this one's by default) that have ended and been waited for (cutime + cstime). */
export function endedChildrenCpuSeconds(pid: number | 'self' = 'self'): number {
  const fields = statFields(pid); // cutime and cstime are fields 16 and 17
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

/** CPU seconds the whole machine has spent busy so far (every core; /proc/stat's first line less idle and iowait). */
export function machineBusySeconds(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = cpu.trim().split(/\s+/).slice(1).map(Number);
  const [idle, iowait] = [ticks[3] ?? 0, ticks[4] ?? 0];
  return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle - iowait) / ticksPerSecond;
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
