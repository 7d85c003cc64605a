// The sandbox approver dashboard. Every text from the server is already
// escaped (control, ANSI, bidi and zero-width characters made visible);
// it is only ever put on the page with textContent, never as HTML.
'use strict';

(function () {
  const { $, el, ago, banner, toast, api } = page; // common.js
  const MAX_DONE = 50, MAX_AUDIT = 300, MAX_OUTPUT = 512 * 1024;

  const state = {
    folders: new Map(),   // key -> {key, root}
    pending: new Map(),   // id -> request view
    done: [],             // request views, newest first
    claimed: new Set(),   // ids being decided or running
    outputs: new Map(),   // id -> [{stream, text}]
    outcomes: new Map(),  // id -> {cls, text}
    selected: null,       // id
    unseen: 0,            // arrivals while the tab was hidden
    verify: [],
    policies: [],
    audit: [],
    agents: [],           // GET /api/agents: the inbox's folders and their states
    batches: new Map(),   // request id -> batch (the same request in several agents)
  };

  function folderName(key) {
    const f = state.folders.get(key);
    if (!f) return key || '';
    const parts = f.root.split('/').filter(Boolean);
    return parts.length ? parts[parts.length - 1] : f.root;
  }

  // ---- sign-in ---------------------------------------------------------

  // NOT_AUTHORISED is what the page says wherever it would list or show
  // requests while it is not signed in: "Nothing waiting" there would be
  // a lie when requests are pending.
  const NOT_AUTHORISED = 'Not authorised: open the URL that `sandbox serve` printed.';
  let authorised = true;

  function signedOut() {
    authorised = false;
    banner(NOT_AUTHORISED + ' This page keeps its sign-in in memory only, so a reload or an address already used signs it out ' +
      '(sandbox serve prints a fresh one when it starts; POST /api/codes with the token file makes more).');
    state.pending.clear();
    state.done = [];
    state.selected = null;
    $('pending-empty').textContent = NOT_AUTHORISED;
    $('done-empty').textContent = '';
    $('detail-empty').textContent = NOT_AUTHORISED;
    document.body.dataset.auth = 'no';
    renderRequests();
    $('count-pending').textContent = '–';
  }

  async function loadAll() {
    const [folders, pending, done] = await Promise.all([
      api('/api/folders'), api('/api/requests?state=pending'), api('/api/requests?state=done&limit=' + MAX_DONE),
    ]);
    banner('');
    state.folders.clear();
    for (const f of folders.folders) {
      state.folders.set(f.key, f);
      for (const p of f.problems || []) toast(p);
    }
    state.pending.clear();
    for (const r of pending.requests) state.pending.set(r.id, r);
    state.done = done.requests;
    if (!state.selected || !findRequest(state.selected)) selectFirst();
    renderRequests();
    loadAudit();
    loadPolicy();
    loadAgents();
  }

  // loadAgents reads the inbox's agents and the batches (the same request
  // pending in several agents), at most every 300 ms.
  let agentsTimer = null;
  function agentsSoon() {
    if (agentsTimer) return;
    agentsTimer = setTimeout(() => { agentsTimer = null; loadAgents(); }, 300);
  }

  async function loadAgents() {
    try {
      const [a, b] = await Promise.all([api('/api/agents'), api('/api/batches')]);
      state.agents = a.agents;
      state.batches.clear();
      for (const batch of b.batches) for (const r of batch.requests) state.batches.set(r.id, batch);
    } catch (e) {
      return;
    }
    renderAgents();
    renderRequests();
  }

  function renderAgents() {
    const agents = state.agents.filter((a) => !a.main);
    $('agents-box').classList.toggle('hidden', agents.length === 0);
    $('agents-list').replaceChildren(...agents.map((a) => {
      const li = el('li', 'agent');
      li.dataset.agent = a.agent;
      li.append(el('span', 'name', a.agent), el('span', 'badge ' + a.status, a.status + (a.pending ? ' (' + a.pending + ')' : '')));
      li.title = a.branch + '  ' + a.worktree;
      return li;
    }));
  }

  function hasAgents() { return state.agents.some((a) => !a.main); }

  async function loadAudit() {
    try {
      const a = await api('/api/audit?limit=' + MAX_AUDIT);
      state.audit = a.records.sort((x, y) => (x.time < y.time ? 1 : x.time > y.time ? -1 : y.seq - x.seq));
      renderAudit();
    } catch (e) { /* shown by the banner when it matters */ }
    verifySoon(0);
  }

  let verifyTimer = null;
  function verifySoon(delay) {
    clearTimeout(verifyTimer);
    verifyTimer = setTimeout(async () => {
      try {
        const v = await api('/api/audit/verify');
        state.verify = v.folders;
        renderVerify();
      } catch (e) { /* ignore */ }
    }, delay);
  }

  async function loadPolicy() {
    try {
      const p = await api('/api/policy');
      state.policies = p.folders;
    } catch (e) {
      state.policies = null;
    }
    renderPolicy();
  }

  // ---- live events -----------------------------------------------------

  function setConn(text, cls) {
    const c = $('conn');
    c.textContent = text;
    c.className = 'conn ' + cls;
  }

  function onEvent(ev) {
    switch (ev.type) {
      case 'hello':
        if (ev.status) $('who').textContent = ev.status.user;
        break;
      case 'request.pending':
        if (!state.pending.has(ev.id) && !state.done.some((r) => r.id === ev.id)) {
          state.pending.set(ev.id, ev.request);
          arrived(ev.request);
        }
        break;
      case 'request.claimed':
        state.claimed.add(ev.id);
        break;
      case 'request.done':
        finished(ev);
        break;
      case 'output':
        appendOutput(ev.id, ev.stream, ev.text);
        return;
      case 'audit':
        state.audit.unshift(ev.record);
        state.audit.length = Math.min(state.audit.length, MAX_AUDIT);
        renderAudit(ev.record);
        verifySoon(1500);
        return;
      case 'policy':
        loadPolicy();
        return;
      case 'problem':
        toast(ev.problem);
        return;
      case 'agents':
        agentsSoon();
        return;
    }
    if (ev.type === 'request.pending' || ev.type === 'request.done') agentsSoon();
    renderRequests();
  }

  function arrived(req) {
    const sel = state.selected;
    if (!sel || (!state.pending.has(sel) && !state.outcomes.has(sel))) state.selected = req.id;
    freshIds.add(req.id);
    if (document.hidden) {
      state.unseen++;
      notify(req);
    }
  }

  function finished(ev) {
    // Keep what was shown while it was pending (the result alone does not
    // carry the full request), with the result.
    const shown = state.pending.get(ev.id);
    const req = shown ? Object.assign({}, shown, { state: 'done', result: ev.result }) : ev.request;
    state.pending.delete(ev.id);
    state.claimed.delete(ev.id);
    state.done = [req].concat(state.done.filter((r) => r.id !== ev.id)).slice(0, MAX_DONE);
    const out = state.outputs.get(ev.id);
    if ((!out || out.length === 0) && ev.result) {
      if (ev.result.stdout) appendOutput(ev.id, 'stdout', ev.result.stdout, true);
      if (ev.result.stderr) appendOutput(ev.id, 'stderr', ev.result.stderr, true);
    }
    if (!state.outcomes.has(ev.id)) state.outcomes.set(ev.id, describeResult(ev.result));
  }

  function notify(req) {
    if (!('Notification' in window) || Notification.permission !== 'granted') return;
    const n = new Notification('sandbox: approval needed', {
      body: req.kind + ': ' + req.summary, tag: req.id,
    });
    n.onclick = () => { window.focus(); select(req.id); n.close(); };
  }

  // ---- requests view ---------------------------------------------------

  const freshIds = new Set();

  function pendingList() {
    return Array.from(state.pending.values()).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  function navList() {
    return pendingList().concat(state.done);
  }

  function findRequest(id) {
    return state.pending.get(id) || state.done.find((r) => r.id === id) || null;
  }

  function selectFirst() {
    const l = navList();
    state.selected = l.length ? l[0].id : null;
  }

  function select(id) {
    state.selected = id;
    closeForms();
    renderRequests();
    const item = document.querySelector('[data-id="' + CSS.escape(id) + '"]');
    if (item) item.scrollIntoView({ block: 'nearest' });
  }

  function move(delta) {
    const l = navList();
    if (!l.length) return;
    let i = l.findIndex((r) => r.id === state.selected);
    i = i < 0 ? 0 : Math.min(l.length - 1, Math.max(0, i + delta));
    select(l[i].id);
  }

  // The guard: for GUARD_MS after the pending list or the selected request
  // changes, decision keys and clicks on the decision buttons are ignored,
  // so that a key meant for what was on screen never decides what just
  // replaced it (sandbox watch drops type-ahead the same way).
  const GUARD_MS = 700;
  let guardUntil = 0, guardTimer = null, lastView = '';
  function armGuard() {
    guardUntil = performance.now() + GUARD_MS;
    document.body.dataset.guard = 'on';
    clearTimeout(guardTimer);
    guardTimer = setTimeout(() => { document.body.dataset.guard = ''; renderDetail(); }, GUARD_MS + 10);
  }
  function guarded() {
    if (performance.now() >= guardUntil) return false;
    toast('The request list just changed: look again, then decide.');
    return true;
  }

  function renderRequests() {
    const pend = pendingList();
    const view = state.selected + '|' + pend.map((r) => r.id).join(',');
    if (view !== lastView) { lastView = view; armGuard(); }
    renderItems($('pending-list'), pend);
    renderItems($('done-list'), state.done);
    $('pending-empty').classList.toggle('hidden', pend.length > 0);
    $('done-empty').classList.toggle('hidden', state.done.length > 0);
    const c = $('count-pending');
    c.textContent = pend.length;
    c.classList.toggle('zero', pend.length === 0);
    updateTitle();
    renderDetail();
    freshIds.clear();
  }

  function renderItems(list, reqs) {
    list.replaceChildren(...reqs.map(item));
  }

  function item(r) {
    const li = el('li', 'item');
    li.dataset.id = r.id;
    if (r.id === state.selected) li.classList.add('selected');
    if (freshIds.has(r.id)) li.classList.add('fresh');
    const top = el('div', 'top');
    // A pending request is listed by what made it escalate, riskiest
    // first (a prefix of the command could hide "| sudo bash").
    const what = el('span', r.headline ? 'what headline' : 'what', r.headline || r.summary);
    top.append(el('span', 'kind ' + r.kind, r.kind), what);
    const st = itemState(r);
    if (st) top.append(el('span', 'badge ' + badgeClass(r, st), badgeText(r, st)));
    if (!r.result && r.review && r.review.stale) top.append(el('span', 'badge stale', 'stale'));
    const batch = !r.result && state.batches.get(r.id);
    if (batch) top.append(el('span', 'badge batch', batch.requests.length + ' agents'));
    const meta = el('div', 'meta');
    if (r.agent && r.agent !== 'main') meta.append(el('span', 'agent-tag', 'agent ' + r.agent));
    else if (state.folders.size > 1) meta.append(el('span', '', folderName(r.folder)));
    if (r.client) meta.append(el('span', '', r.client));
    if (r.session) meta.append(el('span', '', 'session ' + r.session.slice(0, 12)));
    meta.append(el('span', '', ago(r.created)));
    li.append(top, meta);
    li.addEventListener('click', () => select(r.id));
    return li;
  }

  // An approved command that exited non-zero or was killed did not
  // succeed: its badge is not the green of success.
  function ranBadly(r) {
    const res = r.result;
    return !!res && res.decision === 'approved' && (!!res.signal || (res.exit_code !== undefined && res.exit_code !== 0));
  }
  function badgeClass(r, st) { return ranBadly(r) ? 'failed' : st; }
  function badgeText(r, st) {
    if (!ranBadly(r)) return st;
    return r.result.signal ? 'killed (' + r.result.signal + ')' : 'exit ' + r.result.exit_code;
  }

  function itemState(r) {
    if (r.result) return r.result.decision;
    if (state.claimed.has(r.id) || busy.has(r.id)) return 'claimed';
    return '';
  }

  function renderDetail() {
    const r = state.selected ? findRequest(state.selected) : null;
    $('detail-empty').classList.toggle('hidden', !!r);
    $('detail-body').classList.toggle('hidden', !r);
    if (!r) return;
    $('d-kind').textContent = r.kind;
    $('d-kind').className = 'kind ' + r.kind;
    $('d-summary').textContent = r.summary;
    $('d-state').textContent = stateText(r);
    const fieldsKey = r.id + '|' + (r.result ? r.result.decision : 'pending');
    if (fieldsKey !== lastFields) { lastFields = fieldsKey; renderFields(r); }
    $('stale').classList.toggle('hidden', !(pendingNow(r) && r.review && r.review.stale));
    if (r.review && r.review.stale) $('stale-why').textContent = r.review.stale;
    const pending = !r.result && state.pending.has(r.id);
    const running = busy.has(r.id) || state.claimed.has(r.id);
    $('actions').classList.toggle('hidden', !pending);
    const wait = performance.now() < guardUntil;
    const unseen = unseenParts(r);
    for (const b of ['btn-approve', 'btn-always', 'btn-deny']) $(b).disabled = running || wait;
    const refused = !!(r.review && r.review.refused);
    $('btn-approve').disabled = running || wait || unseen > 0 || refused;
    $('btn-always').disabled = running || wait || unseen > 0 || refused || !canAlways(r);
    $('refused').classList.toggle('hidden', !(pending && refused));
    if (refused) $('refused-why').textContent = r.review.refused;
    $('gate').classList.toggle('hidden', !pending || unseen === 0);
    $('gate-text').textContent = unseen + (unseen === 1 ? ' part of this request is' : ' parts of this request are') +
      ' not on screen yet: scroll each box to its end, or show it all (e), before approving.';
    $('btn-always').title = canAlways(r) ? '' : 'no rule can cover this request (see "always")';
    const batch = state.batches.get(r.id);
    $('btn-batch').classList.toggle('hidden', !batch);
    if (batch) $('batch-n').textContent = String(batch.requests.length);
    $('btn-batch').disabled = $('btn-approve').disabled;
    $('always-all-row').classList.toggle('hidden', !hasAgents());
    if (!pending) closeForms();
    const oc = state.outcomes.get(r.id);
    $('outcome').classList.toggle('hidden', !oc);
    if (oc) { $('outcome').className = 'outcome ' + oc.cls; $('outcome').textContent = oc.text; }
    renderOutput(r.id);
  }

  function stateText(r) {
    if (r.result) return r.result.decision + ' by ' + r.result.user + ' (' + r.result.surface + ') ' + ago(r.result.decided);
    if (busy.has(r.id)) return 'running here…';
    if (state.claimed.has(r.id)) return 'claimed by an approver…';
    return 'pending · ' + ago(r.created);
  }

  function pendingNow(r) { return !r.result && state.pending.has(r.id); }

  // Nothing approved unseen: a box (script, content, diff, the list of
  // policy hits) taller than its frame must be scrolled to its end, or
  // shown whole, before the approve buttons and keys work.
  const seenBoxes = new Map(); // id -> Set of box names seen to the end
  let lastFields = '';

  function seen(id) {
    let s = seenBoxes.get(id);
    if (!s) { s = new Set(); seenBoxes.set(id, s); }
    return s;
  }

  function gatedBox(r, name, node) {
    node.classList.add('gated');
    node.dataset.box = name;
    const check = () => {
      if (node.scrollTop + node.clientHeight >= node.scrollHeight - 4) {
        if (!seen(r.id).has(name)) { seen(r.id).add(name); renderDetail(); }
      }
    };
    node.addEventListener('scroll', check);
    requestAnimationFrame(() => { check(); renderDetail(); });
    return node;
  }

  function unseenParts(r) {
    if (!pendingNow(r)) return 0;
    let n = 0;
    for (const b of document.querySelectorAll('#d-fields .gated')) {
      if (!seen(r.id).has(b.dataset.box) && b.scrollHeight > b.clientHeight + 4) n++;
    }
    return n;
  }

  function expandAll() {
    const r = state.selected ? findRequest(state.selected) : null;
    if (!r) return;
    for (const b of document.querySelectorAll('#d-fields .gated')) {
      b.classList.add('expanded');
      seen(r.id).add(b.dataset.box);
    }
    renderDetail();
  }

  function renderFields(r) {
    const dl = $('d-fields');
    const rows = [];
    const add = (label, node) => rows.push(el('dt', '', label), node);
    const text = (label, value, cls) => add(label, el('dd', cls || '', value));
    if (r.agent && r.agent !== 'main') {
      text('agent', r.agent + '   (by the folder it arrived in)', 'agent-tag');
      text('branch', r.branch);
      text('worktree', r.worktree);
    } else if (state.folders.size > 1) text('folder', (state.folders.get(r.folder) || {}).root || r.folder);
    const rv = r.review;
    if (rv && rv.where && rv.where.length) {
      const dd = el('dd', 'where');
      dd.append(...rv.where.map((w) => el('div', '', w)));
      add('runs', dd);
    }
    if (rv) add('policy', hitsNode(r, rv));
    if (rv && rv.why) text('why it asks', rv.why, 'why-asked');
    if (rv && rv.always && rv.always.length) add('always', alwaysNode(rv.always));
    for (const f of r.fields || []) {
      if (!f.block) { text(f.label, f.value); continue; }
      const dd = el('dd');
      dd.append(el('div', 'size', f.lines + (f.lines === 1 ? ' line, ' : ' lines, ') + f.bytes + ' bytes'),
        gatedBox(r, f.label, el('pre', '', f.value)));
      add(f.label, dd);
    }
    if (r.cwd) text('cwd', r.cwd);
    if (rv && rv.origin) {
      text('origin', rv.origin);
      text('claims', rv.claims);
    } else {
      if (r.source) text('source', r.source + '   (as the request says)');
      if (r.client) text(r.agent ? 'client' : 'agent', r.client);
      if (r.session) text('session', r.session);
    }
    if (r.justification) text('why', r.justification, 'why');
    if (!rv && r.policy_reasons && r.policy_reasons.length) {
      const dd = el('dd', 'reasons');
      dd.append(...r.policy_reasons.map((p) => el('div', '', p)));
      add('the request says', dd);
    }
    if (r.hash) text('hash', r.hash, 'hash');
    if (r.created) text('created', new Date(r.created).toLocaleString() + ' (' + ago(r.created) + ')');
    if (r.result && r.result.reason) text('reason', r.result.reason, 'why');
    if (r.result && r.result.always) text('remembered', r.result.always);
    dl.replaceChildren(...rows);
  }

  // alwaysNode lists what approve always can remember, per escalated
  // part: the exact pattern, the general one where no other rule lies in
  // its territory, or why no rule can cover it.
  function alwaysNode(props) {
    const dd = el('dd', 'always-cell');
    for (const p of props) {
      const row = el('div', 'always-row');
      if (!p.exact) {
        row.append(el('span', 'subject', p.trigger + ' ' + p.subject), el('span', 'reason', ' no rule can cover it: ' + p.why));
      } else {
        row.append(el('span', '', p.trigger + ' exact '), el('code', '', p.exact));
        if (p.general) row.append(el('span', '', '  or general '), el('code', 'general', p.general));
        else if (p.why) row.append(el('span', 'reason', '  (no general pattern: ' + p.why + ')'));
      }
      dd.append(row);
    }
    return dd;
  }

  // hitsNode lists every policy hit, the ones that need a human first,
  // riskiest first; never capped.
  function hitsNode(r, rv) {
    const dd = el('dd', 'hits-cell');
    const hits = rv.hits || [];
    const needs = hits.filter((h) => h.tier !== 'allow').length;
    let head = rv.tier + ': ' + needs + (needs === 1 ? ' part needs' : ' parts need') + ' you, riskiest first';
    if (hits.length > needs) head += '; ' + (hits.length - needs) + ' allowed';
    if (!rv.recomputed) head += ' (the policy could not be loaded: the requester\'s own reasons)';
    dd.append(el('div', 'size', head));
    const box = el('div', 'hits');
    for (const h of hits) {
      const row = el('div', 'hit ' + h.tier);
      row.append(el('span', 'risk ' + h.risks[0].replace(/ /g, '-'), h.tier === 'allow' ? 'allowed' : h.risks.join(', ')),
        el('span', 'subject', h.trigger + ' ' + h.subject + (h.count > 1 ? '  ×' + h.count : '')),
        el('span', 'reason', h.reason));
      box.append(row);
    }
    dd.append(gatedBox(r, 'policy', box));
    return dd;
  }

  // ---- output ----------------------------------------------------------

  function appendOutput(id, stream, text, fromResult) {
    let chunks = state.outputs.get(id);
    if (!chunks) { chunks = []; state.outputs.set(id, chunks); }
    const size = chunks.reduce((n, c) => n + c.text.length, 0);
    if (size > MAX_OUTPUT) return;
    chunks.push({ stream, text, fromResult });
    if (id === state.selected) {
      const pre = $('output');
      pre.append(chunkNode(stream, text));
      $('output-box').classList.remove('hidden');
      pre.scrollTop = pre.scrollHeight;
    }
  }

  function chunkNode(stream, text) {
    return stream === 'stderr' ? el('span', 'err', text) : document.createTextNode(text);
  }

  function renderOutput(id) {
    const chunks = state.outputs.get(id) || [];
    const r = findRequest(id);
    const show = chunks.length > 0 || busy.has(id) || state.claimed.has(id);
    $('output-box').classList.toggle('hidden', !show);
    if (!show) return;
    $('output').replaceChildren(...chunks.map((c) => chunkNode(c.stream, c.text)));
    let note = busy.has(id) || state.claimed.has(id) ? 'live' : '';
    if (r && r.result) {
      if (r.result.exit_code !== undefined) note = 'exit ' + r.result.exit_code;
      if (r.result.signal) note = 'killed by ' + r.result.signal;
      if (r.result.duration_ms !== undefined) note += ' · ' + r.result.duration_ms + ' ms';
    }
    $('output-note').textContent = note;
  }

  // ---- decisions ---------------------------------------------------------

  const busy = new Set();

  function gateRefuses(r) {
    if (r.review && r.review.refused) {
      toast('Not approved: ' + r.review.refused + '. It would be refused whatever is decided: deny it.');
      return true;
    }
    const n = unseenParts(r);
    if (n === 0) return false;
    toast('Not approved: ' + n + (n === 1 ? ' part' : ' parts') + ' of this request not on screen yet. Scroll to the end, or press e to show it all.');
    return true;
  }

  // A request nobody waits for any more needs a second, deliberate step.
  function staleRefuses(r, confirmed) {
    if (!r.review || !r.review.stale || confirmed) return false;
    closeForms();
    $('stale-form').classList.remove('hidden');
    return true;
  }

  // nextPending moves the selection on from a request just decided to the
  // next pending one (the one after it, else the first), so that the
  // approver's next look lands on what still waits. The guard arms with
  // the change, so a key meant for the decided request does not decide
  // this one. With nothing pending the decided request stays selected,
  // its outcome and output on screen.
  function nextPending(decided) {
    const l = pendingList().filter((r) => r.id !== decided && !busy.has(r.id));
    if (!l.length) { renderRequests(); return; }
    const after = l.find((r) => r.id > decided) || l[0];
    const oc = state.outcomes.get(decided);
    if (oc) toast(oc.text);
    select(after.id);
  }

  async function approve(always, pattern, staleConfirmed, rules, extra) {
    const r = state.pending.get(state.selected);
    if (!r || busy.has(r.id) || guarded() || gateRefuses(r) || staleRefuses(r, staleConfirmed)) return;
    busy.add(r.id);
    closeForms();
    state.outputs.set(r.id, []);
    state.outcomes.set(r.id, { cls: 'info', text: always ? 'Approved always; running…' : 'Approved; running…' });
    renderRequests();
    const body = { hash: r.hash };
    if (staleConfirmed) body.stale_ok = true;
    if (always) { body.always = true; body.pattern = pattern; }
    if (always && rules) body.rules = rules;
    if (always && hasAgents() && $('always-all').checked) body.all_agents = true;
    Object.assign(body, extra || {});
    try {
      const res = await api('/api/requests/' + encodeURIComponent(r.id) + '/approve?folder=' + encodeURIComponent(r.folder), { method: 'POST', body });
      const oc = describeResult(res.result);
      if (res.warning) oc.text += ' — ' + res.warning;
      if (res.batch) oc.text += ' — also in ' + res.batch.map((b) => b.agent + (b.error ? ' (' + b.error + ')' : '')).join(', ');
      state.outcomes.set(r.id, oc);
      if (res.offer) showOffer(r, res.offer);
    } catch (e) {
      state.outcomes.set(r.id, { cls: 'bad', text: e.message });
      busy.delete(r.id);
      renderRequests();
      return;
    }
    busy.delete(r.id);
    if (state.selected === r.id) nextPending(r.id); else renderRequests();
  }

  // approveBatch approves the selected request once in every agent it
  // waits in (each runs in its own folder).
  function approveBatch() {
    const r = state.pending.get(state.selected);
    if (!r || !state.batches.get(r.id) || $('btn-batch').disabled) return;
    approve(false, undefined, false, undefined, { batch: true });
  }

  // showOffer shows the rule offered after repeated approvals of one
  // shape; nothing changes unless the human takes it (y or the button).
  let offer = null;
  function showOffer(r, o) {
    offer = { id: r.id, folder: r.folder, pattern: o.pattern };
    $('offer-text').textContent = o.summary + '.';
    $('offer-pattern').textContent = o.pattern;
    $('offer').classList.remove('hidden');
  }

  function hideOffer() {
    offer = null;
    $('offer').classList.add('hidden');
  }

  async function takeOffer() {
    if (!offer) return;
    const o = offer;
    hideOffer();
    try {
      await api('/api/requests/' + encodeURIComponent(o.id) + '/remember?folder=' + encodeURIComponent(o.folder), { method: 'POST', body: { pattern: o.pattern } });
      toast('Remembered: ' + o.pattern);
      loadPolicy();
    } catch (e) { toast(e.message); }
  }

  async function deny(reason) {
    const r = state.pending.get(state.selected);
    if (!r || busy.has(r.id)) return;
    busy.add(r.id);
    closeForms();
    try {
      const res = await api('/api/requests/' + encodeURIComponent(r.id) + '/deny?folder=' + encodeURIComponent(r.folder), { method: 'POST', body: { reason } });
      state.outcomes.set(r.id, describeResult(res.result) || { cls: 'bad', text: 'Denied.' });
    } catch (e) {
      state.outcomes.set(r.id, { cls: 'bad', text: e.message });
      busy.delete(r.id);
      renderRequests();
      return;
    }
    busy.delete(r.id);
    if (state.selected === r.id) nextPending(r.id); else renderRequests();
  }

  function describeResult(res) {
    if (!res) return null;
    switch (res.decision) {
      case 'approved':
        if (res.signal) return { cls: 'bad', text: 'Approved; killed by ' + res.signal + ' after ' + res.duration_ms + ' ms.' };
        if (res.exit_code !== undefined) return { cls: res.exit_code === 0 ? 'ok' : 'bad', text: 'Approved by ' + res.user + '; exited ' + res.exit_code + ' after ' + res.duration_ms + ' ms.' + (res.always ? ' Remembered: ' + res.always : '') };
        return { cls: 'ok', text: 'Approved by ' + res.user + (res.reason ? ': ' + res.reason : '.') };
      case 'denied':
        return { cls: 'bad', text: 'Denied by ' + res.user + ' (' + res.surface + ')' + (res.reason ? ': ' + res.reason : '.') };
      default:
        return { cls: 'bad', text: res.decision + (res.reason ? ': ' + res.reason : '') };
    }
  }

  function closeForms() {
    $('stale-form').classList.add('hidden');
    $('always-form').classList.add('hidden');
    $('deny-form').classList.add('hidden');
  }

  // partProps is the per-part proposals of a request with several
  // escalated parts, each of which has a pattern; else null.
  function partProps(r) {
    const props = (r.review && r.review.always) || [];
    return props.length > 1 && props.every((p) => p.exact) ? props : null;
  }

  function canAlways(r) { return !!(r.pattern || partProps(r)); }

  function openAlways() {
    const r = state.pending.get(state.selected);
    if (!r || !canAlways(r) || busy.has(r.id) || guarded() || gateRefuses(r)) return;
    closeForms();
    $('always-form').classList.remove('hidden');
    const input = $('always-pattern');
    const multi = partProps(r);
    input.classList.toggle('hidden', !!multi);
    $('always-parts').classList.toggle('hidden', !multi);
    if (multi) {
      // One rule per escalated part, each shown with its choices.
      $('always-parts').replaceChildren(...multi.map((p, i) => {
        const row = el('div', 'always-part');
        const sel = el('select');
        sel.dataset.trigger = p.trigger;
        const exact = el('option', '', 'exact: ' + p.exact);
        exact.value = p.exact;
        sel.append(exact);
        if (p.general) {
          const gen = el('option', '', 'general: ' + p.general);
          gen.value = p.general;
          sel.append(gen);
        }
        row.append(el('span', '', 'part ' + (i + 1) + '/' + multi.length + ' ' + p.trigger + ' ' + p.subject + ': '), sel);
        return row;
      }));
      $('always-general').classList.add('hidden');
      $('always-note').classList.add('hidden');
      const first = $('always-parts').querySelector('select');
      if (first) first.focus();
      return;
    }
    input.value = r.pattern;
    const props = (r.review && r.review.always) || [];
    const gen = $('always-general');
    const note = $('always-note');
    const general = props.length === 1 ? props[0].general : '';
    gen.classList.toggle('hidden', !general);
    gen.textContent = general ? 'General: ' + general : 'General';
    gen.onclick = () => { input.value = general; input.focus(); };
    note.classList.toggle('hidden', !(props.length === 1 && !general && props[0].why));
    note.textContent = props.length === 1 && !general && props[0].why ? 'No general pattern: ' + props[0].why : '';
    input.focus();
    input.select();
  }

  function openDeny() {
    const r = state.pending.get(state.selected);
    if (!r || busy.has(r.id) || guarded()) return;
    closeForms();
    $('deny-form').classList.remove('hidden');
    $('deny-reason').value = '';
    $('deny-reason').focus();
  }

  // ---- audit and policy --------------------------------------------------

  function renderVerify() {
    const box = $('verify');
    const pill = $('audit-state');
    const bad = state.verify.filter((v) => !v.ok);
    box.replaceChildren(...state.verify.map((v) => {
      const name = state.folders.size > 1 ? folderName(v.folder) + ': ' : '';
      if (v.error) return el('div', 'bad', name + 'cannot verify: ' + v.error);
      if (!v.ok) return el('div', 'bad', name + '✗ audit log fails verification (' + v.problems + ' problem(s)); first bad: ' + v.first_bad);
      if (!v.records) return el('div', 'ok', name + '✓ audit log empty and intact');
      return el('div', 'ok', name + '✓ audit log verified: ' + v.records + ' records, chain intact up to #' + v.head_seq + (v.torn_tail ? ' (a torn last line from a crash)' : ''));
    }));
    pill.textContent = bad.length ? '✗' : '✓';
    pill.className = 'pill ' + (bad.length ? 'bad' : 'ok');
  }

  function auditRow(r, fresh) {
    const tr = el('tr', r.authentic ? '' : 'forged');
    if (fresh) tr.classList.add('fresh');
    tr.append(
      el('td', 'mono', r.seq), el('td', '', new Date(r.time).toLocaleTimeString()),
      el('td', '', folderName(r.folder)), el('td', 'mono', r.actor), el('td', 'mono', r.event),
      el('td', 'mono', (r.request_id || '').slice(0, 10)), el('td', '', r.decision),
      detailCell(r));
    return tr;
  }

  // detailCell shows a record's details as "key value" lines (the server
  // escaped each); the raw JSON stays in the tooltip.
  function detailCell(r) {
    const td = el('td', 'detail-cell');
    if (!r.authentic) td.append(el('div', 'bad', '(not authentic)'));
    if (r.details && r.details.length) {
      for (const d of r.details) {
        const line = el('div', 'kv');
        line.append(el('span', 'k', d.key), el('span', 'v', d.value));
        td.append(line);
      }
      td.title = r.detail || '';
    } else if (r.detail) {
      td.append(el('div', 'v', r.detail));
    }
    return td;
  }

  function renderAudit(fresh) {
    const body = $('audit-rows');
    if (fresh) {
      body.prepend(auditRow(fresh, true));
      while (body.children.length > MAX_AUDIT) body.lastChild.remove();
      return;
    }
    body.replaceChildren(...state.audit.map((r) => auditRow(r, false)));
  }

  function renderPolicy() {
    const list = $('policy-list');
    const count = $('policy-count');
    if (state.policies === null) {
      list.replaceChildren(el('p', 'empty', 'Policy changes are not available from this server.'));
      count.classList.add('hidden');
      return;
    }
    const changed = state.policies.filter((p) => p && p.changed);
    count.textContent = changed.length;
    count.classList.toggle('hidden', changed.length === 0);
    list.replaceChildren(...state.policies.filter(Boolean).map(policyCard));
  }

  function policyCard(p) {
    const card = el('div', 'policy-card');
    card.append(el('h3', '', (state.folders.get(p.folder) || {}).root || p.folder));
    if (p.error) card.append(el('p', 'outcome bad', p.error));
    if (!p.changed && !p.current_sha256) {
      card.append(el('p', 'muted', 'There is no .sandbox/policy.yaml here; the accepted policy, if any, stays in force.'));
      return withInForce(card, p);
    }
    if (!p.changed) {
      card.append(el('p', 'muted', '✓ .sandbox/policy.yaml is the policy in force.'));
      return withInForce(card, p);
    }
    card.append(el('p', '', 'policy.yaml has changed. Until you accept it, the last accepted policy stays in force.'));
    const diff = el('div', 'diff');
    for (const line of p.diff.replace(/\n+$/, '').split('\n')) {
      let cls = '';
      if (line.startsWith('+') && !line.startsWith('+++')) cls = 'add';
      else if (line.startsWith('-') && !line.startsWith('---')) cls = 'del';
      else if (line.startsWith('@@')) cls = 'hunk';
      diff.append(el('span', cls, line || ' '));
    }
    const btn = el('button', 'primary', 'Accept this policy');
    btn.type = 'button';
    btn.addEventListener('click', async () => {
      btn.disabled = true;
      try {
        await api('/api/policy/accept', { method: 'POST', body: { folder: p.folder, sha256: p.current_sha256 } });
        toast('Policy accepted.');
      } catch (e) { toast(e.message); }
      loadPolicy();
    });
    card.append(diff, btn, el('span', 'muted', '  sha256 ' + p.current_sha256.slice(0, 16) + '…'));
    return withInForce(card, p);
  }

  // withInForce adds what is in force: the accepted policy and the
  // remembered decisions (approve always) beside it.
  function withInForce(card, p) {
    const rem = p.remembered || [];
    const sec = el('div', 'remembered');
    sec.append(el('h4', '', 'Remembered decisions (' + rem.length + ')'));
    if (rem.length === 0) {
      sec.append(el('p', 'muted', 'None. Approve always in watch or here adds one; `sandbox remembered forget` takes one back.'));
    } else {
      const table = el('table', 'remembered-table');
      const head = el('tr');
      for (const h of ['id', 'tier', 'trigger', 'pattern', 'by', 'created']) head.append(el('th', '', h));
      table.append(head);
      for (const r of rem) {
        const tr = el('tr', r.tier);
        tr.append(el('td', 'mono', r.id), el('td', '', r.tier), el('td', '', r.trigger), el('td', 'mono', r.pattern),
          el('td', '', r.by || '-'), el('td', '', r.created ? new Date(r.created).toLocaleString() : ''));
        table.append(tr);
      }
      sec.append(table);
    }
    for (const w of p.warnings || []) sec.append(el('p', 'outcome bad', w));
    const pol = el('details', 'accepted-policy');
    pol.append(el('summary', '', p.text ? 'The policy in force (the last accepted)' : 'No policy accepted: everything escalates'));
    if (p.text) pol.append(el('pre', '', p.text));
    card.append(sec, pol);
    return card;
  }

  // ---- tabs, title, keys ---------------------------------------------------

  function showTab(name) {
    for (const t of document.querySelectorAll('.tab')) t.classList.toggle('active', t.dataset.tab === name);
    for (const v of ['requests', 'audit', 'policy']) $('tab-' + v).classList.toggle('hidden', v !== name);
  }

  function updateTitle() {
    const n = state.pending.size;
    let t = n ? '(' + n + ') sandbox' : 'sandbox';
    if (state.unseen) t = '● ' + t;
    document.title = t;
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) { state.unseen = 0; updateTitle(); }
  });

  function inInput(e) {
    const t = e.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA');
  }

  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { closeForms(); $('help').classList.add('hidden'); document.activeElement.blur(); return; }
    if (inInput(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      a: () => approve(false), A: openAlways, d: openDeny, e: expandAll, y: takeOffer, b: approveBatch,
      '1': () => showTab('requests'), '2': () => showTab('audit'), '3': () => showTab('policy'),
      '?': () => $('help').classList.toggle('hidden'),
    };
    const fn = keys[e.key];
    if (fn) { e.preventDefault(); fn(); }
  });

  $('btn-approve').addEventListener('click', () => approve(false));
  $('btn-batch').addEventListener('click', approveBatch);
  $('offer-take').addEventListener('click', takeOffer);
  $('offer-no').addEventListener('click', hideOffer);
  $('btn-always').addEventListener('click', openAlways);
  $('btn-deny').addEventListener('click', openDeny);
  $('always-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const sels = [...$('always-parts').querySelectorAll('select')];
    if (!$('always-parts').classList.contains('hidden') && sels.length) {
      approve(true, '', false, sels.map((s) => ({ trigger: s.dataset.trigger, pattern: s.value })));
      return;
    }
    approve(true, $('always-pattern').value);
  });
  $('stale-form').addEventListener('submit', (e) => { e.preventDefault(); approve(false, undefined, true); });
  $('btn-expand').addEventListener('click', expandAll);
  $('deny-form').addEventListener('submit', (e) => { e.preventDefault(); deny($('deny-reason').value); });
  for (const c of document.querySelectorAll('.cancel')) {
    c.addEventListener('click', () => { closeForms(); $('help').classList.add('hidden'); });
  }
  for (const t of document.querySelectorAll('.tab')) t.addEventListener('click', () => showTab(t.dataset.tab));
  $('help-btn').addEventListener('click', () => $('help').classList.toggle('hidden'));
  $('help').addEventListener('click', (e) => { if (e.target === $('help')) $('help').classList.add('hidden'); });

  if ('Notification' in window && Notification.permission === 'default') {
    const b = $('notify-btn');
    b.classList.remove('hidden');
    b.addEventListener('click', async () => {
      await Notification.requestPermission();
      b.classList.add('hidden');
    });
  }

  setInterval(() => { if (!document.hidden) renderRequests(); }, 15000);
  page.signIn(signedOut).then(() => page.connect({
    state: setConn,
    open: () => loadAll().catch((e) => toast(e.message)),
    event: onEvent,
  }), () => { setConn('signed out', 'down'); signedOut(); });
})();
