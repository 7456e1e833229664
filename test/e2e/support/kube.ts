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
  stderr: string;
}

/** Runs the pinned kubectl against the test stack, as a user would. */
export function kubectl(args: string[], input?: string): CommandResult {
  const result = spawnSync(toolPaths().kubectl, args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: testLayout().adminKubeconfig },
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
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
