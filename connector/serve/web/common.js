// What the two pages of `sandbox serve` share: the local dashboard
// (app.js) and the team approver (team.js, `serve --nats`). Every text
// from the server is already escaped (control, ANSI, bidi and zero-width
// characters made visible); it is only ever put on the page with
// textContent, never as HTML.
'use strict';

const page = (function () {
  // Sign-in: the address `sandbox serve` printed carries a one-time code
  // in its fragment (#code=...), which the browser never sends anywhere.
  // The page trades it once (POST /api/session) for a bearer token that
  // lives in this variable only: no cookie (a cookie of 127.0.0.1 would
  // reach every local server the browser visits), no storage.
  let token = null;
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (location.hash || location.search) history.replaceState(null, '', location.pathname);

  const $ = (id) => document.getElementById(id);

  // el builds an element whose text is set with textContent only.
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function ago(iso) {
    if (!iso) return '';
    const s = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
    if (s < 60) return s + 's ago';
    if (s < 3600) return Math.floor(s / 60) + 'm ago';
    if (s < 86400) return Math.floor(s / 3600) + 'h ago';
    return new Date(iso).toLocaleString();
  }

  function banner(text) {
    const b = $('banner');
    b.textContent = text;
    b.classList.toggle('hidden', !text);
  }

  let toastTimer = null;
  function toast(text) {
    const t = $('toast');
    t.textContent = text;
    t.classList.remove('hidden');
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.add('hidden'), 5000);
  }

  // signedOut is what the page does when the server no longer knows its
  // token (a 401): set by the page.
  let signedOut = () => {};

  async function signIn(onSignedOut) {
    if (onSignedOut) signedOut = onSignedOut;
    if (!code) throw new Error('signed out');
    const r = await fetch('/api/session', {
      method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const data = await r.json().catch(() => null);
    if (!r.ok || !data || !data.token) throw new Error((data && data.error) || ('HTTP ' + r.status));
    token = data.token;
  }

  // api calls the server with the token; opts.body is sent as JSON. A
  // refusal throws an Error carrying the status and the server's answer.
  async function api(path, opts) {
    const init = Object.assign({ credentials: 'omit', headers: {} }, opts || {});
    init.headers.Authorization = 'Bearer ' + token;
    if (init.body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(init.body);
    }
    const r = await fetch(path, init);
    const data = await r.json().catch(() => null);
    if (r.status === 401) signedOut();
    if (!r.ok) {
      const err = new Error((data && data.error) || ('HTTP ' + r.status));
      err.status = r.status; err.data = data;
      throw err;
    }
    return data;
  }

  // connect follows the live events (GET /api/events as a WebSocket, the
  // token in its subprotocols), and again after each loss, waiting twice
  // as long each time up to 10 s. on.state(text, cls) tells the page how
  // the connection is; on.open runs once it is up (load what may have
  // changed meanwhile); on.event gets each event.
  function connect(on) {
    let retry = 1000;
    const dial = () => {
      const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
      const ws = new WebSocket(proto + location.host + '/api/events', ['sandbox.v1', 'sandbox.token.' + token]);
      on.state('connecting…', '');
      ws.onopen = () => { retry = 1000; on.state('live', 'live'); on.open(); };
      ws.onmessage = (m) => {
        let ev;
        try { ev = JSON.parse(m.data); } catch (e) { return; } // not ours
        try { on.event(ev); } catch (e) { console.error(e); }
      };
      ws.onclose = () => {
        on.state('reconnecting…', 'down');
        setTimeout(dial, retry);
        retry = Math.min(retry * 2, 10000);
      };
    };
    dial();
  }

  return { $, el, ago, banner, toast, signIn, api, connect };
})();
