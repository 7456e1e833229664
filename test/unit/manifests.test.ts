import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { API_GROUPS } from '../../src/api/group.js';
import {
  InsecureManifestPathError,
  ManifestParseError,
  checkManifestDirectory,
  isManifestFileName,
  manifestClusterRole,
  manifestFileProblem,
  manifestRbacFilePath,
  parseManifest,
  renderManifestRbacYaml,
} from '../../src/controller/manifests/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('parsing a manifest file', () => {
  it('reads every YAML document, skipping empty ones', () => {
    const text = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n',
      '',
      '# only a comment\n',
      'apiVersion: helm.k3sm.io/v1\nkind: HelmChart\nmetadata:\n  name: b\n  namespace: apps\nspec:\n  chart: oci://x/y\n',
    ].join('---\n');
    expect(parseManifest('m.yaml', text).map((o) => [o.kind, o.metadata.name, o.metadata.namespace])).toEqual([
      ['ConfigMap', 'a', undefined],
      ['HelmChart', 'b', 'apps'],
    ]);
  });

  it('reads one JSON object, and expands a List', () => {
    expect(parseManifest('m.json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}')).toHaveLength(1);
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } },
      ],
    };
    expect(parseManifest('l.json', JSON.stringify(list)).map((o) => o.metadata.name)).toEqual(['x', 'y']);
    expect(parseManifest('l.yaml', JSON.stringify(list)).map((o) => o.metadata.name)).toEqual(['x', 'y']);
  });

  it.each([
    ['a YAML syntax error', 'm.yaml', 'apiVersion: v1\nkind: [ConfigMap\n', /m\.yaml: document 1: /],
    ['a duplicate key', 'm.yaml', 'apiVersion: v1\napiVersion: v2\n', /document 1: .*unique/i],
    ['invalid JSON', 'm.json', '{"apiVersion": ', /m\.json: invalid JSON/],
    ['a scalar document', 'm.yaml', 'just words\n', /is not a Kubernetes object/],
    ['a missing kind', 'm.yaml', 'apiVersion: v1\nmetadata:\n  name: a\n', /has no kind/],
    [
      'a missing name',
      'm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n',
      /\(ConfigMap\) has no metadata\.name/,
    ],
    [
      'a bad second document',
      'm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: ConfigMap\n',
      /document 2 has no apiVersion/,
    ],
  ])('rejects the whole file on %s', (_what, file, text, message) => {
    expect(() => parseManifest(file, text)).toThrow(ManifestParseError);
    expect(() => parseManifest(file, text)).toThrow(message);
  });

  it('takes *.yaml, *.yml and *.json, not hidden or other files', () => {
    expect(
      ['a.yaml', 'b.YML', 'c.json', 'd.yaml~', '.e.yaml.swp', '.f.yaml', 'g.txt', 'h.yaml.skip'].filter(
        isManifestFileName,
      ),
    ).toEqual(['a.yaml', 'b.YML', 'c.json']);
  });
});

describe('the auto-deploy directory is writable only by root', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'hf-manifest-sec-'));
    chmodSync(base, 0o755);
  });
  afterEach(() => {
    rmSync(base, { recursive: true, force: true });
  });
  const uid = process.getuid?.() ?? 0;

  it('accepts a 0755 directory owned by a trusted user (under /tmp, whose sticky bit protects it)', () => {
    expect(() => {
      checkManifestDirectory(base, [uid]);
    }).not.toThrow();
  });

  it.each([
    ['0777', 0o777],
    ['0775', 0o775],
    ['0757', 0o757],
    ['01777', 0o1777],
  ])('refuses mode %s, naming the directory and its mode', (_text, mode) => {
    chmodSync(base, mode);
    expect(() => {
      checkManifestDirectory(base, [uid]);
    }).toThrow(InsecureManifestPathError);
    expect(() => {
      checkManifestDirectory(base, [uid]);
    }).toThrow(
      `refusing ${base} (mode 0${mode.toString(8)}, owner uid ${uid}): the auto-deploy directory is group- or world-writable`,
    );
  });

  it('refuses a directory owned by an untrusted user', () => {
    expect(() => {
      checkManifestDirectory(base, [uid + 1]);
    }).toThrow(/owned by a user other than root/);
  });

  it('refuses a safe directory under a parent others can write', () => {
    const parent = path.join(base, 'open');
    const dir = path.join(parent, 'manifests');
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(parent, 0o777);
    expect(() => {
      checkManifestDirectory(dir, [uid]);
    }).toThrow(`refusing ${parent} (mode 0777`);
  });

  it('refuses a file others can write', () => {
    const file = path.join(base, 'a.yaml');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    expect(manifestFileProblem(statSync(file), [uid])).toBeUndefined();
    chmodSync(file, 0o666);
    expect(manifestFileProblem(statSync(file), [uid])).toMatch(/group- or world-writable.*mode 0666/);
  });
});

describe('the manifest identity', () => {
  it('may write HelmCharts and HelmChartConfigs of its group, create namespaces, and nothing else', () => {
    expect(manifestClusterRole('helm.cattle.io').rules).toEqual([
      {
        apiGroups: ['helm.cattle.io'],
        resources: ['helmcharts', 'helmchartconfigs'],
        verbs: ['create', 'get', 'list', 'patch', 'update'],
      },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'get'] },
    ]);
    expect(manifestClusterRole('helm.k3sm.io').metadata?.name).toBe('k3sm-manifest-helm');
  });

  it.each(API_GROUPS)('is committed in deploy/rbac for %s as the builder renders it', (group) => {
    const file = path.join(root, manifestRbacFilePath(group));
    const text = renderManifestRbacYaml(group);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const kinds = parseAllDocuments(text).map((d) => (d.toJS() as { kind: string }).kind);
    expect(kinds).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
  });
});
