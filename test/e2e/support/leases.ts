import { spawn, type ChildProcess } from 'node:child_process';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { LeaderElector, type LeaderElectionOptions } from '../../../src/kube/leader-election.js';
import { kubeConfig } from './kube.js';
import { testLayout } from './stack.js';

/** Short timings so failover tests take seconds; the ratios are the defaults' (15s / 5s / 10s / 2s). */
export const leaseTimings = {
  leaseDurationSeconds: 4,
  renewIntervalMs: 500,
  renewDeadlineMs: 2_500,
  retryPeriodMs: 250,
} as const;

/** An in-process candidate that records what happened to it. */
export class Candidate {
  readonly elector: LeaderElector;
  started = 0;
  stopped = 0;
  attempts = 0;
  leadership: AbortSignal | undefined;

  constructor(namespace: string, name: string, identity: string, over: Partial<LeaderElectionOptions> = {}) {
    this.elector = new LeaderElector({ kubeConfig: kubeConfig(), namespace, name, identity, ...leaseTimings, ...over });
    this.elector.on('startedLeading', (signal) => {
      this.started += 1;
      this.leadership = signal;
    });
    this.elector.on('stoppedLeading', () => {
      this.stopped += 1;
    });
    this.elector.on('attempt', () => {
      this.attempts += 1;
    });
  }
}

export function readLease(namespace: string, name: string): Promise<V1Lease> {
  return kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name });
}

/** Starts lease-candidate.ts in its own process; `leading` resolves when it prints that it leads. */
export function spawnCandidate(
  namespace: string,
  name: string,
  identity: string,
): { child: ChildProcess; leading: Promise<void> } {
  // node itself, not npx, so a SIGKILL reaches the process that holds the Lease.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/e2e/support/lease-candidate.ts', testLayout().adminKubeconfig, namespace, name, identity],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const leading = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('leading\n')) resolve();
    });
    child.on('exit', (code, sig) => {
      reject(new Error(`candidate ${identity} exited (${String(code ?? sig)})`));
    });
  });
  return { child, leading };
}
