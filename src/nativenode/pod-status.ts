import type { V1ContainerState, V1PodCondition } from '@kubernetes/client-node';

/** What the native node knows about one container, in the shape a kubelet reports. */
export interface ContainerView {
  name: string;
  image: string;
  restartCount: number;
  state: V1ContainerState;
  lastState?: V1ContainerState;
}

export interface PodView {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  reason?: string;
  message?: string;
  startTime?: string;
  initContainers: ContainerView[];
  containers: ContainerView[];
}

function condition(type: string, ok: boolean, now: string, reason?: string): V1PodCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    lastTransitionTime: now as unknown as Date,
    ...(reason ? { reason } : {}),
  };
}

function containerStatus(view: ContainerView) {
  return {
    name: view.name,
    image: view.image,
    imageID: '',
    ready: view.state.running !== undefined,
    started: view.state.running !== undefined,
    restartCount: view.restartCount,
    state: view.state,
    ...(view.lastState ? { lastState: view.lastState } : {}),
  };
}

/**
 * The pod status a kubelet would write for this view, as plain JSON for a merge patch (timestamps are ISO
 * strings already). Pure, so the status logic is tested without a cluster.
 */
export function renderPodStatus(view: PodView, now: string): Record<string, unknown> {
  const initDone = view.initContainers.every((c) => c.state.terminated?.exitCode === 0);
  const allRunning = view.containers.length > 0 && view.containers.every((c) => c.state.running !== undefined);
  const finished = view.phase === 'Succeeded' || view.phase === 'Failed';
  const notReadyReason = finished ? 'PodCompleted' : 'ContainersNotReady';
  const started = view.phase !== 'Pending' || view.containers.some((c) => c.state.waiting === undefined);
  return {
    phase: view.phase,
    reason: view.reason ?? null,
    message: view.message ?? null,
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP: '127.0.0.1',
    podIPs: [{ ip: '127.0.0.1' }],
    ...(view.startTime ? { startTime: view.startTime } : {}),
    conditions: [
      condition('PodReadyToStartContainers', started, now),
      condition('Initialized', initDone, now, initDone ? undefined : 'ContainersNotInitialized'),
      condition('ContainersReady', allRunning, now, allRunning ? undefined : notReadyReason),
      condition('Ready', allRunning, now, allRunning ? undefined : notReadyReason),
      condition('PodScheduled', true, now),
    ],
    initContainerStatuses: view.initContainers.map(containerStatus),
    containerStatuses: view.containers.map(containerStatus),
  };
}

/** The exit code a shell would report: 128 + the signal number for a killed process. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return 128 + (signal ? (numbers[signal] ?? 0) : 0);
}
