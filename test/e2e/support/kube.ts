import { BatchV1Api, CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { toolPaths } from '../../../src/config/pins.js';
import { testLayout } from './stack.js';

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testLayout().adminKubeconfig);
  return kc;
}

export function clients() {
  const kc = kubeConfig();
  return {
    core: kc.makeApiClient(CoreV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    rbac: kc.makeApiClient(RbacAuthorizationV1Api),
  };
}

export interface CommandResult {
  status: number;
  stdout: string;
  /** kubectl's own, or why it never finished (killed at the deadline). */
  stderr: string;
}

/** Runs the pinned kubectl against the test stack, as a user would; killed after `timeoutMs`. */
export function kubectl(args: string[], input?: string, timeoutMs = 60_000): CommandResult {
  const result = spawnSync(toolPaths().kubectl, args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: testLayout().adminKubeconfig },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const killed = result.error === undefined ? '' : `kubectl ${args[0] ?? ''}: ${result.error.message}\n`;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: `${killed}${result.stderr}` };
}

let counter = 0;
/** A namespace of the test's own, so tests never see each other's objects. */
export async function freshNamespace(prefix: string): Promise<string> {
  counter += 1;
  const name = `${prefix}-${Date.now().toString(36)}-${counter}`;
  await clients().core.createNamespace({ body: { metadata: { name } } });
  return name;
}

/** The Events of one object (by name) with one reason, in a namespace. */
export async function eventsOf(namespace: string, name: string, reason: string) {
  const list = await clients().core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}
