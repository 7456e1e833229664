import { K3S_FINALIZER, UNINSTALL_FINALIZER, UNMANAGED_ANNOTATION, type HelmChart } from '../../src/api/index.js';
import { catchUpUrgency } from '../../src/controller/catch-up.js';
import type { Urgency } from '../../src/controller/pending-keys.js';

interface Shape {
  finalizers?: string[];
  deleting?: boolean;
  generation?: number;
  observedGeneration?: number;
  unmanaged?: boolean;
}

const chart = ({
  finalizers = [UNINSTALL_FINALIZER],
  deleting,
  generation = 3,
  observedGeneration,
  unmanaged,
}: Shape) =>
  ({
    apiVersion: 'helm.k3sm.io/v1',
    kind: 'HelmChart',
    metadata: {
      name: 'podinfo',
      namespace: 'default',
      uid: 'uid-1',
      generation,
      finalizers,
      ...(unmanaged === true ? { annotations: { [UNMANAGED_ANNOTATION]: 'true' } } : {}),
      ...(deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { chart: 'podinfo', repo: 'https://charts.example.com' },
    ...(observedGeneration === undefined ? {} : { status: { observedGeneration } }),
  }) as HelmChart;

describe("a chart of the controller's initial list: someone's change, or catching up", () => {
  it.each<[string, Shape | undefined, Urgency]>([
    ['served, and unchanged since its status was written', { observedGeneration: 3 }, 'resync'],
    ['applied while no controller served it (no finalizer, no status)', { finalizers: [] }, 'change'],
    ["k3s's finalizer only: adopted from k3s, never taken in", { finalizers: [K3S_FINALIZER] }, 'change'],
    ['its spec edited since its status was written', { generation: 4, observedGeneration: 3 }, 'change'],
    ['taken in, but no install started yet (no observed generation)', {}, 'change'],
    ['deleted while no controller served it', { deleting: true, observedGeneration: 3 }, 'change'],
    ['annotated unmanaged: left alone, however new', { finalizers: [], unmanaged: true }, 'resync'],
    ["deleted with no finalizer of ours: not helmflow's to act on", { finalizers: [], deleting: true }, 'resync'],
    ['gone from the cache by the time it is queued', undefined, 'resync'],
  ])('%s', (_what, shape, urgency) => {
    expect(catchUpUrgency(shape === undefined ? undefined : chart(shape), 'helm.k3sm.io')).toBe(urgency);
  });
});
