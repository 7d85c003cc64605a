// What the browser tests' scripts share (testenv.RequireBrowser finds
// node and the browser; the scripts import this file): Debian's chromium
// driven by playwright-core, never a downloaded browser.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core'); // NODE_PATH: hack/clients/node_modules

// step tells the Go test how far the script got.
export const step = (s) => console.log(s);
export const fail = (msg) => { throw new Error(msg); };

// withPage opens url in a headless chromium with a profile of its own,
// waits until the page's live connection is up (#conn.live) and runs
// fn(page, ctx). A script error or a console error on the page fails it
// once fn is done; the browser and its profile go however it ends.
export async function withPage(url, fn) {
  const profile = mkdtempSync(join(tmpdir(), 'sandbox-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-default-apps', '--disable-extensions'],
  });
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    await page.goto(url, { waitUntil: 'load', timeout: 30000 });
    await page.waitForSelector('#conn.live', { timeout: 30000 });
    await fn(page, ctx);
    if (problems.length) fail(problems.join('\n'));
  } finally {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
