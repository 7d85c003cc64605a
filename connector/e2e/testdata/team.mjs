// Drives the team approver page (`sandbox serve --nats`) in Debian's
// chromium with playwright-core: a request raised on another machine
// appears under its machine and project, shown whole with its hash; the
// approve key sends it; its output arrives live and its outcome names
// the approver.
//
// usage: node team.mjs URL SCREENSHOT.png   (NODE_PATH: hack/clients/node_modules)
import { step, fail, withPage } from '../../testenv/browser.mjs';

const [url, shot] = process.argv.slice(2);

await withPage(url, async (page, ctx) => {
  // The code was spent: a second page opened with it is signed out, and
  // says so where requests would be listed.
  const other = await ctx.newPage();
  await other.goto(url, { waitUntil: 'load', timeout: 30000 });
  await other.waitForSelector('#banner:not(.hidden)', { timeout: 30000 });
  const notAuth = 'Not authorised: open the URL that `sandbox serve --nats` printed';
  if (!(await other.textContent('#banner')).includes(notAuth)) fail('a spent code signed a page in: ' + await other.textContent('#banner'));
  if (!(await other.textContent('#pending-empty')).includes(notAuth)) fail('signed-out list: ' + await other.textContent('#pending-empty'));
  await other.close();
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
});
step('DONE');
