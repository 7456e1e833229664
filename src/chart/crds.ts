import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';

/** helm's bound on a decompressed chart (pkg/chart/loader/archive MaxDecompressedChartSize), against gzip bombs. */
const MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;

interface ChartFile {
  /** The path inside the chart, its top directory stripped, as helm's loader names it. */
  name: string;
  data: Buffer;
}

/**
 * The chart's `crds/` as `helm show crds` prints them, read from a chart archive in memory: every file under
 * `crds/` ending .yaml, .yml or .json, of the chart and of each subchart under `charts/` (an archive or a
 * directory; helm skips names starting `_` or `.`), each document started with `---`. helm orders subcharts by
 * its map's iteration, so the order here is the archive's; the comparison is by CRD name. Throws when the archive
 * is not a gzipped tar.
 */
export async function archiveCrds(archive: Buffer): Promise<string> {
  const files = await crdFiles(await archiveFiles(archive));
  return files
    .map((file) => file.toString('utf8'))
    .map((text) => (text.startsWith('---') ? `${text}\n` : `---\n${text}\n`))
    .join('');
}

async function crdFiles(files: ChartFile[]): Promise<Buffer[]> {
  const own = files.filter((f) => f.name.startsWith('crds/') && isManifest(f.name)).map((f) => f.data);
  const subcharts = new Map<string, ChartFile[]>();
  for (const file of files) {
    if (!file.name.startsWith('charts/') || extension(file.name) === '.prov') continue;
    const name = file.name.slice('charts/'.length);
    const chart = name.split('/', 1)[0] ?? '';
    subcharts.set(chart, [...(subcharts.get(chart) ?? []), { name, data: file.data }]);
  }
  const nested: Buffer[] = [];
  for (const [chart, chartFiles] of subcharts) {
    if (chart.startsWith('_') || chart.startsWith('.')) continue;
    if (extension(chart) === '.tgz') {
      const archived = chartFiles.find((f) => f.name === chart);
      if (archived !== undefined) nested.push(...(await crdFiles(await archiveFiles(archived.data))));
      continue;
    }
    const inside = chartFiles.filter((f) => f.name.includes('/'));
    nested.push(...(await crdFiles(inside.map((f) => ({ name: f.name.slice(chart.length + 1), data: f.data })))));
  }
  return [...own, ...nested];
}

async function archiveFiles(archive: Buffer): Promise<ChartFile[]> {
  const tar = extract();
  Readable.from([gunzipSync(archive, { maxOutputLength: MAX_DECOMPRESSED_BYTES })]).pipe(tar);
  const files: ChartFile[] = [];
  for await (const entry of tar) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const { name, type } = entry.header;
    if (type !== 'file' && type !== 'contiguous-file') continue;
    // helm drops the first path element (the chart's directory) and cleans the rest.
    const inner = name.replaceAll('\\', '/').split('/').slice(1).join('/');
    files.push({ name: cleanPath(inner), data: Buffer.concat(chunks) });
  }
  return files;
}

function cleanPath(name: string): string {
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** Go's filepath.Ext: from the last dot of the last element, so `crds/.yaml` counts as a manifest, as in helm. */
function extension(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot === -1 ? '' : base.slice(dot);
}

function isManifest(name: string): boolean {
  return ['.yaml', '.yml', '.json'].includes(extension(name).toLowerCase());
}
