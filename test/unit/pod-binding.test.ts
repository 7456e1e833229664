import { ApiException, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { bindFailure, bindPod } from '../../src/nativenode/pod-binding.js';

const log = pino({ level: 'silent' });
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });

describe('bindFailure (a binding the apiserver never answered must be tried again)', () => {
  it.each([
    ['no answer (connection refused)', refused, 'retry'],
    ['the apiserver shedding load', new ApiException(429, 'Too Many Requests', {}, {}), 'retry'],
    ['the apiserver failing', new ApiException(503, 'Service Unavailable', {}, {}), 'retry'],
    ['already bound', new ApiException(409, 'Conflict', {}, {}), 'settled'],
    ['gone', new ApiException(404, 'Not Found', {}, {}), 'settled'],
    ['refused as invalid', new ApiException(422, 'Unprocessable Entity', {}, {}), 'settled'],
  ])('%s: %s', (_what, err, outcome) => {
    expect(bindFailure(err)).toBe(outcome);
  });
});

describe('bindPod', () => {
  const pod: V1Pod = { metadata: { name: 'helm-install-a-x', namespace: 'ns', uid: 'u1' } };

  it('binds the pod to the node by name', async () => {
    const bodies: unknown[] = [];
    const core = {
      createNamespacedPodBinding: (req: { body: unknown }) => {
        bodies.push(req.body);
        return Promise.resolve({});
      },
    } as unknown as CoreV1Api;
    expect(await bindPod(core, pod, 'native', log)).toBe('bound');
    expect(bodies).toEqual([
      {
        metadata: { name: 'helm-install-a-x', namespace: 'ns' },
        target: { apiVersion: 'v1', kind: 'Node', name: 'native' },
      },
    ]);
  });

  it('says retry when the apiserver is away, and settled when it says the pod is bound', async () => {
    const answers: Error[] = [refused, new ApiException(409, 'Conflict', {}, {})];
    const core = {
      createNamespacedPodBinding: () => Promise.reject(answers.shift() ?? new Error('no answer left')),
    } as unknown as CoreV1Api;
    expect(await bindPod(core, pod, 'native', log)).toBe('retry');
    expect(await bindPod(core, pod, 'native', log)).toBe('settled');
  });
});
