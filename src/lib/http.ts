import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface HttpResult {
  status: number;
  body: string;
}

/** A small GET for readiness probes: loopback only, a CA or no verification, an optional bearer token. */
export function get(
  url: string,
  options: { ca?: string; token?: string; insecure?: boolean; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'GET',
        ca: options.ca,
        rejectUnauthorized: options.insecure !== true,
        headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
        timeout: options.timeoutMs ?? 5_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
