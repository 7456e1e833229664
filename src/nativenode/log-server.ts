import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { tailLines } from './logs.js';

/** What the log server needs from the pods the node runs. */
export interface LogSource {
  logFile(namespace: string, pod: string, container: string | undefined, previous: boolean): string | undefined;
  isRunning(namespace: string, pod: string, container: string | undefined): boolean;
}

const followPollMs = 200;

/** Streams new bytes of a log file until its container's process has exited and everything is sent. */
function follow(res: ServerResponse, file: string, from: number, stillRunning: () => boolean): void {
  let offset = from;
  const pump = () => {
    if (res.destroyed) return;
    const size = existsSync(file) ? statSync(file).size : offset;
    if (size > offset) {
      const fd = openSync(file, 'r');
      const chunk = Buffer.alloc(size - offset);
      readSync(fd, chunk, 0, chunk.length, offset);
      closeSync(fd);
      offset = size;
      res.write(chunk);
    }
    if (!stillRunning() && size === offset) {
      res.end();
      return;
    }
    setTimeout(pump, followPollMs);
  };
  pump();
}

/**
 * The kubelet's /containerLogs/{namespace}/{pod}/{container} endpoint over HTTPS, with follow, tailLines and
 * previous, so `kubectl logs` (through the apiserver's proxy) reads what a pod's process printed.
 */
export function startLogServer(
  port: number,
  tls: { cert: string; key: string },
  source: LogSource,
  log: Logger,
): Promise<Server> {
  const server = createServer(tls, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    if (url.pathname === '/healthz') {
      res.writeHead(200).end('ok');
      return;
    }
    const match = /^\/containerLogs\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (match === null) {
      res.writeHead(404).end('not found');
      return;
    }
    const [, namespace = '', pod = '', container] = match;
    const previous = url.searchParams.get('previous') === 'true';
    const file = source.logFile(namespace, pod, container, previous);
    if (file === undefined || !existsSync(file)) {
      res.writeHead(404).end(`no logs for ${namespace}/${pod}/${container ?? ''}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    const text = readFileSync(file);
    const tail = url.searchParams.get('tailLines');
    const body = tail === null ? text : Buffer.from(tailLines(text.toString('utf8'), Number(tail)));
    res.write(body);
    if (url.searchParams.get('follow') === 'true' && !previous) {
      follow(res, file, text.length, () => source.isRunning(namespace, pod, container));
    } else {
      res.end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      log.info({ port }, 'serving container logs');
      resolve(server);
    });
  });
}
