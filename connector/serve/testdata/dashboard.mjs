// Drives the dashboard in Debian's chromium with playwright-core (never a
// downloaded browser): opens the address `sandbox serve` printed, says
// READY once the page is live, waits for a request to appear, checks that
// the agent's tricky text is shown escaped, approves it with the keyboard,
// waits for its output and saves a screenshot.
//
// usage: node dashboard.mjs URL SCREENSHOT.png   (NODE_PATH: hack/clients/node_modules)
import { step, fail, withPage } from '../../testenv/browser.mjs';

const [url, shot] = process.argv.slice(2);

await withPage(url, async (page, ctx) => {
  const here = new URL(page.url());
  if (here.search !== '' || here.hash !== '') fail('the sign-in code stayed in the address bar: ' + page.url());
  if ((await ctx.cookies()).length !== 0) fail('a cookie was set: ' + JSON.stringify(await ctx.cookies()));
  if (await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage)) !== '{}{}') fail('the page stored something');
  // The code was spent: a second page opened with it is signed out.
  const other = await ctx.newPage();
  await other.goto(url, { waitUntil: 'load', timeout: 30000 });
  await other.waitForSelector('#banner:not(.hidden)', { timeout: 30000 });
  if (!(await other.textContent('#banner')).includes('Not authorised')) fail('a spent code signed a page in');
  await other.close();
  step('READY');

  // The Go test submits the requests now; they must appear live.
  await page.waitForSelector('#pending-list .item', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#pending-list .item').length >= 2, null, { timeout: 30000 });
  const summary = await page.textContent('#pending-list .item:first-child .what');
  if (!summary.includes('hello from the dashboard')) fail('unexpected first request: ' + summary);
  if (!summary.includes('\\x1b[31m')) fail('tricky text not shown escaped: ' + summary);
  const second = await page.textContent('#pending-list .item:nth-child(2) .what');
  if (!/^escalate [a-z ]+: git push origin main/.test(second)) fail('the list does not lead with what escalated: ' + second);
  if (/[\u001b\u202e]/.test(await page.textContent('body'))) fail('a raw control character reached the page');
  step('SEEN');

  // Opened without a valid token (the address already used) while
  // requests are pending, a page says it is not authorised, and where
  // requests would be listed it says so too, never "Nothing waiting".
  const unauth = await ctx.newPage();
  await unauth.goto(url, { waitUntil: 'load', timeout: 30000 });
  await unauth.waitForSelector('#banner:not(.hidden)', { timeout: 30000 });
  const notAuth = 'Not authorised: open the URL that `sandbox serve` printed';
  if (!(await unauth.textContent('#banner')).includes(notAuth)) fail('unauthorised banner: ' + await unauth.textContent('#banner'));
  if (!(await unauth.textContent('#pending-empty')).includes(notAuth)) fail('unauthorised list: ' + await unauth.textContent('#pending-empty'));
  if ((await unauth.textContent('body')).includes('Nothing waiting')) fail('an unauthorised page says nothing is waiting');
  await unauth.screenshot({ path: shot.replace(/\.png$/, '-unauthorised.png'), fullPage: false });
  await unauth.close();
  step('UNAUTHORISED');

  // The guard: a key or a click on approve in the same moment the selected
  // request changes does nothing (dispatched in one task with the change,
  // so surely inside the window, whatever the machine's speed).
  const early = await page.evaluate(() => {
    document.querySelector('#pending-list .item:nth-child(2)').click();
    const before = document.body.dataset.guard;
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
    document.querySelector('#btn-approve').click();
    return before;
  });
  if (early !== 'on') fail('the guard was not on right after the selection changed');
  await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
  if (!(await page.isHidden('#outcome'))) fail('a key inside the guard window acted: ' + await page.textContent('#outcome'));
  if ((await page.textContent('#d-state')).indexOf('pending') !== 0) fail('a request decided inside the guard window');
  step('GUARDED');

  // Select it, check the detail, approve with the keyboard.
  await page.click('#pending-list .item:first-child');
  await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
  const fields = await page.textContent('#d-fields');
  if (!/grant jail|WITHOUT a jail/.test(fields)) fail('the detail does not say where it runs: ' + fields);
  for (const want of ['runs', 'script', 'cwd', 'source', 'agent', 'why', 'policy', 'hash', '\\u202e']) {
    if (!fields.includes(want)) fail('detail lacks ' + want + ': ' + fields);
  }
  await page.keyboard.press('a');
  // Once it has run, the page moves on to the next pending request (the
  // git push), saying how the first ended; the first stays under Recent,
  // its output a click away.
  await page.waitForFunction(() => document.querySelector('#d-summary').textContent.includes('git push'), null, { timeout: 30000 });
  if (!(await page.textContent('#toast')).startsWith('Approved')) fail('no word of the approval: ' + await page.textContent('#toast'));
  const okBadge = await page.getAttribute('#done-list .item:has-text("hello from the dashboard") .badge', 'class');
  if (okBadge !== 'badge approved') fail('a command that exited 0 has badge ' + okBadge);
  await page.click('#done-list .item:has-text("hello from the dashboard")');
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('hello from the dashboard'), null, { timeout: 30000 });
  await page.waitForSelector('#outcome.ok', { timeout: 30000 });
  const out = await page.textContent('#output');
  if (!out.includes('\\x1b[31mred\\x1b[0m')) fail('output not escaped: ' + out);
  step('APPROVED');

  await page.waitForTimeout(300); // let the arrival animation settle
  await page.screenshot({ path: shot, fullPage: false });
  step('SHOT');

  // k selects the pending git push; d opens the deny form; Enter denies.
  for (let i = 0; i < 3 && !(await page.textContent('#d-summary')).includes('git push'); i++) await page.keyboard.press('k');
  await page.waitForFunction(() => document.querySelector('#d-summary').textContent.includes('git push'), null, { timeout: 10000 });
  await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
  // Why it asks, and what approve always could remember (the exact
  // pattern and the general one beside it).
  const pushFields = await page.textContent('#d-fields');
  for (const want of ['asked because', 'the narrowest rule that would allow it', 'always', 'exact git push origin main', 'general git push **']) {
    if (!pushFields.includes(want)) fail('detail lacks ' + want + ': ' + pushFields);
  }
  await page.keyboard.press('A');
  await page.waitForSelector('#always-form:not(.hidden)', { timeout: 10000 });
  if ((await page.inputValue('#always-pattern')) !== 'git push origin main') fail('always form: ' + await page.inputValue('#always-pattern'));
  await page.click('#always-general');
  if ((await page.inputValue('#always-pattern')) !== 'git push **') fail('the general button did not fill the pattern');
  await page.click('#always-form .cancel');
  await page.keyboard.press('d');
  await page.waitForSelector('#deny-form:not(.hidden)', { timeout: 10000 });
  await page.keyboard.type('not on main, open a pull request');
  await page.screenshot({ path: shot.replace(/\.png$/, '-deny.png'), fullPage: false });
  await page.keyboard.press('Enter');
  // A deny moves on to the next pending request too (the long script).
  await page.waitForFunction(() => (document.querySelector('#toast').textContent || '').startsWith('Denied'), null, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#d-summary').textContent.includes('line-01'), null, { timeout: 30000 });
  step('DENIED');

  // Nothing approved unseen: a 63-line script whose line 62 is below the
  // script box's frame cannot be approved (button disabled, key refused)
  // until the box has been scrolled to its end or shown whole.
  await page.waitForFunction(() => document.querySelectorAll('#pending-list .item').length >= 1, null, { timeout: 30000 });
  await page.click('#pending-list .item:has-text("line-")');
  await page.waitForFunction(() => document.querySelector('#d-summary').textContent.includes('line-01'), null, { timeout: 10000 });
  await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
  await page.waitForSelector('#gate:not(.hidden)', { timeout: 10000 });
  if (!(await page.isDisabled('#btn-approve'))) fail('approve is enabled before the script was seen');
  await page.screenshot({ path: shot.replace(/\.png$/, '-long.png'), fullPage: false });
  await page.keyboard.press('a');
  await page.waitForSelector('#toast:not(.hidden)', { timeout: 10000 });
  if (!(await page.textContent('#toast')).startsWith('Not approved')) fail('the approve key was not refused: ' + await page.textContent('#toast'));
  if (!(await page.isHidden('#outcome'))) fail('a partly seen request was approved');
  await page.evaluate(() => { const p = document.querySelector('#d-fields pre'); p.scrollTop = p.scrollHeight; });
  await page.waitForFunction(() => /^1 part /.test(document.querySelector('#gate-text').textContent), null, { timeout: 10000 });
  await page.keyboard.press('e');
  await page.waitForSelector('#gate.hidden', { state: 'attached', timeout: 10000 });
  await page.keyboard.press('a');
  await page.waitForSelector('#outcome.ok', { timeout: 30000 });
  step('PAGED');

  // The audit view lists the decisions and says the log verifies.
  await page.keyboard.press('2');
  await page.waitForSelector('#verify .ok', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#audit-rows tr').length >= 3, null, { timeout: 30000 });
  // Details read as "key value" lines, not raw JSON.
  if (!(await page.$('#audit-rows .detail-cell .kv'))) fail('audit details are not split into fields');
  const rawJSON = await page.evaluate(() => Array.from(document.querySelectorAll('#audit-rows .detail-cell')).map((c) => c.textContent).filter((t) => t.trim().startsWith('{')));
  if (rawJSON.length) fail('audit details shown as raw JSON: ' + rawJSON[0]);
  await page.keyboard.press('3');
  await page.waitForSelector('#policy-list .policy-card', { timeout: 30000 });
  const card = await page.textContent('#policy-list .policy-card');
  if (!card.includes('Remembered decisions (0)') || !card.includes('No policy accepted')) fail('the policy tab lacks what is in force: ' + card);
  step('AUDIT');

  // The third approval of the same shape offers a rule, taken with y.
  await page.keyboard.press('1');
  step('OFFER-READY');
  for (const name of ['f1', 'f2', 'f3']) {
    const item = '#pending-list .item:has-text("printf ' + name + '")';
    await page.waitForSelector(item, { timeout: 30000 });
    await page.click(item);
    await page.waitForFunction((n) => document.querySelector('#d-summary').textContent.includes('printf ' + n), name, { timeout: 10000 });
    await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
    if (name !== 'f3' && !(await page.isHidden('#offer'))) fail('a rule offered before the third approval');
    await page.keyboard.press('a');
    await page.waitForSelector('#done-list .item:has-text("printf ' + name + '") .badge.approved', { timeout: 30000 });
  }
  await page.waitForSelector('#offer:not(.hidden)', { timeout: 30000 });
  const offerText = await page.textContent('#offer');
  if (!offerText.includes('approved 3 times') || !offerText.includes('printf **')) fail('offer: ' + offerText);
  await page.keyboard.press('y');
  await page.waitForFunction(() => (document.querySelector('#toast').textContent || '').startsWith('Remembered'), null, { timeout: 30000 });
  step('OFFERED');

  // A command that exited non-zero is not shown as a success.
  step('FAIL-READY');
  await page.waitForSelector('#pending-list .item:has-text("exit 3")', { timeout: 30000 });
  await page.click('#pending-list .item:has-text("exit 3")');
  await page.waitForFunction(() => document.querySelector('#d-summary').textContent.includes('exit 3'), null, { timeout: 10000 });
  await page.waitForFunction(() => document.body.dataset.guard !== 'on', null, { timeout: 10000 });
  await page.keyboard.press('a');
  const failed = '#done-list .item:has-text("exit 3") .badge';
  await page.waitForSelector(failed, { timeout: 30000 });
  const failedClass = await page.getAttribute(failed, 'class');
  if (failedClass !== 'badge failed' || (await page.textContent(failed)) !== 'exit 3') fail('a failed command has badge ' + failedClass + ' ' + await page.textContent(failed));
  await page.waitForSelector('#outcome.bad', { timeout: 30000 });
  await page.screenshot({ path: shot.replace(/\.png$/, '-failed.png'), fullPage: false });
  step('FAILED');

  // At phone width (390 px) nothing overflows sideways, on any view.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const tab of ['1', '2', '3', '1']) {
    await page.keyboard.press(tab);
    await page.waitForTimeout(100);
    const wide = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const over = Array.from(document.querySelectorAll('body *')).filter((e) => {
        if (!e.getClientRects().length) return false;
        const r = e.getBoundingClientRect();
        // inside a box that scrolls sideways on its own is fine
        for (let p = e.parentElement; p; p = p.parentElement) {
          const o = getComputedStyle(p).overflowX;
          if (o === 'auto' || o === 'scroll' || o === 'hidden') return false;
        }
        return r.right > w + 1 || r.left < -1;
      }).map((e) => e.tagName + '#' + e.id + '.' + e.className);
      return { doc: document.documentElement.scrollWidth, w, over: over.slice(0, 5) };
    });
    if (wide.doc > wide.w || wide.over.length) fail('view ' + tab + ' overflows at 390 px: ' + JSON.stringify(wide));
  }
  await page.screenshot({ path: shot.replace(/\.png$/, '-phone.png'), fullPage: false });
  step('PHONE');
});
step('DONE');
