import type { V1Pod } from '@kubernetes/client-node';
import { BatchV1Api, CoordinationV1Api, CoreV1Api, makeInformer } from '../kube/k8s.js';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { readPins } from '../config/pins.js';
import { kubeConfigFromFile } from '../kube/client.js';
import { restartOnError } from '../kube/restart-watch.js';
import { startLogServer } from './log-server.js';
import { NodeRegistration } from './node-registration.js';
import { bindPod, finishPodDeletion } from './pod-writes.js';
import type { NativeNodeOptions } from './options.js';
import { PodAdmission } from './pod-admission.js';
import { PodRuntime } from './pod-runtime.js';

/** How soon a pod whose Job could not be read is checked again. */
const RECHECK_MS = 2_000;

/**
 * A minimal kubelet: binds pending helm Job pods to itself (there is no scheduler in the embedded stack) and runs
 * the pods bound to it as host processes. Any other pod is neither bound nor run (helm-job-pod.ts says which
 * qualify). Returns a function that stops it and every process it started.
 */
export async function runNativeNode(options: NativeNodeOptions, log: Logger): Promise<() => Promise<void>> {
  const { layout, nodeName } = options;
  const kc = kubeConfigFromFile(layout.nativeNodeKubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const admission = new PodAdmission(core, kc.makeApiClient(BatchV1Api), nodeName, log);
  const runtimes = new Map<string, PodRuntime>();
  const byName = new Map<string, PodRuntime>();

  // Processes a previous run of this node left behind are stopped before any pod runs again.
  for (const entry of readdirSync(layout.podsDir, { withFileTypes: true })) {
    if (entry.isDirectory()) PodRuntime.killOrphans(path.join(layout.podsDir, entry.name));
  }

  const server = await startLogServer(
    layout.ports.nativeNodeKubelet,
    { cert: readFileSync(layout.kubeletCert, 'utf8'), key: readFileSync(layout.kubeletKey, 'utf8') },
    {
      logFile: (ns, pod, container, previous) => {
        const runtime = byName.get(`${ns}/${pod}`);
        const name = container ?? runtime?.firstContainer;
        return name === undefined ? undefined : runtime?.logFile(name, previous);
      },
      isRunning: (ns, pod, container) => {
        const runtime = byName.get(`${ns}/${pod}`);
        const name = container ?? runtime?.firstContainer;
        return name !== undefined && runtime?.isRunning(name) === true;
      },
    },
    log,
  );

  const registration = new NodeRegistration(
    core,
    kc.makeApiClient(CoordinationV1Api),
    nodeName,
    layout.ports.nativeNodeKubelet,
    readPins().kubernetes,
    log,
  );
  await registration.register();

  let stopped = false;
  const recheck = new Set<NodeJS.Timeout>();
  // Looks at a pod again shortly, as the informer has it then: nothing else would, as an unchanged pod sends no
  // event (not even when the watch restarts).
  const later = (pod: V1Pod) => {
    const timer = setTimeout(() => {
      recheck.delete(timer);
      const now = informer.get(pod.metadata?.name ?? '', pod.metadata?.namespace);
      if (now !== undefined && now.metadata?.uid === pod.metadata?.uid) observe(now);
    }, RECHECK_MS);
    recheck.add(timer);
  };
  // Only a helm Job pod is bound or run; a pod whose Job could not be read is looked at again shortly.
  const admitThen = (pod: V1Pod, then: () => void) => {
    void admission.admits(pod).then((admitted) => {
      if (stopped) return;
      if (admitted === true) then();
      else if (admitted === undefined) later(pod);
    });
  };
  // A binding the apiserver did not answer (it is restarting) is tried again, as is a deletion below.
  const bind = (pod: V1Pod) => {
    void bindPod(core, pod, nodeName, log).then((outcome) => {
      if (!stopped && outcome === 'retry') later(pod);
    });
  };

  const run = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    if (runtimes.has(uid)) return;
    const runtime = new PodRuntime(pod, core, options, log);
    runtimes.set(uid, runtime);
    byName.set(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, runtime);
    void runtime.start();
  };

  const observe = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    if (pod.spec?.nodeName === undefined || pod.spec.nodeName === '') {
      if (pod.metadata?.deletionTimestamp === undefined) {
        admitThen(pod, () => {
          bind(pod);
        });
      }
      return;
    }
    if (pod.spec.nodeName !== nodeName) return;
    const runtime = runtimes.get(uid);
    if (runtime === undefined) {
      if (pod.metadata?.deletionTimestamp !== undefined) {
        // Never ran here (or ran before a restart): nothing to stop, let the object go.
        void finishPodDeletion(core, pod, log).then((outcome) => {
          if (!stopped && outcome === 'retry') later(pod);
        });
        return;
      }
      // Bound here by its own spec.nodeName: the same rule as for binding decides whether it runs; a pod deleted
      // while it was admitted (the cache says so) is not started: its helm would run with nobody to stop it.
      admitThen(pod, () => {
        const now = informer.get(pod.metadata?.name ?? '', pod.metadata?.namespace);
        if (now?.metadata?.uid === uid && now.metadata.deletionTimestamp === undefined) run(now);
      });
      return;
    }
    runtime.update(pod);
  };

  const forget = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    admission.forget(uid);
    const runtime = runtimes.get(uid);
    if (runtime === undefined) return;
    runtimes.delete(uid);
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    if (byName.get(key) === runtime) byName.delete(key);
    void runtime.terminate('gone').then(() => {
      runtime.cleanUp();
    });
  };

  const informer = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  informer.on('add', observe);
  informer.on('update', observe);
  informer.on('delete', forget);
  restartOnError(informer, { what: 'pods', log, stopped: () => stopped });
  await informer.start();
  log.info({ node: nodeName }, 'native node ready');

  return async () => {
    stopped = true;
    for (const timer of recheck) clearTimeout(timer);
    await informer.stop();
    registration.stop();
    await Promise.all([...runtimes.values()].map((r) => r.terminate('shutdown')));
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  };
}
