import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { waitFor } from '../../../src/lib/wait.js';
import { kubeConfig } from './kube.js';
import { startLoopbackHttps } from './loopback-https.js';
import { testLayout } from './stack.js';

/** The user the native node writes as (src/devstack/pki.ts). */
const NATIVE_NODE_USER = 'system:node:helmflow-native';

export interface FailingWebhook {
  /** How many of the native node's writes of one kind ('CREATE pods/binding', 'DELETE pods') were answered. */
  calls(kind: string): number;
  /** From now on the writes are let through. */
  allow(): void;
  close(): Promise<void>;
}

interface AdmissionReview {
  request?: { uid?: string; operation?: string; resource?: { resource?: string }; subResource?: string };
}

/**
 * A validating admission webhook that fails (HTTP 500, so the apiserver answers 500) every binding and every
 * pod deletion the native node asks for in one namespace, until `allow()`: a transient apiserver failure, made
 * on demand, for the node's binding and deletion, where a killed apiserver would hit the window only by luck.
 * Returns once the apiserver calls it.
 */
export async function startFailingWebhook(namespace: string): Promise<FailingWebhook> {
  let failing = true;
  const counts = new Map<string, number>();
  const server = await startLoopbackHttps('helmflow-test-webhook', (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { request = {} } = JSON.parse(body) as AdmissionReview;
      const resource = [request.resource?.resource, request.subResource].filter((s) => s).join('/');
      const kind = `${request.operation ?? ''} ${resource}`;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if (failing) {
        res.writeHead(500).end('failing on purpose');
        return;
      }
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: request.uid, allowed: true },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(review));
    });
  });
  const name = `helmflow-test-failing-${namespace}`;
  const clientConfig = {
    url: `https://127.0.0.1:${server.port}/`,
    caBundle: Buffer.from(readFileSync(testLayout().caCert)).toString('base64'),
  };
  const common = {
    clientConfig,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
  };
  const kc = kubeConfig();
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          ...common,
          name: 'native-node.helmflow.test',
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/binding'] },
            { apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] },
          ],
          matchConditions: [{ name: 'native-node', expression: `request.userInfo.username == '${NATIVE_NODE_USER}'` }],
        },
        // Anyone's ConfigMap: how the test sees the configuration in force before it counts on it.
        {
          ...common,
          name: 'probe.helmflow.test',
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    },
  });
  const core = kc.makeApiClient(CoreV1Api);
  let probes = 0;
  await waitFor('the failing webhook to be in force', () => {
    probes += 1;
    return core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `probe-${probes}` } } }).then(
      () => false,
      (err: unknown) => (err as { code?: number }).code === 500,
    );
  });
  return {
    calls: (kind) => counts.get(kind) ?? 0,
    allow: () => {
      failing = false;
    },
    close: async () => {
      await admission.deleteValidatingWebhookConfiguration({ name }).catch(() => undefined);
      await server.close();
    },
  };
}
