import { ApiException } from '@kubernetes/client-node';
import { apiErrorOf, classifyApiError, type ApiError, type ErrorClass } from '../../src/kube/api-errors.js';

const error = (status: number | undefined, message: string, reason?: string, causes: string[] = []): ApiError => ({
  status,
  reason,
  message,
  causes,
});
const transient: ErrorClass = { kind: 'transient' };
const permanent = (reason: string): ErrorClass => ({ kind: 'permanent', reason }) as ErrorClass;

describe('classifyApiError', () => {
  it.each<[string, ApiError, ErrorClass]>([
    ['a network error (no status)', error(undefined, 'connect ECONNREFUSED 127.0.0.1:6443'), transient],
    ['401, credentials being rotated', error(401, 'Unauthorized', 'Unauthorized'), transient],
    ['408 request timeout', error(408, 'request timeout', 'Timeout'), transient],
    ['409 conflict', error(409, 'the object has been modified', 'Conflict'), transient],
    ['429 throttled', error(429, 'too many requests', 'TooManyRequests'), transient],
    ['500 internal error', error(500, 'Internal error occurred', 'InternalError'), transient],
    [
      '500 webhook unreachable',
      error(500, 'failed calling webhook "x": connection refused', 'InternalError'),
      transient,
    ],
    ['503 unavailable', error(503, 'service unavailable', 'ServiceUnavailable'), transient],
    ['504 gateway timeout', error(504, 'the server was unable to return a response in time', 'Timeout'), transient],
    [
      '422 invalid object',
      error(422, 'Job.batch "helm-install-x" is invalid: metadata.labels: Invalid value', 'Invalid'),
      permanent('Invalid'),
    ],
    [
      '400 bad request',
      error(400, 'the body of the request was in an unknown format', 'BadRequest'),
      permanent('Invalid'),
    ],
    [
      '403 forbidden by RBAC',
      error(403, 'jobs.batch is forbidden: User "x" cannot create resource "jobs"', 'Forbidden'),
      permanent('Forbidden'),
    ],
    [
      '403 namespace terminating (cause)',
      error(403, 'serviceaccounts "helm-x" is forbidden: …', 'Forbidden', ['NamespaceTerminating']),
      permanent('NamespaceTerminating'),
    ],
    [
      '403 namespace terminating (message)',
      error(403, 'unable to create new content in namespace doomed because it is being terminated', 'Forbidden'),
      permanent('NamespaceTerminating'),
    ],
    [
      '403 quota',
      error(
        403,
        'jobs.batch "helm-install-x" is forbidden: exceeded quota: no-jobs, requested: count/jobs.batch=1, used: count/jobs.batch=0, limited: count/jobs.batch=0',
        'Forbidden',
      ),
      permanent('QuotaExceeded'),
    ],
    [
      '400 webhook denial',
      error(400, 'admission webhook "policy.example.com" denied the request: no Jobs here', 'BadRequest'),
      permanent('AdmissionDenied'),
    ],
    [
      '422 values Secret over 1 MiB',
      error(422, 'Secret "chart-values-x" is invalid: data: Too long: must have at most 1048576 bytes', 'Invalid'),
      permanent('TooLarge'),
    ],
    ['413 request too large', error(413, 'Request entity too large', 'RequestEntityTooLarge'), permanent('TooLarge')],
    ['404 namespace gone', error(404, 'namespaces "doomed" not found', 'NotFound'), permanent('NamespaceNotFound')],
    [
      '404 anything else',
      error(404, 'the server could not find the requested resource', 'NotFound'),
      permanent('NotFound'),
    ],
    ['405 method not allowed', error(405, 'method not allowed', 'MethodNotAllowed'), permanent('Rejected')],
  ])('%s', (_what, input, expected) => {
    expect(classifyApiError(input)).toEqual(expected);
  });
});

describe('apiErrorOf', () => {
  it('reads the code and the Status in the body client-node throws (JSON text)', () => {
    const body = JSON.stringify({
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      message:
        'serviceaccounts "helm-x" is forbidden: unable to create new content in namespace d because it is being terminated',
      details: { name: 'helm-x', kind: 'serviceaccounts', causes: [{ reason: 'NamespaceTerminating', message: '…' }] },
    });
    expect(apiErrorOf(new ApiException(403, 'Unsuccessful HTTP Request', body, {}))).toEqual({
      status: 403,
      reason: 'Forbidden',
      message:
        'serviceaccounts "helm-x" is forbidden: unable to create new content in namespace d because it is being terminated',
      causes: ['NamespaceTerminating'],
    });
  });

  it('takes a network error as one without a status, keeping its first line', () => {
    expect(apiErrorOf(new Error('connect ECONNREFUSED\nmore'))).toEqual({
      status: undefined,
      reason: undefined,
      message: 'connect ECONNREFUSED',
      causes: [],
    });
  });

  it('survives a body that is not JSON', () => {
    expect(apiErrorOf(new ApiException(502, 'Bad Gateway', '<html>bad gateway</html>', {}))).toMatchObject({
      status: 502,
      reason: undefined,
    });
  });
});
