import type { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '../kube/k8s.js';
import { cpus, release, totalmem } from 'node:os';
import type { Logger } from 'pino';
import { isNotFound } from '../kube/client.js';

const leaseSeconds = 40;

function nodeStatus(port: number, kubeletVersion: string, heartbeat: string) {
  const capacity = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '250' };
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: heartbeat,
  });
  return {
    capacity,
    allocatable: capacity,
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'localhost' },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: port } },
    conditions: [
      condition('Ready', 'True', 'KubeletReady', 'helmflow native node is posting ready status'),
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'no memory pressure'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'no PID pressure'),
    ],
    nodeInfo: {
      machineID: 'helmflow-native',
      systemUUID: 'helmflow-native',
      bootID: 'helmflow-native',
      kernelVersion: release(),
      osImage: 'helmflow native node',
      containerRuntimeVersion: 'native://host-process',
      kubeletVersion,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/**
 * Registers the native node as a Ready Node with its log endpoint, then keeps it alive the way a kubelet does:
 * a Lease in kube-node-lease renewed every 10 s and the Ready condition's heartbeat every 30 s.
 */
export class NodeRegistration {
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly core: CoreV1Api,
    private readonly coordination: CoordinationV1Api,
    private readonly nodeName: string,
    private readonly port: number,
    private readonly kubeletVersion: string,
    private readonly log: Logger,
  ) {}

  async register(): Promise<void> {
    try {
      await this.core.readNode({ name: this.nodeName });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.core.createNode({
        body: {
          metadata: {
            name: this.nodeName,
            labels: {
              'kubernetes.io/hostname': this.nodeName,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': 'amd64',
              'node.helmflow.io/native': 'true',
            },
          },
        },
      });
      this.log.info({ node: this.nodeName }, 'registered node');
    }
    await this.heartbeat();
    await this.renewLease();
    this.timers.push(setInterval(() => void this.renewLease(), 10_000));
    this.timers.push(setInterval(() => void this.heartbeat(), 30_000));
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.core.patchNodeStatus(
        {
          name: this.nodeName,
          body: { status: nodeStatus(this.port, this.kubeletVersion, new Date().toISOString()) },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'node status heartbeat failed');
    }
  }

  private async renewLease(): Promise<void> {
    const namespace = 'kube-node-lease';
    const spec = {
      holderIdentity: this.nodeName,
      leaseDurationSeconds: leaseSeconds,
      // A Lease's renewTime is a MicroTime: six fractional digits.
      renewTime: new Date().toISOString().replace(/Z$/, '000Z'),
    };
    try {
      await this.coordination.patchNamespacedLease(
        { name: this.nodeName, namespace, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn({ err: (err as Error).message }, 'node lease renewal failed');
        return;
      }
      try {
        await this.coordination.createNamespacedLease({
          namespace,
          body: { metadata: { name: this.nodeName, namespace }, spec: spec as never },
        });
      } catch (createErr) {
        this.log.warn({ err: (createErr as Error).message }, 'node lease creation failed');
      }
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}
