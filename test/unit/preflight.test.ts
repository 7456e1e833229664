import { classifyPreflightFailure, helmError } from '../../src/api/index.js';

// helm v4.3.0's own words, captured from `helm template` runs (the tail a pre-flight pod's status carries).
const cases: [string, string, string, string][] = [
  [
    'an unreachable HTTPS repository',
    'Error: looks like "https://127.0.0.1:1/" is not a valid chart repository or cannot be reached: Get "https://127.0.0.1:1/index.yaml": dial tcp 127.0.0.1:1: connect: connection refused\n',
    'SourceAccessible',
    'RepositoryUnreachable',
  ],
  [
    'a repository host that does not resolve',
    'Error: looks like "https://no-such-host.invalid/" is not a valid chart repository or cannot be reached: Get "https://no-such-host.invalid/index.yaml": dial tcp: lookup no-such-host.invalid: no such host',
    'SourceAccessible',
    'RepositoryUnreachable',
  ],
  [
    'a version the repository does not have',
    'Error: chart "good" version "9.9.9" not found in https://127.0.0.1:8443/ repository',
    'SourceAccessible',
    'VersionNotFound',
  ],
  [
    'a version range nothing matches',
    'Error: chart "good" matching ^9 not found in repo index. (try \'helm repo update\'): no chart version found for good-^9',
    'SourceAccessible',
    'VersionNotFound',
  ],
  [
    'a chart the repository does not have',
    'Error: chart "nope" not found in https://127.0.0.1:8443/ repository',
    'SourceAccessible',
    'ChartNotFound',
  ],
  [
    'an OCI repository with no tags',
    'Error: unable to locate any tags in provided repository: oci://127.0.0.1:5000/charts/nope',
    'SourceAccessible',
    'ChartNotFound',
  ],
  [
    'an OCI tag that does not exist',
    'Error: failed to perform "FetchReference" on source: 127.0.0.1:5000/charts/good:9.9.9: not found',
    'SourceAccessible',
    'VersionNotFound',
  ],
  [
    'an unreachable OCI registry',
    'Error: failed to perform "FetchReference" on source: Get "https://127.0.0.1:1/v2/charts/good/manifests/1.0.0": dial tcp 127.0.0.1:1: connect: connection refused',
    'SourceAccessible',
    'RepositoryUnreachable',
  ],
  [
    'a chart URL that answers 404',
    'Error: failed to fetch https://127.0.0.1:8443/good-1.0.0.tgz : 404 Not Found',
    'SourceAccessible',
    'ChartNotFound',
  ],
  [
    'a repository whose certificate is not trusted',
    'Error: looks like "https://127.0.0.1:8443/" is not a valid chart repository or cannot be reached: Get "https://127.0.0.1:8443/index.yaml": tls: failed to verify certificate: x509: certificate signed by unknown authority',
    'SourceAccessible',
    'RepositoryUnreachable',
  ],
  [
    'a template that calls fail',
    'Error: execution error at (good/templates/bad.yaml:1:3): boom: widget needs a size\n\nUse --debug flag to render out invalid YAML\n',
    'DryRunRendered',
    'RenderFailed',
  ],
  [
    'a nil pointer in a template',
    'Error: template: good/templates/bad.yaml:1:10: executing "good/templates/bad.yaml" at <.Values.x.y.z>: nil pointer evaluating interface {}.y',
    'DryRunRendered',
    'RenderFailed',
  ],
  [
    'invalid YAML',
    'Error: YAML parse error on good/templates/bad.yaml: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context',
    'DryRunRendered',
    'RenderFailed',
  ],
  [
    'a kind the cluster does not serve',
    'Error: unable to build kubernetes objects from release manifest: resource mapping not found for name: "x" namespace: "" from "": no matches for kind "Widget" in version "example.com/v1"',
    'DryRunRendered',
    'RenderFailed',
  ],
  [
    'an object another release owns',
    'Error: unable to continue with install: ConfigMap "x" in namespace "apps" exists and cannot be imported into the current release: invalid ownership metadata',
    'DryRunRendered',
    'RenderFailed',
  ],
  [
    'a cluster helm cannot reach, whatever the network words',
    'Error: cluster reachability check failed: Get "https://10.0.0.1:443/version": dial tcp 10.0.0.1:443: i/o timeout',
    'DryRunRendered',
    'RenderFailed',
  ],
];

describe('classifyPreflightFailure', () => {
  it.each(cases)('%s', (_what, output, condition, reason) => {
    const failure = classifyPreflightFailure(output);
    expect(failure).toMatchObject({ condition, reason });
    expect(failure.message).not.toMatch(/^Error: /u);
    expect(failure.message).not.toContain('Use --debug');
  });
});

describe('helmError', () => {
  it("keeps helm's message from its last Error: line, after whatever came before", () => {
    const output =
      'wrote tmp/preflight/a.yaml\nWARNING: something\nError: template: x: boom\n  more detail\n\nUse --debug flag to render out invalid YAML\n';
    expect(helmError(output)).toBe('template: x: boom\n  more detail');
  });

  it('keeps the whole output when helm printed no Error: line', () => {
    expect(helmError('killed\n')).toBe('killed');
  });
});
