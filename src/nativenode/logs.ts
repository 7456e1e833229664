import path from 'node:path';

/** One file per container run: <podDir>/logs/<container>/<restartCount>.log, as the kubelet keeps them. */
export function containerLogFile(podDir: string, container: string, restartCount: number): string {
  return path.join(podDir, 'logs', container, `${restartCount}.log`);
}

/** The last `n` lines of a log, keeping the trailing newline. */
export function tailLines(text: string, n: number): string {
  if (n <= 0) return '';
  const lines = text.split('\n');
  const trailing = lines[lines.length - 1] === '' ? lines.pop() : undefined;
  const kept = lines.slice(-n).join('\n');
  return trailing === undefined ? kept : kept + '\n';
}

/** What a kubelet keeps of a log as a termination message under FallbackToLogsOnError: 80 lines, at most 2048 bytes. */
export function fallbackTerminationMessage(log: string): string {
  const tail = Buffer.from(tailLines(log, 80));
  return tail.length <= 2048 ? tail.toString('utf8') : tail.subarray(-2048).toString('utf8');
}
