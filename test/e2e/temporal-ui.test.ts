import { chartWorkflowId } from '../../workflows/contract.js';
import { openBrowser, type HeadlessBrowser } from './support/browser.js';
import { buildChart } from './support/charts.js';
import { useHelmflow } from './support/helmflow.js';
import { apply, chartInstalled, helmChart } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';
import { testLayout } from './support/stack.js';

/** How long the UI gets to render what a step waits for. */
const UI_DEADLINE_MS = 20_000;

function listUrl(query: string): string {
  return `${testLayout().temporalUiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;
}

describe('the Temporal UI, in a real browser', () => {
  useHelmflow();
  let browser: HeadlessBrowser | undefined;
  beforeAll(async () => {
    browser = await openBrowser('temporal-ui');
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("finds a chart's workflow by HelmChartName and shows the activity summaries in its history", async () => {
    if (browser === undefined) throw new Error('the browser did not start (see beforeAll)');
    const { page, capture } = browser;
    const ns = await freshNamespace('ui');
    // A name no other chart on the stack has, so the filtered list holds this chart's workflow alone.
    const name = `ui-${Date.now().toString(36)}`;
    apply(helmChart(ns, name, { chartContent: buildChart({ name }).chartContent }));
    await chartInstalled(ns, name);
    const workflowId = chartWorkflowId({ group: 'helm.k3sm.io', namespace: ns, name });

    await capture('list-filtered-by-another-name', async () => {
      // The filter is applied, not ignored: another name lists nothing although this chart's workflow exists.
      await page.goto(listUrl(`HelmChartName = "${name}-other"`));
      await page.getByRole('heading', { name: 'No Results' }).waitFor({ timeout: UI_DEADLINE_MS });
    });
    await capture('list-filtered-by-HelmChartName', async () => {
      await page.goto(listUrl(`HelmChartName = "${name}"`));
      const link = page.getByRole('link', { name: workflowId, exact: true });
      await link.waitFor({ timeout: UI_DEADLINE_MS });
      expect(await page.getByRole('link', { name: /^helmchart\// }).count()).toBe(1);
      await link.click();
    });
    await capture('history-shows-summaries', async () => {
      // Summaries the chart workflow gives its two install steps (workflows/attempt.ts, workflows/install-wait.ts):
      // a lean run writes its status inside them, so there is no status step of its own to show.
      await page
        .getByText(`Wait for helm-install-${name}: helm upgrade --install ${name}`)
        .first()
        .waitFor({ timeout: UI_DEADLINE_MS });
      await page
        .getByText(`Validate HelmChart ${ns}/${name}, then create its ServiceAccount`)
        .first()
        .waitFor({ timeout: UI_DEADLINE_MS });
    });
  });
});
