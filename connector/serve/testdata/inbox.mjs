// Drives the dashboard of a repository's inbox (sandbox serve without a
// folder named, two agents) in Debian's chromium with playwright-core:
// the Agents panel, every request tagged with its agent, and the same
// request in two agents approved once for both ("Approve in all 2
// agents", key b).
//
// usage: node inbox.mjs URL SCREENSHOT.png   (NODE_PATH: hack/clients/node_modules)
import { step, fail, withPage } from '../../testenv/browser.mjs';

const [url, shot] = process.argv.slice(2);

await withPage(url, async (page) => {
  await page.waitForSelector('#agents-box:not(.hidden)', { timeout: 30000 });
  step('READY');

  // The Go test submits the same request in alice's and bob's folders,
  // and in alice's one that claims to be bob's.
  await page.waitForFunction(() => document.querySelectorAll('#pending-list .item').length >= 3, null, { timeout: 30000 });
  await page.waitForFunction(() => /alice\s*waiting \(2\)/.test(document.querySelector('#agents-list').textContent) &&
    /bob\s*waiting \(1\)/.test(document.querySelector('#agents-list').textContent), null, { timeout: 30000 });
  const tags = await page.$$eval('#pending-list .item .agent-tag', (es) => es.map((e) => e.textContent).sort());
  if (JSON.stringify(tags) !== JSON.stringify(['agent alice', 'agent alice', 'agent bob'])) fail('tags: ' + JSON.stringify(tags));
  // The liar: alice's folder, bob's name; its agent is alice, bob is only its client.
  const liar = await page.$$eval('#pending-list .item', (es) => es.filter((e) => e.textContent.includes('i am bob')).map((e) => e.textContent));
  if (liar.length !== 1 || !liar[0].includes('agent alice') || !liar[0].includes('bob')) fail('the liar: ' + JSON.stringify(liar));
  const badges = await page.$$eval('#pending-list .item .badge.batch', (es) => es.map((e) => e.textContent));
  if (JSON.stringify(badges) !== JSON.stringify(['2 agents', '2 agents'])) fail('batch badges: ' + JSON.stringify(badges));
  step('TAGGED');

  // Select alice's pwd: the detail says whose it is, and offers the batch.
  await page.click('#pending-list .item:first-child');
  await page.waitForSelector('#btn-batch:not(.hidden)', { timeout: 30000 });
  if ((await page.textContent('#batch-n')) !== '2') fail('batch of ' + await page.textContent('#batch-n'));
  const dts = await page.$$eval('#d-fields dt', (es) => es.map((e) => e.textContent));
  for (const want of ['agent', 'branch', 'worktree']) if (!dts.includes(want)) fail('detail lacks ' + want + ': ' + dts);
  await page.waitForSelector('#btn-batch:not([disabled])', { timeout: 30000 });
  await page.screenshot({ path: shot, fullPage: false });
  await page.keyboard.press('b');
  await page.waitForFunction(() => document.querySelectorAll('#pending-list .item').length === 1, null, { timeout: 30000 });
  await page.waitForFunction(() => /bob\s*running/.test(document.querySelector('#agents-list').textContent), null, { timeout: 30000 });
  step('BATCHED');
});
step('DONE');
