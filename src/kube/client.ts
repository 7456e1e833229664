import type { KubeConfig } from '@kubernetes/client-node';
import { PooledKubeConfig } from './pooled-kube-config.js';

/** A KubeConfig loaded from one file (the embedded stack's components each have their own). */
export function kubeConfigFromFile(file: string): KubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromFile(file);
  return kc;
}

/** The HTTP status of a client-node error, if it carries one. */
export function errorStatus(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = err.code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

export const isNotFound = (err: unknown): boolean => errorStatus(err) === 404;
export const isConflict = (err: unknown): boolean => errorStatus(err) === 409;
