import { MAX_CHART_CONTENT_CHARS, MAX_VERSION_LENGTH } from '../../../../src/api/limits.js';
import type { Prng } from '../prng.js';
import type { Choice, Verdict } from './verdicts.js';

/** Where the generated charts can come from: all local (built by the test, served on loopback). */
export interface FuzzSources {
  /** Base64 of the test chart `fuzz` 0.1.0 (see charts.ts: it fails to render when its `fail` value is set). */
  chartContent: string;
  /** The loopback HTTPS chart repository serving `fuzz` 0.1.0, e.g. https://127.0.0.1:PORT */
  repoUrl: string;
  /** The loopback OCI registry's base, e.g. oci://127.0.0.1:PORT/charts */
  ociBase: string;
}

/** The context of one chart: its namespace and index, for names of objects it may create. */
export interface FieldContext {
  sources: FuzzSources;
  namespace: string;
  index: number;
}

export type Variant<T> = readonly [
  weight: number,
  verdict: Verdict,
  trait: string,
  make: (ctx: FieldContext, r: Prng) => T,
];

/**
 * Picks a variant by weight and makes its value; `validOnly` keeps to the valid ones (the fields a case does not
 * mutate), so most cases reach the controller with one or two fields to get wrong.
 */
export function choose<T>(
  r: Prng,
  ctx: FieldContext,
  field: string,
  all: readonly Variant<T>[],
  validOnly = false,
): Choice<T> {
  // A mutated field mostly takes a value that is not plainly valid, else most mutations would change nothing.
  const notValid = all.filter((v) => v[1] !== 'valid');
  const variants = validOnly
    ? all.filter((v) => v[1] === 'valid')
    : notValid.length > 0 && r.chance(0.8)
      ? notValid
      : all;
  const total = variants.reduce((sum, v) => sum + v[0], 0);
  let at = r.next() * total;
  for (const [weight, verdict, trait, make] of variants) {
    at -= weight;
    if (at < 0) return { value: make(ctx, r), verdict, trait: `${field}=${trait}` };
  }
  const last = variants.at(-1);
  if (last === undefined) throw new Error(`no variants for ${field}`);
  return { value: last[3](ctx, r), verdict: last[1], trait: `${field}=${last[2]}` };
}

const absent = () => undefined;
const withCredentials = (url: string, credentials: string) => url.replace('://', `://${credentials}@`);

/** The chart's source fields (chart, repo, version, chartContent), merged into the spec as one choice. */
export const sourceVariants: readonly Variant<Record<string, unknown>>[] = [
  [12, 'valid', 'chartContent', (c) => ({ chartContent: c.sources.chartContent })],
  [3, 'valid', 'repo+version', (c) => ({ repo: c.sources.repoUrl, chart: 'fuzz', version: '0.1.0' })],
  [2, 'valid', 'repo-latest', (c) => ({ repo: c.sources.repoUrl, chart: 'fuzz' })],
  [3, 'valid', 'oci', (c) => ({ chart: `${c.sources.ociBase}/fuzz`, version: '0.1.0' })],
  [2, 'valid', 'https-archive', (c) => ({ chart: `${c.sources.repoUrl}/fuzz-0.1.0.tgz` })],
  [1, 'invalid', 'http-repo', () => ({ repo: 'http://127.0.0.1:1', chart: 'fuzz' })],
  [1, 'invalid', 'HtTp-repo', () => ({ repo: 'HtTp://127.0.0.1:1', chart: 'fuzz' })],
  [1, 'invalid', 'http-chart', () => ({ chart: 'http://127.0.0.1:1/fuzz-0.1.0.tgz' })],
  [
    2,
    'invalid',
    'repo-credentials',
    (c) => ({ repo: withCredentials(c.sources.repoUrl, 'user:token'), chart: 'fuzz' }),
  ],
  [1, 'invalid', 'repo-user', (c) => ({ repo: withCredentials(c.sources.repoUrl, 'user'), chart: 'fuzz' })],
  [
    1,
    'invalid',
    'oci-credentials',
    (c) => ({ chart: `${withCredentials(c.sources.ociBase, 'robot:s3cret')}/fuzz`, version: '0.1.0' }),
  ],
  [
    1,
    'invalid',
    'archive-credentials',
    (c) => ({ chart: `${withCredentials(c.sources.repoUrl, 'a:b')}/fuzz-0.1.0.tgz` }),
  ],
  [
    2,
    'invalid',
    'garbage-repo',
    (_, r) => ({
      repo: r.pick(['not a url', 'ftp://127.0.0.1/', '://', 'file:///etc/passwd', ' https://x', 'javascript:x']),
      chart: 'fuzz',
    }),
  ],
  [1, 'odd', 'unreachable-repo', () => ({ repo: 'https://127.0.0.1:1', chart: 'fuzz' })],
  [
    1,
    'odd',
    'broken-https-repo',
    (_, r) => ({ repo: r.pick(['https://', 'https://[::1', 'https://%zz']), chart: 'fuzz' }),
  ],
  [1, 'odd', 'chart-not-in-repo', (c) => ({ repo: c.sources.repoUrl, chart: 'absent' })],
  [1, 'odd', 'version-not-in-repo', (c) => ({ repo: c.sources.repoUrl, chart: 'fuzz', version: '9.9.9' })],
  [1, 'invalid', 'no-chart', () => ({})],
  [1, 'invalid', 'chart-without-repo', () => ({ chart: 'fuzz' })],
  [1, 'invalid', 'chart-dash', (c) => ({ repo: c.sources.repoUrl, chart: '--debug' })],
  [1, 'invalid', 'chartContent-not-base64', () => ({ chartContent: 'not base64 at all!' })],
  // Over the 1 MiB chart limit: the apiserver refuses it before it reaches a ConfigMap.
  [1, 'invalid', 'chartContent-over-limit', () => ({ chartContent: 'A'.repeat(MAX_CHART_CONTENT_CHARS + 4) })],
  [
    1,
    'odd',
    'version-odd',
    (c, r) => ({ repo: c.sources.repoUrl, chart: 'fuzz', version: r.pick(['>=0.1.0', '~0.1', 'v0.1.0', 'latest']) }),
  ],
  [
    1,
    'invalid',
    'version-too-long',
    (c) => ({ repo: c.sources.repoUrl, chart: 'fuzz', version: '1'.repeat(MAX_VERSION_LENGTH + 1) }),
  ],
  [1, 'odd', 'chartContent-not-a-chart', () => ({ chartContent: Buffer.from('just some bytes').toString('base64') })],
];

export const targetVariants: readonly Variant<Record<string, unknown>>[] = [
  [12, 'valid', 'absent', () => ({})],
  [1, 'valid', 'created', (c) => ({ targetNamespace: `${c.namespace}-t${c.index}`, createNamespace: true })],
  [1, 'odd', 'missing', (c) => ({ targetNamespace: `${c.namespace}-m${c.index}` })],
  [1, 'invalid', 'not-a-label', (_, r) => ({ targetNamespace: r.pick(['UPPER', 'a_b', '-x', 'x.y', 'x'.repeat(64)]) })],
];

export const timeoutVariants: readonly Variant<unknown>[] = [
  [10, 'valid', 'absent', absent],
  [4, 'valid', 'duration', (_, r) => r.pick(['30s', '5m', '1h', '2m30s', '90s', '1.5h', '.5m', '300000ms'])],
  [1, 'odd', 'tiny', (_, r) => r.pick(['1ns', '1ms', '1us', '1µs'])],
  [2, 'invalid', 'not-a-duration', (_, r) => r.pick(['0s', '-1s', '5', 'abc', '1d', '5 m', '', 'x'.repeat(40)])],
  [1, 'invalid', 'number', () => 30],
];

export const backOffLimitVariants: readonly Variant<unknown>[] = [
  [8, 'valid', 'absent', absent],
  [4, 'valid', 'small', (_, r) => r.pick([0, 1, 3])],
  [1, 'invalid', 'negative', () => -1],
  [1, 'odd', 'int32-overflow', () => 2147483648],
  [1, 'invalid', 'not-an-integer', (_, r) => r.pick(['three', 1.5, true])],
];

export const failurePolicyVariants: readonly Variant<unknown>[] = [
  [6, 'valid', 'absent', absent],
  [4, 'valid', 'known', (_, r) => r.pick(['abort', 'reinstall', 'retry'])],
  [1, 'invalid', 'unknown', (_, r) => r.pick(['never', 'ABORT', '', 'abort ', 1])],
];

export const serverSideVariants: readonly Variant<unknown>[] = [
  [8, 'valid', 'absent', absent],
  [3, 'valid', 'known', (_, r) => r.pick(['true', 'false', 'auto'])],
  [1, 'invalid', 'unknown', (_, r) => r.pick(['yes', 'TRUE', '', true])],
];

export const driverVariants: readonly Variant<unknown>[] = [
  [8, 'valid', 'absent', absent],
  [3, 'valid', 'known', (_, r) => r.pick(['secret', 'configmap'])],
  [1, 'invalid', 'unknown', (_, r) => r.pick(['sql', 'Secret', '', 'memory'])],
];

/** Fields k3s has but helmflow refuses (repoCA, …) or reads as harmless when unset, and the deprecated helmVersion. */
export const otherVariants: readonly Variant<Record<string, unknown>>[] = [
  [20, 'valid', 'none', () => ({})],
  [1, 'valid', 'helmVersion-v3', () => ({ helmVersion: 'v3' })],
  [1, 'invalid', 'helmVersion-v2', () => ({ helmVersion: 'v2' })],
  [
    1,
    'invalid',
    'reserved-field',
    (_, r) =>
      r.pick<Record<string, unknown>>([
        { repoCA: 'x' },
        { insecureSkipTLSVerify: true },
        { authSecret: { name: 'x' } },
        { repoCAConfigMap: { name: 'x' } },
        { dockerRegistrySecret: { name: 'x' } },
        { authPassCredentials: true },
        { plainHTTP: true },
      ]),
  ],
  [1, 'valid', 'reserved-unset', () => ({ plainHTTP: false, repoCA: '' })],
  [1, 'valid', 'flags', (_, r) => ({ takeOwnership: r.chance(0.5), forceConflicts: r.chance(0.5) })],
  [1, 'odd', 'bootstrap', () => ({ bootstrap: true })],
  [1, 'invalid', 'unknown-type', () => ({ createNamespace: 'yes' })],
  [
    1,
    'odd',
    'security-contexts',
    () => ({ podSecurityContext: { runAsNonRoot: false }, securityContext: { allowPrivilegeEscalation: false } }),
  ],
  [
    1,
    'invalid',
    'security-context-types',
    (_, r) => r.pick([{ podSecurityContext: { runAsUser: 'root' } }, { securityContext: { privileged: 'yes' } }]),
  ],
  [1, 'odd', 'jobImage', () => ({ jobImage: 'registry.invalid/helm:none' })],
  [1, 'invalid', 'jobImage-too-long', () => ({ jobImage: `registry.invalid/${'x'.repeat(512)}` })],
];
