import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` package: playwright-core drives it and never downloads a browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessBrowser {
  page: Page;
  /** On failure: a screenshot at `test-output/<folder>/<name>.png`, named in the rethrown error. */
  capture: <T>(name: string, step: () => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
}

/** Headless Chromium with a fresh profile; throws, naming the install command, when the browser is missing. */
export async function openBrowser(folder: string): Promise<HeadlessBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium with \`apt-get install -y chromium\` (.ci/run does)`,
    );
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'helmflow-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1600, height: 1000 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const browser: Browser | null = context.browser();
  return {
    page,
    capture: async (name, step) => {
      try {
        return await step();
      } catch (err) {
        const dir = path.join('test-output', folder);
        mkdirSync(dir, { recursive: true });
        const file = path.join(dir, `${name.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`);
        await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`${message}\nScreenshot of the page: ${path.resolve(file)}`, { cause: err });
      }
    },
    close: async () => {
      await context.close();
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
