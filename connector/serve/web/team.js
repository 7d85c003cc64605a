// The sandbox team approver (`sandbox serve --nats`): requests waiting
// on every machine the approver's NATS credentials reach, grouped by
// machine and project. Every text from the server is already escaped; it
// is only ever put on the page with textContent, never as HTML. An
// approval names the content hash of the request as shown, and the
// request is shown whole (no box that hides its end).
'use strict';

(function () {
  const { $, el, ago, banner, toast, api } = page; // common.js
  const MAX_OUTPUT = 512 * 1024;
  const NOT_AUTHORISED = 'Not authorised: open the URL that `sandbox serve --nats` printed.';

  const state = {
    requests: [],          // GET /api/team
    selected: null,        // key
    outputs: new Map(),    // key -> [{stream, text}]
    outcomes: new Map(),   // key -> {cls, text}
    shown: new Map(),      // key -> the request as last shown (what an approval names)
  };

  async function load() {
    const v = await api('/api/team');
    $('who').textContent = v.where + ' · signing as ' + v.as;
    nats = { connected: v.connected, error: v.error };
    showConn();
    state.requests = v.requests;
    if (!state.requests.some((r) => r.key === state.selected)) {
      if (!state.outcomes.has(state.selected)) state.selected = state.requests.length ? state.requests[0].key : null;
    }
    render();
  }

  function render() {
    $('count-pending').textContent = String(state.requests.length);
    $('pending-empty').classList.toggle('hidden', state.requests.length > 0);
    const groups = $('groups');
    groups.replaceChildren();
    let last = null, list = null;
    for (const r of state.requests) {
      const g = r.host + '/' + r.project;
      if (g !== last) {
        last = g;
        groups.append(el('h2', 'group', g));
        list = el('ol', 'items');
        groups.append(list);
      }
      const li = el('li', 'item' + (r.key === state.selected ? ' selected' : ''));
      li.dataset.key = r.key;
      const top = el('div', 'top');
      top.append(el('span', 'kind ' + r.kind, r.kind), el('span', 'what', r.summary));
      if (r.deciding) top.append(el('span', 'badge claimed', 'sent'));
      const meta = el('div', 'meta');
      meta.append(el('span', '', r.id.slice(0, 12)), el('span', '', ago(r.created)));
      li.append(top, meta);
      li.addEventListener('click', () => { state.selected = r.key; render(); });
      list.append(li);
    }
    renderDetail();
  }

  function field(dl, label, value, cls) {
    const dd = el('dd', cls || '');
    if (value instanceof Node) dd.append(value); else dd.textContent = value;
    dl.append(el('dt', '', label), dd);
  }

  function renderDetail() {
    const r = state.requests.find((x) => x.key === state.selected) || state.shown.get(state.selected);
    $('detail-empty').classList.toggle('hidden', !!r);
    $('detail-body').classList.toggle('hidden', !r);
    if (!r) return;
    const waiting = state.requests.some((x) => x.key === r.key);
    state.shown.set(r.key, r);
    $('d-kind').textContent = r.kind;
    $('d-kind').className = 'kind ' + r.kind;
    $('d-summary').textContent = r.summary;
    $('d-state').textContent = waiting ? (r.deciding ? 'decision sent' : 'waiting on ' + r.host) : 'no longer waiting';
    $('cut').classList.toggle('hidden', !r.truncated);
    const dl = $('d-fields');
    dl.replaceChildren();
    field(dl, 'machine', r.host + ' / ' + r.project + ' (org ' + r.org + ')');
    field(dl, 'request', r.id);
    field(dl, 'hash', r.hash, 'hash');
    field(dl, 'raised', ago(r.created));
    field(dl, 'writer says', 'agent ' + (r.agent || '-') + ', source ' + (r.source || '-') + ', session ' + (r.session || '-') + ' (unverified)', 'why');
    if (r.reasons && r.reasons.length) {
      const box = document.createDocumentFragment();
      for (const why of r.reasons) box.append(el('div', '', why));
      field(dl, 'policy', box, 'reasons');
    }
    field(dl, 'asks', el('pre', 'whole', r.display));
    $('actions').classList.toggle('hidden', !waiting || !!r.deciding);
    $('btn-approve').disabled = !!r.truncated;
    const oc = state.outcomes.get(r.key);
    $('outcome').classList.toggle('hidden', !oc);
    if (oc) { $('outcome').className = 'outcome ' + oc.cls; $('outcome').textContent = oc.text; }
    const chunks = state.outputs.get(r.key) || [];
    $('output-box').classList.toggle('hidden', chunks.length === 0);
    const pre = $('output');
    pre.replaceChildren();
    for (const c of chunks) pre.append(el('span', c.stream === 'stderr' ? 'err' : '', c.text));
  }

  async function decide(verdict, reason) {
    const r = state.requests.find((x) => x.key === state.selected);
    if (!r) return;
    const path = '/api/team/' + r.key.split('/').map(encodeURIComponent).join('/') + '/' + (verdict === 'approved' ? 'approve' : 'deny');
    try {
      await api(path, { method: 'POST', body: verdict === 'approved' ? { hash: r.hash } : { reason: reason || '' } });
      state.outcomes.set(r.key, { cls: 'info', text: verdict + ': signed and sent; waiting for ' + r.host });
      r.deciding = true;
      render();
    } catch (e) {
      toast(e.message);
    }
  }

  function onEvent(ev) {
    if (ev.type === 'team') { load().catch((e) => banner(e.message)); return; }
    if (ev.type === 'team.output') {
      const list = state.outputs.get(ev.id) || [];
      const size = list.reduce((n, c) => n + c.text.length, 0);
      if (size < MAX_OUTPUT) list.push({ stream: ev.stream, text: ev.text });
      state.outputs.set(ev.id, list);
      if (ev.id === state.selected) renderDetail();
      return;
    }
    if (ev.type === 'team.outcome') {
      const t = ev.team || {};
      let oc;
      if (t.error) oc = { cls: 'bad', text: t.error };
      else {
        const code = t.exit_code === undefined || t.exit_code === null ? '' : ', exit ' + t.exit_code;
        oc = { cls: t.decision === 'approved' ? 'ok' : 'bad', text: t.decision + ' by ' + t.approver + code + (t.reason ? ': ' + t.reason : '') };
        if (!state.outputs.has(ev.id) && t.output) state.outputs.set(ev.id, [{ stream: 'stdout', text: t.output }]);
        if (t.lost) oc.text += ' (some live output was lost on the way)';
      }
      state.outcomes.set(ev.id, oc);
      if (ev.id === state.selected) renderDetail();
    }
  }

  // The indicator says the worse of the page's own connection (its live
  // events) and the server's to NATS (as GET /api/team last said).
  let events = { text: 'connecting…', cls: '' }, nats = null;

  function setConn(text, cls) {
    events = { text, cls };
    showConn();
  }

  function showConn() {
    let { text, cls } = events;
    if (cls === 'live' && nats && !nats.connected) {
      text = nats.error ? 'NATS unavailable: ' + nats.error : 'connecting to NATS…';
      cls = 'down';
    }
    $('conn').textContent = text;
    $('conn').className = 'conn ' + cls;
  }

  // signedOut says so wherever requests would be listed or shown:
  // "Nothing waiting" there would be a lie when requests are pending.
  function signedOut() {
    state.requests = [];
    state.selected = null;
    render();
    $('pending-empty').textContent = NOT_AUTHORISED;
    $('detail-empty').textContent = NOT_AUTHORISED;
    $('count-pending').textContent = '–';
    banner(NOT_AUTHORISED + ' This page keeps its sign-in in memory only, so a reload or an address already used signs it out.');
    setConn('signed out', 'down');
  }

  function move(d) {
    const keys = state.requests.map((r) => r.key);
    if (!keys.length) return;
    const i = keys.indexOf(state.selected);
    state.selected = keys[Math.max(0, Math.min(keys.length - 1, i + d))];
    render();
  }

  $('btn-approve').addEventListener('click', () => decide('approved'));
  $('btn-deny').addEventListener('click', () => { $('deny-form').classList.remove('hidden'); $('deny-reason').focus(); });
  $('deny-form').addEventListener('submit', (e) => {
    e.preventDefault();
    $('deny-form').classList.add('hidden');
    decide('denied', $('deny-reason').value);
    $('deny-reason').value = '';
  });
  $('deny-form').querySelector('.cancel').addEventListener('click', () => $('deny-form').classList.add('hidden'));
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'j') move(1);
    else if (e.key === 'k') move(-1);
    else if (e.key === 'a' && !$('btn-approve').disabled && !$('actions').classList.contains('hidden')) decide('approved');
    else if (e.key === 'd' && !$('actions').classList.contains('hidden')) { e.preventDefault(); $('btn-deny').click(); }
  });

  page.signIn(signedOut).then(() => page.connect({
    state: setConn,
    open: () => load().catch((e) => banner(e.message)),
    event: onEvent,
  }), signedOut);
})();
