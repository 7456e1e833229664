import { parseChartCrds } from '../../src/api/index.js';
import { archiveCrds } from '../../src/chart/crds.js';
import { crdYaml, tarGz } from './support/archive.js';

const names = async (files: Record<string, string | Buffer>) =>
  parseChartCrds(await archiveCrds(await tarGz(files))).map((c) => c.metadata?.name);

const chartYaml = (name: string) => `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`;

describe("a chart archive's crds/, read as helm show crds prints them", () => {
  it('takes every .yaml, .yml and .json file under crds/, and nothing else', async () => {
    expect(
      await names({
        'demo/Chart.yaml': chartYaml('demo'),
        'demo/crds/widgets.yaml': crdYaml('widgets'),
        'demo/crds/nested/gadgets.YML': crdYaml('gadgets'),
        'demo/crds/README.md': crdYaml('notes'),
        'demo/templates/things.yaml': crdYaml('things'),
        'demo/values.yaml': crdYaml('values'),
      }),
    ).toEqual(['widgets.example.com', 'gadgets.example.com']);
  });

  it("adds each subchart's, archived or a directory, and skips charts/ names starting _ or .", async () => {
    const archived = await tarGz({
      'db/Chart.yaml': chartYaml('db'),
      'db/crds/tables.yaml': crdYaml('tables'),
    });
    const found = await names({
      'app/Chart.yaml': chartYaml('app'),
      'app/crds/widgets.yaml': crdYaml('widgets'),
      'app/charts/db-0.1.0.tgz': archived,
      'app/charts/cache/Chart.yaml': chartYaml('cache'),
      'app/charts/cache/crds/entries.yaml': crdYaml('entries'),
      'app/charts/_hidden/crds/ghosts.yaml': crdYaml('ghosts'),
      'app/charts/.dot/crds/dots.yaml': crdYaml('dots'),
    });
    expect([...found].sort()).toEqual(['entries.example.com', 'tables.example.com', 'widgets.example.com']);
  });

  it('starts each file as a document of its own, so two files never merge into one', async () => {
    const text = await archiveCrds(
      await tarGz({
        'demo/crds/a.yaml': crdYaml('alphas'),
        'demo/crds/b.yaml': `---\n${crdYaml('betas')}`,
      }),
    );
    expect(parseChartCrds(text).map((c) => c.metadata?.name)).toEqual(['alphas.example.com', 'betas.example.com']);
  });

  it('finds none in a chart without crds/, and throws on bytes that are no gzipped tar', async () => {
    expect(await archiveCrds(await tarGz({ 'demo/Chart.yaml': chartYaml('demo') }))).toBe('');
    await expect(archiveCrds(Buffer.from('not an archive'))).rejects.toThrow();
  });
});
