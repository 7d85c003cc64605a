// Drives the team approver page (`sandbox serve --nats`) in Debian's
// chromium with playwright-core: a request raised on another machine
// appears under its machine and project, shown whole with its hash; the
// approve key sends it; its output arrives live and its outcome names
// the approver.
//
// usage: node team.mjs URL SCREENSHOT.png   (NODE_PATH: hack/clients/node_modules)
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const [url, shot] = process.argv.slice(2);
const step = (s) => console.log(s);
const fail = (msg) => { throw new Error(msg); };

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
  step('READY');

  // The Go test raises a request on machine ws-a.
  await page.waitForFunction(() => /browser-live/.test(document.querySelector('#groups').textContent), null, { timeout: 30000 });
  const group = await page.textContent('#groups h2');
  if (!/^ws-a\//.test(group)) fail('group header: ' + group);
  await page.click('#groups .item:first-child');
  const fields = await page.textContent('#d-fields');
  if (!/[0-9a-f]{64}/.test(fields) || !fields.includes('browser-live') || !fields.includes('unverified')) fail('detail: ' + fields);
  // the escape in the script is shown as text, not interpreted
  if (!fields.includes('\\x1b')) fail('the escape is not shown escaped: ' + fields);
  await page.screenshot({ path: shot, fullPage: false });
  step('SHOWN');

  await page.keyboard.press('a');
  await page.waitForFunction(() => /approved by bob/.test(document.querySelector('#outcome').textContent), null, { timeout: 30000 });
  const out = await page.textContent('#output');
  if (!out.includes('browser-live')) fail('output: ' + out);
  step('APPROVED');

  await page.waitForFunction(() => document.querySelectorAll('#groups .item').length === 0, null, { timeout: 30000 });
  if (problems.length) fail(problems.join('\n'));
  step('DONE');
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
