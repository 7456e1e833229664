import { ApiException, type CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { bindPod, finishPodDeletion, podWriteFailure } from '../../src/nativenode/pod-writes.js';

const log = pino({ level: 'silent' });
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
const status = (code: number, text: string) => new ApiException(code, text, {}, {});

describe('podWriteFailure (a pod write the apiserver never answered must be tried again)', () => {
  it.each([
    ['no answer (connection refused)', refused, 'retry'],
    ['the apiserver shedding load', status(429, 'Too Many Requests'), 'retry'],
    ['the apiserver failing', status(503, 'Service Unavailable'), 'retry'],
    ['already bound, or another pod of the name', status(409, 'Conflict'), 'settled'],
    ['gone', status(404, 'Not Found'), 'settled'],
    ['refused as invalid', status(422, 'Unprocessable Entity'), 'settled'],
  ])('%s', (_what, err, outcome) => {
    expect(podWriteFailure(err)).toBe(outcome);
  });
});

describe('the native node writes to pods', () => {
  const pod: V1Pod = { metadata: { name: 'helm-install-a-x', namespace: 'ns', uid: 'u1' } };

  it('binds a pod to the node by name', async () => {
    const bodies: unknown[] = [];
    const core = {
      createNamespacedPodBinding: (req: { body: unknown }) => {
        bodies.push(req.body);
        return Promise.resolve({});
      },
    } as unknown as CoreV1Api;
    expect(await bindPod(core, pod, 'native', log)).toBe('done');
    expect(bodies).toEqual([
      {
        metadata: { name: 'helm-install-a-x', namespace: 'ns' },
        target: { apiVersion: 'v1', kind: 'Node', name: 'native' },
      },
    ]);
  });

  it('says retry when the apiserver is away, and settled when it says the pod is bound', async () => {
    const answers: Error[] = [refused, status(409, 'Conflict')];
    const core = {
      createNamespacedPodBinding: () => Promise.reject(answers.shift() ?? new Error('no answer left')),
    } as unknown as CoreV1Api;
    expect(await bindPod(core, pod, 'native', log)).toBe('retry');
    expect(await bindPod(core, pod, 'native', log)).toBe('settled');
  });

  it('finishes a deletion of this pod only (its uid), with no grace, and says retry when unanswered', async () => {
    const requests: unknown[] = [];
    const answers: (Error | undefined)[] = [refused, undefined];
    const core = {
      deleteNamespacedPod: (req: unknown) => {
        requests.push(req);
        const answer = answers.shift();
        return answer === undefined ? Promise.resolve({}) : Promise.reject(answer);
      },
    } as unknown as CoreV1Api;
    expect(await finishPodDeletion(core, pod, log)).toBe('retry');
    expect(await finishPodDeletion(core, pod, log)).toBe('done');
    expect(requests[1]).toEqual({
      name: 'helm-install-a-x',
      namespace: 'ns',
      gracePeriodSeconds: 0,
      body: { gracePeriodSeconds: 0, preconditions: { uid: 'u1' } },
    });
  });
});
