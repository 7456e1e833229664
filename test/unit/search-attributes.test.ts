import { describe, expect, it } from '@jest/globals';
import { KEYWORD_INDEXED_VALUE_TYPE } from '../../src/config/search-attributes.js';
import {
  compareAttributes,
  ensureSearchAttributes,
  registrationCommand,
  type SearchAttributeOperator,
} from '../../src/worker/search-attributes.js';

const TEXT = 1;
const all = ['HelmChartNamespace', 'HelmChartName', 'HelmChartPhase'];
const keywords = (names: string[]) => Object.fromEntries(names.map((n) => [n, KEYWORD_INDEXED_VALUE_TYPE]));
const local = { namespace: 'charts', address: 'temporal:7233' };

/** A gRPC error as @grpc/grpc-js raises it: what isGrpcServiceError recognises. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

/** An operator API holding `existing`; `refuseAdd` steers the branch of a server that forbids registration. */
function operator(existing: Record<string, number>, refuseAdd?: Error): SearchAttributeOperator & { adds: number } {
  const self = {
    adds: 0,
    listSearchAttributes: () => Promise.resolve({ customAttributes: { ...existing } }),
    addSearchAttributes: (request: { searchAttributes: Record<string, number> }) => {
      self.adds += 1;
      if (refuseAdd !== undefined) return Promise.reject(refuseAdd);
      Object.assign(existing, request.searchAttributes);
      return Promise.resolve({});
    },
  };
  return self;
}

describe('helmflow search attributes in a Temporal namespace', () => {
  it.each<[string, Record<string, number>, { missing: string[]; mistyped: string[] }]>([
    ['none there', {}, { missing: all, mistyped: [] }],
    ['all there', keywords(all), { missing: [], mistyped: [] }],
    ['one there', keywords(['HelmChartName']), { missing: ['HelmChartNamespace', 'HelmChartPhase'], mistyped: [] }],
    ['one as Text', { ...keywords(all), HelmChartPhase: TEXT }, { missing: [], mistyped: ['HelmChartPhase'] }],
  ])('compares: %s', (_, existing, expected) => {
    expect(compareAttributes(existing)).toEqual(expected);
  });

  it.each([
    [
      local,
      'temporal operator search-attribute create --address temporal:7233 --namespace charts --name HelmChartName --type Keyword',
    ],
    [
      { namespace: 'charts.a1b2c', address: 'charts.a1b2c.tmprl.cloud:7233' },
      'tcld namespace search-attributes add --namespace charts.a1b2c --search-attribute HelmChartName=Keyword',
    ],
    [
      { namespace: 'charts.a1b2c', address: 'us-east-1.aws.api.temporal.io:7233' },
      'tcld namespace search-attributes add --namespace charts.a1b2c --search-attribute HelmChartName=Keyword',
    ],
  ])('names the command for %o', (target, command) => {
    expect(registrationCommand(target, ['HelmChartName'])).toBe(command);
  });

  it('registers the missing ones as Keyword, and a second run adds nothing', async () => {
    const existing = keywords(['HelmChartName']);
    const api = operator(existing);
    expect(await ensureSearchAttributes(api, local)).toEqual({
      kind: 'ready',
      added: ['HelmChartNamespace', 'HelmChartPhase'],
    });
    expect(existing).toEqual(keywords(all));
    expect(await ensureSearchAttributes(api, local)).toEqual({ kind: 'ready', added: [] });
    expect(api.adds).toBe(1);
  });

  it('takes AlreadyExists (another worker was faster) as success', async () => {
    const existing: Record<string, number> = {};
    const api = operator(existing);
    api.addSearchAttributes = () => {
      Object.assign(existing, keywords(all));
      return Promise.reject(grpcError(6, 'already exists'));
    };
    expect(await ensureSearchAttributes(api, local)).toEqual(expect.objectContaining({ kind: 'ready' }));
  });

  it.each([
    [7, 'PermissionDenied'],
    [16, 'Unauthenticated'],
    [12, 'Unimplemented'],
  ])('refuses with the command when the server answers %i (%s)', async (code, name) => {
    const api = operator(keywords(['HelmChartName']), grpcError(code, `${name}: not allowed`));
    const check = await ensureSearchAttributes(api, local);
    expect(check).toEqual({
      kind: 'refused',
      missing: ['HelmChartNamespace', 'HelmChartPhase'],
      reason: expect.stringContaining(
        'temporal operator search-attribute create --address temporal:7233 --namespace charts ' +
          '--name HelmChartNamespace --type Keyword --name HelmChartPhase --type Keyword',
      ) as unknown,
    });
  });

  it('refuses an attribute of another type, naming it', async () => {
    const check = await ensureSearchAttributes(operator({ ...keywords(all), HelmChartName: TEXT }), local);
    expect(check).toEqual(
      expect.objectContaining({
        kind: 'refused',
        reason: expect.stringMatching(/HelmChartName exist.*type/) as unknown,
      }),
    );
  });

  it('throws other errors (Temporal unreachable, namespace unknown) for the caller to retry', async () => {
    const api = operator({});
    api.listSearchAttributes = () => Promise.reject(grpcError(5, 'Namespace charts is not found.'));
    await expect(ensureSearchAttributes(api, local)).rejects.toThrow(/not found/);
  });
});
