// One helm process run as an install Job's container runs it (fresh helm state, as its emptyDir gives it), with
// what it cost: its CPU as the kernel counts the ended process, and the apiserver requests in its window. Shared by
// bench/helm-process-cost.ts and bench/crowded-namespace.ts; runs against the stack testLayout() names, running.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPaths } from '../src/config/pins.js';
import { kubectl } from '../test/e2e/support/kube.js';
import { testLayout } from '../test/e2e/support/stack.js';
import { requestsBetween, requestsByVerb } from './apiserver-writes.js';
import { endedChildrenCpuSeconds } from './proc.js';

/** What one helm process cost. */
export interface HelmSample {
  /** CPU seconds, user + system, to the kernel's 10 ms tick. */
  cpu: number;
  /** Requests the apiserver served in its window (the stack's own background requests included). */
  requests: number;
}

/** The requests the apiserver has served so far, by verb and resource. */
function apiserverRequests(): Map<string, number> {
  const scraped = kubectl(['get', '--raw', '/metrics']);
  if (scraped.status !== 0) throw new Error(`kubectl get --raw /metrics: ${scraped.stderr}`);
  return requestsByVerb(scraped.stdout);
}

/** Runs helm once with the state of a fresh Job container (and `kubeCache` as KUBECACHEDIR, if given). */
export function runHelm(args: string[], kubeCache?: string): HelmSample {
  const home = mkdtempSync(path.join(tmpdir(), 'helmflow-bench-helm-home-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    KUBECONFIG: testLayout().adminKubeconfig,
    HELM_CACHE_HOME: path.join(home, 'cache'),
    HELM_CONFIG_HOME: path.join(home, 'config'),
    HELM_DATA_HOME: path.join(home, 'data'),
    ...(kubeCache === undefined ? {} : { KUBECACHEDIR: kubeCache }),
  };
  const before = apiserverRequests();
  const cpu0 = endedChildrenCpuSeconds();
  const result = spawnSync(toolPaths().helm, args, { env, encoding: 'utf8', cwd: home });
  const cpu = endedChildrenCpuSeconds() - cpu0;
  if (result.status !== 0) throw new Error(`helm ${args.join(' ')}: ${result.stderr}`);
  const between = requestsBetween(before, apiserverRequests());
  between.delete('GET (no resource)'); // the bench's own read of /metrics
  rmSync(home, { recursive: true, force: true });
  return { cpu, requests: [...between.values()].reduce((a, b) => a + b, 0) };
}
