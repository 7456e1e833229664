import { readFileSync } from 'node:fs';

import type { ToolPaths } from '../config/pins.js';
import { searchAttributes, searchAttributeType } from '../config/search-attributes.js';
import { get } from '../lib/http.js';
import { cliDaemonArgs } from './cli-daemon.js';
import type { Component, StackLayout } from './layout.js';

/** How to start one component and how to tell it is ready. */
export interface ComponentSpec {
  name: Component;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Resolves true once the component serves; throws or returns false while it does not. */
  ready: () => Promise<boolean>;
  /** How long a cold start may take before start gives up. */
  startTimeoutMs: number;
}

export interface StackOptions {
  /** How often the native node re-checks a pod whose binary is missing (the seed says every minute). */
  nativeNodeRecheckSeconds?: number;
  nodeName?: string;
}

function adminToken(layout: StackLayout): string {
  const admin = readFileSync(layout.tokenFile, 'utf8')
    .split('\n')
    .find((row) => row.includes(',helmflow-admin,'));
  return admin?.split(',')[0] ?? '';
}

async function apiGet(layout: StackLayout, apiPath: string) {
  return get(layout.apiserverUrl + apiPath, { ca: readFileSync(layout.caCert, 'utf8'), token: adminToken(layout) });
}

export function componentSpecs(layout: StackLayout, tools: ToolPaths, options: StackOptions = {}): ComponentSpec[] {
  const { ports } = layout;
  const nodeName = options.nodeName ?? 'helmflow-native';
  return [
    {
      name: 'etcd',
      command: tools.etcd,
      args: [
        '--name=helmflow',
        `--data-dir=${layout.etcdDataDir}`,
        `--listen-client-urls=http://127.0.0.1:${ports.etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${ports.etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-cluster=helmflow=http://127.0.0.1:${ports.etcdPeer}`,
        '--listen-metrics-urls=',
        '--log-level=warn',
        '--quota-backend-bytes=2147483648',
      ],
      ready: async () => (await get(`http://127.0.0.1:${ports.etcdClient}/health`)).body.includes('"health":"true"'),
      startTimeoutMs: 30_000,
    },
    {
      name: 'kube-apiserver',
      command: tools.kubeApiserver,
      args: [
        `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
        '--bind-address=127.0.0.1',
        // Without a default route the apiserver cannot pick an address of its own.
        '--advertise-address=127.0.0.1',
        '--endpoint-reconciler-type=none',
        `--secure-port=${ports.apiserver}`,
        `--tls-cert-file=${layout.apiserverCert}`,
        `--tls-private-key-file=${layout.apiserverKey}`,
        `--client-ca-file=${layout.caCert}`,
        `--token-auth-file=${layout.tokenFile}`,
        '--authorization-mode=RBAC',
        `--service-account-issuer=https://kubernetes.default.svc`,
        `--service-account-key-file=${layout.serviceAccountPub}`,
        `--service-account-signing-key-file=${layout.serviceAccountKey}`,
        '--api-audiences=https://kubernetes.default.svc',
        '--service-cluster-ip-range=10.96.0.0/16',
        '--kubelet-preferred-address-types=InternalIP',
        `--kubelet-certificate-authority=${layout.caCert}`,
        '--enable-priority-and-fairness=false',
        '--profiling=false',
        '--v=1',
      ],
      ready: async () => (await apiGet(layout, '/readyz')).body === 'ok',
      startTimeoutMs: 90_000,
    },
    {
      name: 'kube-controller-manager',
      command: tools.kubeControllerManager,
      args: [
        `--kubeconfig=${layout.controllerManagerKubeconfig}`,
        `--authentication-kubeconfig=${layout.controllerManagerKubeconfig}`,
        `--authorization-kubeconfig=${layout.controllerManagerKubeconfig}`,
        '--controllers=job-controller,garbage-collector-controller,namespace-controller,ttl-after-finished-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller',
        `--service-account-private-key-file=${layout.serviceAccountKey}`,
        `--root-ca-file=${layout.caCert}`,
        '--use-service-account-credentials=false',
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${ports.controllerManager}`,
        '--concurrent-job-syncs=20',
        '--v=1',
      ],
      // Pods need the namespace's default ServiceAccount and the root CA ConfigMap: both come from here.
      ready: async () => {
        const sa = await apiGet(layout, '/api/v1/namespaces/default/serviceaccounts/default');
        const ca = await apiGet(layout, '/api/v1/namespaces/default/configmaps/kube-root-ca.crt');
        const health = await get(`https://127.0.0.1:${ports.controllerManager}/healthz`, { insecure: true });
        return sa.status === 200 && ca.status === 200 && health.body === 'ok';
      },
      startTimeoutMs: 60_000,
    },
    {
      name: 'native-node',
      command: process.execPath,
      args: cliDaemonArgs(
        'native-node',
        `--state-dir=${layout.stateDir}`,
        `--port-offset-json=${JSON.stringify(ports)}`,
        `--node-name=${nodeName}`,
        `--recheck-seconds=${options.nativeNodeRecheckSeconds ?? 60}`,
      ),
      env: { ...process.env, NODE_OPTIONS: '' },
      ready: async () => {
        const res = await apiGet(layout, `/api/v1/nodes/${nodeName}`);
        if (res.status !== 200) return false;
        const node = JSON.parse(res.body) as { status?: { conditions?: { type: string; status: string }[] } };
        return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      },
      startTimeoutMs: 30_000,
    },
    {
      name: 'temporal',
      command: tools.temporal,
      args: [
        'server',
        'start-dev',
        `--db-filename=${layout.temporalDb}`,
        // SQLite's defaults (rollback journal, fsync at every commit) serialise every history write behind
        // several fsyncs on the server's one connection; under 100 charts its writes outlasted the server's
        // own deadlines (bench/README.md, Benchmarks). A write-ahead log synced at checkpoints keeps every commit across
        // a crash of the server, and loses only the last ones if the machine itself goes down.
        '--sqlite-pragma=journal_mode=wal',
        '--sqlite-pragma=synchronous=normal',
        '--ip=127.0.0.1',
        `--port=${ports.temporal}`,
        `--ui-port=${ports.temporalUi}`,
        `--metrics-port=${ports.temporalMetrics}`,
        '--log-level=warn',
        ...Object.values(searchAttributes).flatMap((name) => ['--search-attribute', `${name}=${searchAttributeType}`]),
      ],
      // The UI answers once the frontend is up; the namespace check is the client's job.
      ready: async () => (await get(`http://127.0.0.1:${ports.temporalUi}/api/v1/namespaces/default`)).status === 200,
      startTimeoutMs: 60_000,
    },
  ];
}
