// concord's review console. Talks only to concord's own routes: GET /conflicts,
// GET /conflicts/{id}, GET /conflicts/stats, POST /conflicts/{id}/resolve,
// POST /conflicts/{id}/revert, GET /conflicts/{id}/history, GET /nodes/{id}/versions,
// GET /nodes/{id}/timeline, GET /nodes?state=quarantined, GET /sources, GET /events, GET /sweeps.
(function () {
  'use strict';

  const D = window.ConcordDiff;
  const $ = (id) => document.getElementById(id);
  const STRATEGY_WORDS = {
    new_is_current: 'new is current',
    old_is_current: 'old is current',
    keep_both: 'keep both',
    merge: 'merge',
  };
  const KEY_STRATEGY = { 1: 'new_is_current', 2: 'old_is_current', 3: 'keep_both', 4: 'merge' };

  // ---- state -------------------------------------------------------------------------------
  const state = {
    filters: { status: 'pending', type: '', label: '', by: '', order: 'oldest', quarantined: false },
    me: null,           // the key this console runs as (`GET /me`), once known
    pageSize: 50,       // ?limit= in the page's address changes it
    listChars: 300,     // the queue lists bodies cut to this; an opened conflict is fetched whole
    items: [],          // loaded conflicts, in queue order
    nextCursor: null,
    pendingTotal: null,
    capped: false,      // the quarantine queue holds more than it shows (QUARANTINE_CAP)
    selectedId: null,
    pos: 0,             // queue position of the selection (kept when it leaves the list)
    current: null,      // the conflict shown
    credibility: new Map(),
    undo: [],           // conflicts this tab resolved, newest last: { id, title }
    mine: new Set(),    // ids this tab just resolved or reverted (their events are echoes)
    nodes: new Map(),   // node id -> { title, quote }: actions and history name memories by these
    sides: new Map(),   // conflict id -> { old, new }: the node ids of its two sides, once seen
    lastEventId: null,
    loadSeq: 0,
  };

  // ---- small helpers -----------------------------------------------------------------------
  // Bidirectional controls in stored text would make it display in another order than it is
  // written ("invoice\u202Etxt.exe" read as "invoiceexe.txt"): the console shows each as a
  // visible marker instead of obeying it. The stored text is unchanged.
  const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
  function visible(text) {
    return String(text).replace(BIDI_CONTROLS,
      (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`);
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = visible(v);
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : visible(v));
    }
    for (const c of children.flat()) {
      if (c !== null && c !== undefined && c !== false) {
        node.append(c instanceof Node ? c : visible(c));
      }
    }
    return node;
  }

  const words = (s) => (s || '').replace(/[-_]/g, ' ');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function age(iso) {
    const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (s < 60) return 'just now';
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    const d = Math.floor(s / 86400);
    return d === 1 ? '1 day ago' : `${d} days ago`;
  }

  const when = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC') : '—');

  function labelsOf(c) {
    const all = new Set([...(c.old_node?.labels || []), ...(c.new_node?.labels || [])]);
    return [...all];
  }

  function titleOf(c) {
    return c.old_node?.title || c.new_node?.title || 'Untitled';
  }

  // A policy held the conflict's new memory back (state `quarantined`): not current until a
  // reviewer promotes it (new is current) or rejects it (old is current).
  const quarantined = (c) => c?.new_node?.state === 'quarantined';
  const held = (c) => c?.status === 'pending' && quarantined(c);

  // The rule that quarantined it, when a policy did.
  function quarantineRule(c) {
    const p = c.detection?.policy;
    return p && p.action === 'quarantine' && !p.dry_run ? p.name : null;
  }

  const quarantineBadge = () => el('span', { class: 'badge quarantined', text: 'Quarantined' });

  // Text with its `code` spans as <code> elements: a list of strings and elements for el(),
  // every piece inserted as text.
  function rich(text) {
    const out = [];
    let last = 0;
    const s = String(text ?? '');
    for (const m of s.matchAll(/`([^`\n]+)`/g)) {
      if (m.index > last) out.push(s.slice(last, m.index));
      out.push(el('code', { text: m[1] }));
      last = m.index + m[0].length;
    }
    if (last < s.length) out.push(s.slice(last));
    return out;
  }

  // ---- memories in words -------------------------------------------------------------------
  // A short quote of a side: where it first differs from the other side, else its start.
  function quoteOf(text, other) {
    const t = String(text || '');
    const flat = (x) => x.replace(/\s+/g, ' ').trim();
    if (t.length <= 70) return flat(t);
    let at = 0;
    if (other !== null && other !== undefined && t.length + String(other).length < 20000) {
      const { a } = D.diff(t, String(other));
      const first = a.find((x) => x.changed);
      if (first) at = first.start;
    }
    let from = Math.max(0, at - 20);
    if (from > 0) { const sp = t.lastIndexOf(' ', from); from = sp > at - 35 && sp >= 0 ? sp + 1 : from; }
    let to = Math.min(t.length, from + 60);
    if (to < t.length) { const sp = t.indexOf(' ', to); to = sp >= 0 && sp < to + 15 ? sp : to; }
    return `${from > 0 ? '…' : ''}${flat(t.slice(from, to))}${to < t.length ? '…' : ''}`;
  }

  // Remembers the conflict's two memories so that reports and history can name them, also
  // after one of them is deleted. Bodies may be cut (the queue lists them shortened); a full
  // copy replaces a cut one.
  function learn(c) {
    const known = state.sides.get(c.id) || {};
    const sides = { old: c.old_node?.id || known.old, new: c.new_node?.id || known.new };
    state.sides.set(c.id, sides);
    const oldText = c.old_node?.body;
    const newText = c.new_node ? c.new_node.body : c.new_content;
    for (const [n, other] of [[c.old_node, newText], [c.new_node, oldText]]) {
      if (!n) continue;
      const had = state.nodes.get(n.id);
      if (had && had.full && !c.full) continue;
      state.nodes.set(n.id, { title: n.title, quote: quoteOf(n.body, other), full: Boolean(c.full) });
    }
  }

  // "the old memory "Cache TTL" (“…TTL is 30 seconds…”)", or "a memory" when it is unknown.
  // The quote comes with the first mention only (`quoted` holds the ids already quoted).
  function memory(id, c, quoted) {
    const sides = (c && state.sides.get(c.id)) || {};
    const which = id === sides.old ? 'the old memory' : id === sides.new ? 'the new memory' : 'the memory';
    const n = state.nodes.get(id);
    if (!n) return which === 'the memory' ? 'a memory' : which;
    const quote = n.quote && !quoted?.has(id);
    quoted?.add(id);
    return quote ? `${which} "${n.title}" (“${n.quote}”)` : `${which} "${n.title}"`;
  }

  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

  // One action of a resolution or revert in words; its ids stay in the original summary, shown
  // on hover.
  function actionWords(a, c, quoted) {
    const m = (id) => memory(id, c, quoted);
    const n = a.count ?? 0;
    const links = n === 1 ? '1 link' : `${n} links`;
    switch (a.action) {
      case 'node_created': return `Created the new memory from the conflict's new text: ${m(a.node_id)}.`;
      case 'node_state_changed': return `${cap(m(a.node_id))} is now ${a.to} (was ${a.from}).`;
      case 'edge_created': return `${cap(m(a.source_id))} now ${words(a.kind)} ${m(a.target_id)}.`;
      case 'edge_deleted': return `${cap(m(a.source_id))} no longer ${words(a.kind)} ${m(a.target_id)}.`;
      case 'node_body_merged': {
        const k = a.chars_added ?? 0;
        return `The merged text replaced the body of ${m(a.node_id)} (${k >= 0 ? '+' : ''}${k} characters).`;
      }
      case 'edges_moved': return `${links} moved${/back/.test(a.summary || '') ? ' back' : ''} from ${m(a.from_node_id)} to ${m(a.to_node_id)}.`;
      case 'node_deleted': return /created by the resolution/.test(a.summary || '')
        ? `${cap(m(a.node_id))}, created by the resolution, was deleted.`
        : `${cap(m(a.node_id))} was deleted.`;
      case 'node_restored': return `${cap(m(a.node_id))} was restored.`;
      case 'node_body_restored': return `The text and labels of ${m(a.node_id)} were restored.`;
      case 'conflict_resolved': return 'The conflict is marked resolved.';
      default: return (a.summary || a.action || '').replace(UUID, (id) => m(id.toLowerCase()));
    }
  }

  function actionList(actions, c) {
    const quoted = new Set();
    return el('ul', { class: 'actions' }, actions.map((a) => el('li', {
      class: 'action', text: actionWords(a, c, quoted), title: a.summary || null, 'data-action': a.action,
    })));
  }

  // ---- API access --------------------------------------------------------------------------
  class Problem extends Error {
    constructor(status, body) {
      super(body?.detail || body?.title || `HTTP ${status}`);
      this.status = status;
      this.type = body?.type || '';
      this.title = body?.title || `HTTP ${status}`;
      this.detail = body?.detail || '';
      this.body = body || {};
    }
  }

  const apiKey = () => sessionStorage.getItem('concord.key');
  let keyWaiters = [];

  function authHeaders(extra) {
    const h = Object.assign({ Accept: 'application/json' }, extra || {});
    const k = apiKey();
    if (k) h.Authorization = `Bearer ${k}`;
    return h;
  }

  // Resolves once the reviewer has entered a key.
  function askForKey(rejected) {
    const dialog = $('key-dialog');
    // Several calls may be waiting at once; a rejection stays said until a new key is entered.
    if (rejected) {
      $('key-why').textContent = 'That key was not accepted. Enter a valid API key; it is kept for this browser tab only.';
    } else if (!dialog.open) {
      $('key-why').textContent = 'This concord needs an API key. It is kept for this browser tab only.';
    }
    if (!dialog.open) {
      closeDialogs();
      dialog.showModal();
      $('key-input').value = '';
      $('key-input').focus();
    }
    return new Promise((resolve) => keyWaiters.push(resolve));
  }

  async function api(method, path, body) {
    for (;;) {
      const sentKey = apiKey();
      const init = { method, headers: authHeaders(), cache: 'no-store' };
      if (body !== undefined) {
        init.headers['Content-Type'] = 'application/json';
        init.body = JSON.stringify(body);
      }
      const res = await fetch(path, init);
      if (res.status === 401) {
        if (apiKey() === sentKey) {
          sessionStorage.removeItem('concord.key');
          await askForKey(Boolean(sentKey));
        }
        continue;
      }
      const text = await res.text();
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
      if (!res.ok) throw new Problem(res.status, json);
      return json;
    }
  }

  // ---- problems and reports ----------------------------------------------------------------
  function plain(p) {
    const detail = p.detail ? ` ${p.detail}` : '';
    switch (p.type) {
      case '/problems/already-resolved': {
        const cur = p.body.current;
        const how = cur?.resolution ? ` as "${STRATEGY_WORDS[cur.resolution] || cur.resolution}"` : '';
        return `Someone else already resolved this conflict${how}.${detail}`;
      }
      case '/problems/stale-conflict':
        return `This conflict is out of date: the memory it would keep is no longer active.${detail}`;
      case '/problems/not-found':
        return `This conflict no longer exists.${detail}`;
      case '/problems/validation': {
        const errs = (p.body.errors || []).map((e) => `${e.pointer}: ${e.detail}`).join('; ');
        return `concord did not accept that.${detail}${errs ? ` (${errs})` : ''}`;
      }
      case '/problems/not-resolved':
        return `There is nothing to undo: this conflict is pending.${detail}`;
      case '/problems/revert-conflict':
        return `This resolution cannot be undone: later changes are in the way.${detail}`;
      case '/problems/unavailable':
      case '/problems/overloaded':
      case '/problems/timeout':
        return `concord could not do this right now; try again in a moment.${detail}`;
      case '/problems/resolution-failed':
        return `The resolution failed and nothing was changed; you can try again.${detail}`;
      default:
        return p instanceof Problem ? `${p.title}.${detail}` : `Could not reach concord (${p.message}).`;
    }
  }

  function showProblem(prefix, err) {
    $('problem-text').textContent = visible(`${prefix}: ${plain(err)}`);
    $('problem').hidden = false;
  }

  function clearProblem() {
    $('problem').hidden = true;
    $('problem-text').textContent = '';
  }

  function report(headline, actions, c) {
    const box = $('report');
    box.replaceChildren(el('p', { class: 'headline', text: headline }));
    if (actions && actions.length) box.append(actionList(actions, c));
  }

  // ---- counts ------------------------------------------------------------------------------
  let statsTimer = null;
  function refreshStats() {
    // Coalesced: a burst of events costs one request.
    if (statsTimer) return;
    statsTimer = setTimeout(async () => {
      statsTimer = null;
      try {
        const s = await api('GET', '/conflicts/stats');
        const oldest = s.oldest_pending_at ? `, oldest queued ${age(s.oldest_pending_at)}` : '';
        $('counts').textContent = `${s.pending} pending · ${s.resolved} resolved${oldest}`;
      } catch (e) {
        $('counts').textContent = 'Counts unavailable';
      }
    }, 50);
  }

  // ---- sweep banner -------------------------------------------------------------------------
  // While a sweep compares the stored memories, a banner says how far it got; it is read again
  // on each sweep event and every two seconds while one runs.
  let sweepTimer = null;
  async function refreshSweep() {
    clearTimeout(sweepTimer);
    sweepTimer = null;
    let s = null;
    try {
      const res = await api('GET', '/sweeps?limit=1');
      s = res.items[0] || null;
    } catch (_) {
      return; // the banner stays as it was
    }
    const banner = $('sweep');
    if (!s || s.status !== 'running') {
      banner.hidden = true;
      return;
    }
    const n = (x) => Number(x).toLocaleString('en');
    const parts = [`Sweep running: ${n(s.compared)} of ${n(s.total)} memories compared`,
      `${n(s.conflicts_queued)} conflict${s.conflicts_queued === 1 ? '' : 's'} queued`];
    if (s.rate) parts.push(`${n(Math.round(s.rate))}/s`);
    if (s.eta_s !== null && s.eta_s !== undefined) parts.push(`about ${Math.max(1, Math.round(s.eta_s))} s left`);
    $('sweep-text').textContent = parts.join(' · ');
    const bar = $('sweep-progress');
    bar.max = Math.max(1, s.total);
    bar.value = s.compared;
    banner.hidden = false;
    sweepTimer = setTimeout(refreshSweep, 2000);
  }

  async function refreshSources() {
    try {
      const res = await api('GET', '/sources');
      state.credibility = new Map(res.items.map((s) => [s.source, s]));
    } catch (_) {
      // Credibility is shown as unknown; the queue still works.
    }
  }

  // ---- queue -------------------------------------------------------------------------------
  function queryString(extra) {
    const f = state.filters;
    const q = new URLSearchParams({
      status: f.status, order: f.order, limit: String(state.pageSize), max_chars: String(state.listChars),
    });
    if (f.type) q.set('conflict_type', f.type);
    if (f.label) q.set('label', f.label);
    if (f.by && f.status !== 'pending') q.set('resolved_by', f.by);
    for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
    return q.toString();
  }

  function matchesFilters(c) {
    const f = state.filters;
    if (f.status !== 'all' && c.status !== f.status) return false;
    if (f.type && c.conflict_type !== f.type) return false;
    if (f.label && !labelsOf(c).includes(f.label.trim().toLowerCase())) return false;
    if (f.by && f.status !== 'pending' && !resolvedBy(c, f.by)) return false;
    if (f.quarantined && !held(c)) return false;
    return true;
  }

  // `resolved_by` filter: a name exactly, or `policy:*` / `mcp:*` for every name so prefixed.
  function resolvedBy(c, by) {
    if (!c.resolved_by) return false;
    return by.endsWith('*') ? c.resolved_by.startsWith(by.slice(0, -1)) : c.resolved_by === by;
  }

  // The whole conflict (the queue holds shortened bodies), remembered for naming its memories.
  async function fetchConflict(id) {
    const c = await api('GET', `/conflicts/${id}`);
    c.full = true;
    learn(c);
    return c;
  }

  // The number of pending conflicts that match the filters, asked again after any change to
  // the queue (counting locally drifts when events and replies cross). Coalesced; the latest
  // answer wins.
  let pendingTimer = null;
  let pendingSeq = 0;
  function refreshPending() {
    // The quarantine queue is loaded whole: what it shows is what waits.
    if (pendingTimer || state.filters.quarantined) return;
    pendingTimer = setTimeout(async () => {
      pendingTimer = null;
      const seq = ++pendingSeq;
      const load = state.loadSeq;
      try {
        const page = await api('GET', `/conflicts?${queryString({ status: 'pending', limit: '1', max_chars: '1' })}`);
        if (seq !== pendingSeq || load !== state.loadSeq) return;
        state.pendingTotal = page.pending_total;
        renderQueue();
      } catch (_) { /* the count stays as it was */ }
    }, 50);
  }

  // The quarantine queue: every pending conflict whose new memory is quarantined. It is read
  // from the quarantined memories themselves (`GET /nodes?state=quarantined`, each with its
  // pending `conflict_ids`), so it is complete however deep in the queue they wait; their
  // conflicts are then read whole, and filtered and ordered here.
  const QUARANTINE_CAP = 1000;
  async function quarantineQueue() {
    const ids = new Set();
    let cursor = null;
    do {
      const q = new URLSearchParams({ state: 'quarantined', limit: '200' });
      if (cursor) q.set('cursor', cursor);
      const page = await api('GET', `/nodes?${q}`);
      for (const n of page.items) for (const id of n.conflict_ids || []) ids.add(id);
      cursor = page.next_cursor;
    } while (cursor);
    // IDs are UUID v7, so their order is the order the conflicts were queued in.
    const wanted = [...ids].sort();
    if (state.filters.order === 'newest') wanted.reverse();
    const capped = wanted.length > QUARANTINE_CAP;
    wanted.length = Math.min(wanted.length, QUARANTINE_CAP);
    const found = [];
    let next = 0;
    // A few at a time.
    await Promise.all(Array.from({ length: Math.min(6, wanted.length) }, async () => {
      while (next < wanted.length) {
        const id = wanted[next++];
        try {
          found.push(await fetchConflict(id));
        } catch (e) {
          if (!(e instanceof Problem && e.status === 404)) throw e; // resolved and gone since
        }
      }
    }));
    const sign = state.filters.order === 'newest' ? -1 : 1;
    const items = found.filter(matchesFilters).sort((a, b) => sign * (
      a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
    return { items, capped };
  }

  async function loadQueue() {
    const seq = ++state.loadSeq;
    $('queue-summary').textContent = 'Loading…';
    try {
      if (state.filters.quarantined) {
        const { items, capped } = await quarantineQueue();
        if (seq !== state.loadSeq) return;
        state.items = items;
        state.nextCursor = null;
        state.pendingTotal = null;
        state.capped = capped;
        renderQueue();
        return;
      }
      state.capped = false;
      const page = await api('GET', `/conflicts?${queryString()}`);
      if (seq !== state.loadSeq) return;
      state.items = page.items;
      page.items.forEach(learn);
      state.nextCursor = page.next_cursor;
      state.pendingTotal = page.pending_total;
      renderQueue();
    } catch (e) {
      if (seq !== state.loadSeq) return;
      $('queue-summary').textContent = 'The queue could not be loaded.';
      showProblem('Loading the queue', e);
    }
  }

  async function loadMore() {
    if (!state.nextCursor) return false;
    try {
      const page = await api('GET', `/conflicts?${queryString({ cursor: state.nextCursor })}`);
      const known = new Set(state.items.map((c) => c.id));
      state.items.push(...page.items.filter((c) => !known.has(c.id)));
      page.items.forEach(learn);
      state.nextCursor = page.next_cursor;
      state.pendingTotal = page.pending_total;
      renderQueue();
      return page.items.length > 0;
    } catch (e) {
      showProblem('Loading more conflicts', e);
      return false;
    }
  }

  function queueItem(c) {
    const rec = c.recommendation;
    const recText = rec.strategy ? STRATEGY_WORDS[rec.strategy] : 'ask a person';
    const labels = labelsOf(c);
    const selected = c.id === state.selectedId;
    const cls = [selected ? 'selected' : '', quarantined(c) ? 'quarantined' : ''].join(' ').trim();
    return el('li', { 'data-id': c.id, class: cls || null },
      el('button', {
        type: 'button',
        class: 'item',
        'aria-current': selected ? 'true' : null,
        onclick: () => openConflict(c.id),
      },
      el('span', { class: 'item-title', text: titleOf(c) }),
      el('span', { class: 'item-meta' },
        el('span', { class: `type t-${c.conflict_type}`, text: words(c.conflict_type) }),
        el('time', { datetime: c.created_at, title: when(c.created_at), text: age(c.created_at) }),
        el('span', { class: 'rec', text: `→ ${recText}` }),
        quarantined(c) ? quarantineBadge() : null,
        c.status !== 'pending' ? el('span', { class: 'status', text: c.status }) : null),
      labels.length ? el('span', { class: 'labels' }, labels.map((l) => el('span', { class: 'label', text: l }))) : null));
  }

  function renderQueue() {
    const list = $('queue-list');
    list.replaceChildren(...state.items.map(queueItem));
    const f = state.filters;
    const shown = state.items.length;
    let text;
    if (f.quarantined) {
      text = shown ? `${shown} quarantined ${shown === 1 ? 'conflict' : 'conflicts'} shown` : 'No quarantined conflicts match.';
      if (state.capped) text += ` (only the ${f.order} ${QUARANTINE_CAP} are listed)`;
    } else {
      const what = f.status === 'all' ? 'conflicts' : `${f.status} conflicts`;
      text = shown ? `${shown} ${what} shown` : `No ${what} match.`;
      if (state.pendingTotal !== null && f.status !== 'resolved') text += ` · ${state.pendingTotal} pending match the filters`;
    }
    $('queue-summary').textContent = text;
    $('more').hidden = !state.nextCursor;
  }

  function removeFromQueue(id) {
    const i = state.items.findIndex((c) => c.id === id);
    if (i < 0) return;
    state.items.splice(i, 1);
    if (i < state.pos) state.pos -= 1;
    const li = $('queue-list').querySelector(`li[data-id="${id}"]`);
    if (li) li.remove();
    renderQueue();
    refreshPending();
  }

  function upsertQueue(c) {
    const i = state.items.findIndex((x) => x.id === c.id);
    if (!matchesFilters(c)) {
      if (i >= 0) removeFromQueue(c.id);
      else refreshPending();
      return;
    }
    if (i >= 0) {
      state.items[i] = c;
    } else if (state.filters.order === 'newest') {
      state.items.unshift(c);
      if (state.selectedId) state.pos += 1;
    } else if (!state.nextCursor) {
      // Oldest first: it belongs after everything loaded, unless more pages wait before it.
      let at = state.items.findIndex((x) => x.created_at > c.created_at);
      if (at < 0) at = state.items.length;
      state.items.splice(at, 0, c);
      if (at <= state.pos && state.selectedId && state.selectedId !== c.id) state.pos += 1;
    } else {
      refreshPending();
      return;
    }
    renderQueue();
    refreshPending();
  }

  // ---- the conflict view -------------------------------------------------------------------
  function bodyView(text, other, side, evidence) {
    const { a, b } = side === 'old' ? D.diff(text, other) : D.diff(other, text);
    const tokens = side === 'old' ? a : b;
    const segs = D.segments(tokens, D.ranges(text, evidence));
    const box = el('div', {
      class: 'body', tabindex: '0', role: 'region',
      'aria-label': `${side === 'old' ? 'Old' : 'New'} memory, full text`,
    });
    for (const s of segs) {
      if (s.changed) {
        box.append(el(side === 'old' ? 'del' : 'ins', { class: s.evidence ? 'evidence' : null, text: s.text }));
      } else if (s.evidence) {
        box.append(el('mark', { class: 'evidence', text: s.text }));
      } else {
        box.append(visible(s.text));
      }
    }
    return box;
  }

  function credibilityText(source) {
    if (!source) return 'no source recorded';
    const s = state.credibility.get(source);
    const start = s && s.trust !== undefined ? `, trusted from ${s.trust.toFixed(2)}` : '';
    if (!s) return 'no verdicts yet (0.50)';
    return `${s.credibility.toFixed(2)} (upheld ${s.upheld}, contradicted ${s.contradicted}${start})`;
  }

  // What a memory's own words and source say of it (GET /nodes: `evidence`).
  function evidenceText(e) {
    if (!e) return '—';
    const why = e.reasons.length ? e.reasons.join('; ') : 'no cue either way';
    return `${e.strength.toFixed(2)} (${why})${e.injection ? ': reads as an instruction to the store' : ''}`;
  }

  function facts(rows) {
    return el('dl', { class: 'facts' }, rows.flatMap(([k, v]) => [
      el('dt', { text: k }),
      v instanceof Node ? el('dd', {}, v) : el('dd', { text: v }),
    ]));
  }

  // A side's labels, those the other side lacks marked like the words only on this side.
  function labelsView(labels, otherLabels, side) {
    if (!labels.length) return '—';
    const other = otherLabels ? new Set(otherLabels) : null;
    const box = el('span', { class: 'side-labels' });
    labels.forEach((l, i) => {
      if (i) box.append(', ');
      const only = other !== null && !other.has(l);
      box.append(only
        ? el(side === 'old' ? 'del' : 'ins', { class: 'label-only', text: l, title: `only on the ${side} side` })
        : el('span', { text: l }));
    });
    return box;
  }

  function sideView(c, side, evidence) {
    const node = side === 'old' ? c.old_node : c.new_node;
    const oldText = c.old_node ? c.old_node.body : '';
    const newText = c.new_node ? c.new_node.body : (c.new_content || '');
    const text = side === 'old' ? oldText : newText;
    const other = side === 'old' ? newText : oldText;
    const heading = side === 'old' ? 'Old memory' : 'New memory';
    const rows = node
      ? [
        ['Title', node.title],
        ['Source', node.source || '—'],
        ['Credibility', credibilityText(node.source)],
        ['Evidence strength', evidenceText(node.evidence)],
        ['Confidence', node.confidence.toFixed(2)],
        ['Observed', when(node.observed_at)],
        ['Labels', labelsView(node.labels, (side === 'old' ? c.new_node : c.old_node)?.labels, side)],
        ['Memory type', node.memory_type],
        ['State', node.state],
      ]
      : [['Stored as', side === 'new' && c.new_content !== null ? 'text only (no node yet)' : 'deleted since']];
    return el('section', { class: `side ${side}`, 'aria-labelledby': `side-${side}` },
      el('h3', { id: `side-${side}` }, heading, node ? null : el('span', { class: 'muted', text: ' (no node)' }),
        side === 'new' && quarantined(c) ? [' ', quarantineBadge()] : null),
      facts(rows),
      bodyView(text, other, side, evidence),
      node ? el('details', { class: 'versions', id: `versions-${side}` },
        el('summary', { text: 'Versions' }),
        el('div', { class: 'versions-body' }, el('p', { class: 'muted', text: 'Loading…' }))) : null);
  }

  // ---- versions and timeline ---------------------------------------------------------------
  const minute = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '—');
  const day = (iso) => (iso ? iso.slice(0, 10) : '—');

  // What one version changed from the one before it, in words.
  function versionChanges(v, prev) {
    if (v.kind === 'deleted') return ['deleted'];
    if (!prev) return [v.state];
    const out = [];
    if (v.state !== prev.state) out.push(`now ${v.state} (was ${prev.state})`);
    if (v.title !== prev.title) out.push('title edited');
    if (v.body !== prev.body) out.push('text edited');
    const had = new Set(prev.labels);
    const has = new Set(v.labels);
    const added = v.labels.filter((l) => !had.has(l));
    const removed = prev.labels.filter((l) => !has.has(l));
    if (added.length || removed.length) {
      out.push(`labels ${[...added.map((l) => `+${l}`), ...removed.map((l) => `−${l}`)].join(' ')}`);
    }
    if (v.memory_type !== prev.memory_type) out.push(`type ${v.memory_type} (was ${prev.memory_type})`);
    if (v.source !== prev.source) out.push(`source ${v.source || 'none'}`);
    if (v.confidence !== prev.confidence) out.push(`confidence ${v.confidence.toFixed(2)} (was ${prev.confidence.toFixed(2)})`);
    if (v.observed_at !== prev.observed_at) out.push(`observed ${day(v.observed_at)}`);
    if (v.corrected && !prev.corrected) out.push('corrected: never held');
    else if (v.valid_until && v.valid_until !== prev.valid_until && !v.corrected) out.push(`ended: held until ${day(v.valid_until)}`);
    else if (!v.valid_until && prev.valid_until) out.push('holds again');
    if (!v.corrected && prev.corrected) out.push('no longer corrected');
    return out.length ? out : ['no visible change'];
  }

  function conflictWords(id, c) {
    if (!id) return '';
    if (id === c.id) return ' in this conflict';
    const other = state.items.find((x) => x.id === id);
    return other ? ` in conflict "${titleOf(other)}"` : ' in another conflict';
  }

  function versionLine(v, prev, c) {
    const who = v.changed_by ? ` by ${v.changed_by}` : '';
    const how = v.kind === 'changed' ? `changed${who}` : v.kind === 'deleted' ? `deleted${who}` : `${prev ? 'restored' : 'created'}${who}`;
    const ids = [`memory ${v.node_id}`, `version ${v.version}`];
    if (v.conflict_id) ids.push(`conflict ${v.conflict_id}`);
    return el('li', {
      class: `version k-${v.kind}`, title: ids.join(' · '), 'data-version': String(v.version),
      text: `v${v.version} · ${minute(v.recorded_at)} · ${how}${conflictWords(v.conflict_id, c)} · ${versionChanges(v, prev).join(', ')}`,
    });
  }

  // Each side's versions, one request per side, when the conflict opens.
  async function loadVersions(c) {
    await Promise.all(['old', 'new'].map(async (side) => {
      const node = side === 'old' ? c.old_node : c.new_node;
      if (!node) return;
      let content;
      let count = null;
      try {
        const page = await api('GET', `/nodes/${node.id}/versions?limit=100`);
        count = page.next_cursor ? `${page.items.length}+` : String(page.items.length);
        content = page.items.length
          ? el('ol', { class: 'version-list' }, page.items.map((v, i) => versionLine(v, page.items[i - 1], c)))
          : el('p', { class: 'muted', text: 'No versions recorded.' });
      } catch (e) {
        const missing = e instanceof Problem && (e.status === 404 || e.status === 405);
        content = el('p', { class: 'muted', text: missing ? 'Versions unavailable.' : `Versions could not be loaded: ${plain(e)}` });
      }
      if (state.current?.id !== c.id) return;
      const box = $(`versions-${side}`);
      if (!box) return;
      box.querySelector('summary').textContent = count === null ? 'Versions' : `Versions (${count})`;
      box.querySelector('.versions-body').replaceChildren(content);
    }));
  }

  function timelineEntry(e, t, c) {
    const n = e.node;
    const sides = state.sides.get(c.id) || {};
    const which = n.id === sides.old ? 'old memory' : n.id === sides.new ? 'new memory' : null;
    const interval = n.corrected
      ? 'never held'
      : `${day(n.observed_at)} → ${n.valid_until ? day(n.valid_until) : 'now'}`;
    const r = e.replaced_by;
    let replaced = '';
    if (r) {
      const winner = t.entries.find((x) => x.node.id === r.node_id);
      const whom = winner ? `"${winner.node.title}"` : 'a later memory';
      const by = r.resolved_by ? ` as decided by ${r.resolved_by}` : '';
      const at = r.resolved_at ? ` on ${day(r.resolved_at)}` : '';
      const here = r.conflict_id === c.id ? ' in this conflict' : '';
      replaced = `replaced by ${whom}${by}${at}${here}`;
    }
    const ids = [`memory ${n.id}`];
    if (r?.conflict_id) ids.push(`conflict ${r.conflict_id}`);
    return el('li', { class: which ? 'entry this-conflict' : 'entry', title: ids.join(' · ') },
      el('span', { class: 'entry-when', text: interval }), ' ',
      el('strong', { text: `"${n.title}"` }), ` (“${quoteOf(n.body)}”)`,
      which ? el('span', { class: 'entry-side', text: ` · this conflict's ${which}` }) : null,
      ` · ${n.state}`,
      replaced ? ` · ${replaced}` : null);
  }

  // The chain of memories a resolved conflict belongs to, oldest first.
  async function loadTimeline(c) {
    const id = c.old_node?.id || c.new_node?.id;
    if (!id) return;
    let content;
    try {
      const t = await api('GET', `/nodes/${id}/timeline`);
      content = [
        el('p', { class: 'timeline-summary', text: t.summary }),
        el('ol', { class: 'timeline-list' }, t.entries.map((e) => timelineEntry(e, t, c))),
      ];
    } catch (e) {
      const missing = e instanceof Problem && (e.status === 404 || e.status === 405);
      content = [el('p', { class: 'muted', text: missing ? 'Timeline unavailable.' : `Timeline could not be loaded: ${plain(e)}` })];
    }
    if (state.current?.id !== c.id) return;
    const box = $('timeline-body');
    if (box) box.replaceChildren(...content);
  }

  // The key this console runs as (`GET /me`): its role decides which controls it offers.
  async function loadMe() {
    try {
      state.me = await api('GET', '/me');
    } catch (e) {
      // An older concord without `/me`: offer everything, as before; the API still decides.
      state.me = null;
      return;
    }
    const me = state.me;
    // Without keys every request is the anonymous admin: nothing worth a line.
    if (me.name === 'anonymous') return;
    const line = $('signed-in');
    line.textContent = `Key ${me.name}: ${me.role} of ${me.scopes.join(', ')}`;
    line.hidden = false;
  }

  // Whether the key may resolve and revert (reviewers and admins).
  const mayResolve = () => !state.me || state.me.permissions.includes('resolve');

  function decisionBar(c) {
    if (!mayResolve()) {
      return el('p', { class: 'decisions muted', id: 'read-only',
        text: `Your key is a ${state.me.role}: it may read the queue but not resolve or undo.` });
    }
    const pending = c.status === 'pending';
    const rec = c.recommendation.strategy;
    const button = (key, strategy, label, title) => el('button', {
      type: 'button',
      class: rec === strategy ? 'decide recommended' : 'decide',
      disabled: !pending,
      'aria-keyshortcuts': key,
      title,
      onclick: () => decide(strategy),
    }, el('kbd', { text: key }), ` ${label}`);
    // A quarantined new memory waits to be promoted or rejected: the same two keys, said so.
    const q = pending && quarantined(c);
    return el('div', { class: q ? 'decisions held' : 'decisions', role: 'group', 'aria-label': 'Decision' },
      q ? button('1', 'new_is_current', 'Promote', 'Promote the quarantined memory: it becomes current, the old one goes dormant (new is current)')
        : button('1', 'new_is_current', 'New is current'),
      q ? button('2', 'old_is_current', 'Reject', 'Reject the quarantined memory: it goes dormant, the old one stays current (old is current)')
        : button('2', 'old_is_current', 'Old is current'),
      el('label', { class: 'reason' }, el('span', { text: 'Reason' }),
        el('select', { id: 'reason', disabled: !pending, title: 'Why the losing side stops holding (new is current / old is current only)' },
          el('option', { value: '', text: 'let concord choose' }),
          el('option', { value: 'update', text: 'update: it held until then' }),
          el('option', { value: 'correction', text: 'correction: it never held' }))),
      button('3', 'keep_both', 'Keep both', q ? 'Keep both current: this promotes the quarantined memory too' : null),
      button('4', 'merge', 'Merge…'),
      el('label', { class: 'note' }, el('span', {}, el('kbd', { text: 'n' }), ' Note'),
        el('input', { id: 'note', type: 'text', disabled: !pending, autocomplete: 'off', placeholder: 'sent with the decision' })),
      el('button', { type: 'button', id: 'undo', 'aria-keyshortcuts': 'u', onclick: undo },
        el('kbd', { text: 'u' }), ' Undo last'));
  }

  // Why the new memory waits, and what the two decisions do with it.
  function quarantineView(c) {
    if (!quarantined(c)) return null;
    const rule = quarantineRule(c);
    return el('section', { class: 'quarantine', 'aria-labelledby': 'quarantine-title' },
      el('h3', { id: 'quarantine-title' }, quarantineBadge(), rule ? ` by policy ${rule}` : ' new memory'),
      el('p', {}, 'The new memory is kept out of current reads and recall until a reviewer ',
        el('strong', { text: 'promotes' }), ' it (', el('kbd', { text: '1' }), ': it becomes current, the old one goes dormant) or ',
        el('strong', { text: 'rejects' }), ' it (', el('kbd', { text: '2' }), ': it goes dormant).'),
      c.note && c.status === 'pending'
        ? el('p', { class: 'quarantine-reason' }, el('strong', { text: 'Reason: ' }), rich(c.note))
        : null);
  }

  function resolutionView(c) {
    if (c.status !== 'resolved') return null;
    const how = STRATEGY_WORDS[c.resolution] || c.resolution;
    const by = c.resolved_by ? ` by ${c.resolved_by}` : '';
    return el('section', { class: 'resolved', 'aria-label': 'Resolution' },
      el('p', { text: `Resolved as "${how}"${by} on ${when(c.resolved_at)}.` }),
      c.note ? el('p', {}, 'Note: ', rich(c.note)) : null,
      c.actions?.length ? actionList(c.actions, c) : null,
      el('button', { type: 'button', id: 'revert', onclick: () => revert(c.id, titleOf(c)) },
        'Undo this resolution'));
  }

  function renderConflict(c) {
    const view = $('conflict');
    const det = c.detection;
    const rec = c.recommendation;
    const evidence = D.quotes(det.explanation);
    const recWhat = rec.strategy ? `"${STRATEGY_WORDS[rec.strategy]}"` : 'a person decides';
    const signals = det.signals.length ? `, signals ${det.signals.map(words).join(', ')}` : '';
    const parts = [
      el('header', { class: 'conflict-head' },
        el('button', { type: 'button', class: 'back', onclick: closeConflict }, '← Queue'),
        el('h2', { id: 'conflict-title', tabindex: '-1' }, titleOf(c)),
        el('p', { class: 'meta' },
          el('span', { class: `type t-${c.conflict_type}`, text: words(c.conflict_type) }),
          el('span', { class: `status s-${c.status}`, text: c.status }),
          el('span', { text: `queued ${age(c.created_at)}`, title: when(c.created_at) }))),
      el('p', { class: 'explanation' },
        el('strong', { text: 'Why flagged: ' }),
        rich(det.explanation), ` (${det.tier} tier, probability ${det.probability.toFixed(2)}${signals})`),
      el('p', { class: 'recommendation' },
        el('strong', { text: 'Recommendation: ' }),
        `${recWhat} (${words(rec.resolution)}). `, rich(rec.reasoning)),
      quarantineView(c),
      c.note && c.status === 'pending' && !quarantined(c) ? el('p', { class: 'queued-note' }, 'Note when queued: ', rich(c.note)) : null,
      resolutionView(c),
      c.status === 'resolved' && (c.old_node || c.new_node)
        ? el('section', { class: 'timeline', 'aria-labelledby': 'timeline-title' },
          el('h3', { id: 'timeline-title', text: 'Timeline' }),
          el('div', { id: 'timeline-body' }, el('p', { class: 'muted', text: 'Loading…' })))
        : null,
      el('p', { class: 'legend' }, 'Marked words differ between the sides: ',
        el('del', { text: 'only in old' }), ', ', el('ins', { text: 'only in new' }), ', ',
        el('mark', { class: 'evidence', text: 'quoted by the detector' }), '.'),
      el('div', { class: 'sides' }, sideView(c, 'old', evidence), sideView(c, 'new', evidence)),
      decisionBar(c),
      el('section', { class: 'history', 'aria-labelledby': 'history-title' },
        el('h3', { id: 'history-title', text: 'History' }),
        el('div', { id: 'history-body' }, el('p', { class: 'muted', text: 'Loading…' }))),
    ];
    view.replaceChildren(...parts.filter(Boolean));
    view.hidden = false;
    $('empty').hidden = true;
    document.body.classList.add('reading');
    loadHistory(c.id);
    loadVersions(c);
    if (c.status === 'resolved') loadTimeline(c);
  }

  async function loadHistory(id) {
    let content;
    try {
      const h = await api('GET', `/conflicts/${id}/history`);
      content = h.items.length
        ? el('ol', { class: 'events' }, h.items.map((e) => el('li', {},
          el('time', { datetime: e.at, text: when(e.at) }), ' ',
          el('strong', { text: words(e.kind) }),
          e.resolution ? ` "${STRATEGY_WORDS[e.resolution] || e.resolution}"` : '',
          e.by ? ` by ${e.by}` : '',
          e.note ? [' (note: ', ...rich(e.note), ')'] : '',
          e.actions?.length ? actionList(e.actions, state.current) : null)))
        : el('p', { class: 'muted', text: 'No history yet.' });
    } catch (e) {
      const missing = e instanceof Problem && (e.status === 404 || e.status === 405);
      content = el('p', { class: 'muted', text: missing ? 'History unavailable.' : `History could not be loaded: ${plain(e)}` });
    }
    if (state.current?.id !== id) return;
    const box = $('history-body');
    if (box) box.replaceChildren(content);
  }

  async function openConflict(id, opts) {
    clearProblem();
    const cached = state.items.find((c) => c.id === id);
    state.selectedId = id;
    if (cached) learn(cached);
    const i = state.items.findIndex((c) => c.id === id);
    if (i >= 0) state.pos = i;
    let c = cached?.full && !opts?.fresh ? cached : null;
    if (!c) {
      try {
        c = await fetchConflict(id);
      } catch (e) {
        showProblem('Opening the conflict', e);
        return;
      }
      if (state.selectedId !== id) return;
    }
    state.current = c;
    history.replaceState(null, '', `${location.pathname}${location.search}#${id}`);
    renderConflict(c);
    for (const li of $('queue-list').children) {
      const on = li.dataset.id === id;
      li.classList.toggle('selected', on);
      const b = li.querySelector('button');
      if (on) b?.setAttribute('aria-current', 'true');
      else b?.removeAttribute('aria-current');
    }
    if (!opts?.keepFocus) $('conflict-title').focus();
  }

  function closeConflict() {
    state.current = null;
    state.selectedId = null;
    $('conflict').hidden = true;
    $('empty').hidden = false;
    document.body.classList.remove('reading');
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    const first = $('queue-list').querySelector('li.selected button') || $('queue-list').querySelector('button');
    if (first) first.focus();
  }

  // Opens the next (1) or previous (-1) conflict of the queue; false when there is none.
  async function step(delta) {
    let i = state.items.findIndex((c) => c.id === state.selectedId);
    // The selection left the list (resolved): the next one slid into its place.
    if (i < 0) i = delta > 0 ? state.pos - 1 : state.pos;
    const j = Math.max(0, i + delta);
    if (j >= state.items.length && state.nextCursor) await loadMore();
    if (j >= state.items.length) return false;
    await openConflict(state.items[j].id);
    return true;
  }

  function showEmpty() {
    state.current = null;
    state.selectedId = null;
    $('conflict').hidden = true;
    const empty = $('empty');
    empty.hidden = false;
    empty.textContent = state.items.length
      ? 'No more pending conflicts in this list.'
      : 'The queue is empty. New conflicts appear here as they are queued.';
    document.body.classList.remove('reading');
    empty.focus();
  }

  // ---- deciding ----------------------------------------------------------------------------
  function reviewer() {
    return localStorage.getItem('concord.reviewer');
  }

  function askName() {
    const dialog = $('name-dialog');
    $('name-input').value = reviewer() || '';
    dialog.showModal();
    $('name-input').focus();
    return new Promise((resolve) => {
      const done = (ok) => {
        $('name-form').onsubmit = null;
        $('name-cancel').onclick = null;
        dialog.onclose = null;
        resolve(ok);
      };
      $('name-form').onsubmit = (ev) => {
        ev.preventDefault();
        const name = $('name-input').value.trim();
        if (!name) return;
        localStorage.setItem('concord.reviewer', name);
        showReviewer();
        dialog.close();
        done(true);
      };
      $('name-cancel').onclick = () => { dialog.close(); };
      dialog.onclose = () => done(Boolean(reviewer()));
    });
  }

  function showReviewer() {
    $('reviewer').textContent = reviewer() || '(no name yet)';
  }

  function mergeText(c) {
    const day = new Date().toISOString().slice(0, 10);
    const added = c.new_node ? c.new_node.body : (c.new_content || '');
    return `${c.old_node ? c.old_node.body : ''}\n\n--- Merged (${day}) ---\n\n${added}`;
  }

  function editMerge(c) {
    const dialog = $('merge-dialog');
    const text = $('merge-text');
    text.value = mergeText(c);
    dialog.showModal();
    text.focus();
    text.setSelectionRange(0, 0);
    return new Promise((resolve) => {
      const done = (value) => {
        $('merge-form').onsubmit = null;
        dialog.onclose = null;
        resolve(value);
      };
      $('merge-form').onsubmit = (ev) => {
        ev.preventDefault();
        const value = text.value;
        dialog.close();
        done(value);
      };
      $('merge-cancel').onclick = () => dialog.close();
      dialog.onclose = () => done(null);
    });
  }

  let busy = false;

  async function decide(strategy) {
    const c = state.current;
    if (!c || busy || !mayResolve()) return;
    if (c.status !== 'pending') {
      report(`"${titleOf(c)}" is already resolved; there is nothing to decide.`);
      return;
    }
    busy = true;
    try {
      if (!reviewer() && !(await askName())) return;
      const body = { resolution: strategy, resolved_by: reviewer() };
      const note = $('note')?.value.trim();
      if (note) body.note = note;
      const reason = $('reason')?.value;
      if (reason && (strategy === 'new_is_current' || strategy === 'old_is_current')) body.reason = reason;
      if (strategy === 'merge') {
        const merged = await editMerge(c);
        if (merged === null) { $('conflict-title').focus(); return; }
        body.merged_content = merged;
      }
      clearProblem();
      state.mine.add(c.id);
      let res;
      try {
        res = await api('POST', `/conflicts/${c.id}/resolve`, body);
      } catch (e) {
        state.mine.delete(c.id);
        showProblem(`Resolving "${titleOf(c)}"`, e);
        await recover(c.id);
        return;
      }
      state.undo.push({ id: c.id, title: titleOf(c) });
      const again = res.replayed ? ' (it already was; nothing changed)' : '';
      const why = res.reason ? ` (reason: ${res.reason}, ${res.reason_inferred ? 'chosen by concord' : 'as you chose'})` : '';
      const as = `as "${STRATEGY_WORDS[strategy]}"`;
      let head = `Resolved "${titleOf(c)}" ${as}`;
      if (held(c) && strategy === 'new_is_current') head = `Promoted the quarantined memory of "${titleOf(c)}": resolved ${as}`;
      else if (held(c) && strategy === 'old_is_current') head = `Rejected the quarantined memory of "${titleOf(c)}": resolved ${as}`;
      report(`${head}${why}${again}:`, res.actions, c);
      refreshStats();
      refreshSources();
      afterDecision(c.id);
    } finally {
      busy = false;
    }
  }

  // The decided conflict leaves a pending queue; the view moves on to the next one.
  async function afterDecision(id) {
    const wasAt = state.items.findIndex((c) => c.id === id);
    if (state.filters.status === 'pending') {
      removeFromQueue(id);
      if (wasAt >= 0) state.pos = wasAt;
      state.selectedId = null;
    } else {
      try {
        upsertQueue(await fetchConflict(id));
      } catch (_) { /* the report already said what happened */ }
    }
    if (await step(1)) return;
    // Past the end of the list: back to the first one still waiting.
    const waiting = state.items.find((c) => c.status === 'pending' && c.id !== id);
    if (waiting) await openConflict(waiting.id);
    else showEmpty();
  }

  // After a problem: show the conflict as it is now, and fix the queue to match.
  async function recover(id) {
    refreshStats();
    let fresh;
    try {
      fresh = await fetchConflict(id);
    } catch (e) {
      if (e instanceof Problem && e.status === 404) {
        removeFromQueue(id);
        if (state.current?.id === id) showEmpty();
      }
      return;
    }
    const stays = matchesFilters(fresh);
    if (stays) upsertQueue(fresh);
    else removeFromQueue(id);
    if (state.current?.id === id) {
      state.current = fresh;
      renderConflict(fresh);
      $('conflict-title').focus();
    }
  }

  function undo() {
    if (busy || !mayResolve()) return;
    const last = state.undo.pop();
    if (!last) {
      report('Nothing to undo: you have not resolved anything in this tab yet.');
      return;
    }
    revert(last.id, last.title, true);
  }

  // Reverts the resolution of a conflict: the tab's last one (u) or any resolved one shown.
  async function revert(id, title, fromUndo) {
    if (busy) return;
    busy = true;
    try {
      const body = {};
      if (reviewer()) body.reverted_by = reviewer();
      clearProblem();
      state.mine.add(id);
      try {
        const res = await api('POST', `/conflicts/${id}/revert`, body);
        const how = STRATEGY_WORDS[res.reverted] || res.reverted;
        state.undo = state.undo.filter((u) => u.id !== id);
        report(`Undid "${how}" on "${title}"; it is pending again:`, res.actions, { id });
      } catch (e) {
        state.mine.delete(id);
        // A 404 or 405 for a conflict the tab just resolved means the route itself is missing.
        if (fromUndo && e instanceof Problem && (e.status === 404 || e.status === 405)) {
          showProblem('Undo', new Problem(e.status, { title: 'Undo is not available on this concord', detail: '' }));
        } else {
          showProblem(`Undoing "${title}"`, e);
        }
        await recover(id);
        return;
      }
      refreshStats();
      refreshSources();
      try {
        const c = await fetchConflict(id);
        upsertQueue(c);
        await openConflict(c.id, { fresh: true });
      } catch (e) {
        showProblem('Reloading the conflict', e);
      }
    } finally {
      busy = false;
    }
  }

  // ---- live updates ------------------------------------------------------------------------
  function setLive(text, cls) {
    const live = $('live');
    live.textContent = visible(text);
    live.className = `live ${cls}`;
  }

  async function onEvent(kind, data) {
    refreshStats();
    refreshPending();
    if (kind.startsWith('sweep.')) {
      refreshSweep();
      return;
    }
    const id = data.conflict_id;
    if (state.mine.has(id)) {
      state.mine.delete(id);
      return;
    }
    if (kind === 'conflict.created' || kind === 'conflict.reverted') {
      try {
        upsertQueue(await fetchConflict(id));
      } catch (_) { /* gone again already */ }
    } else if (kind === 'conflict.resolved') {
      if (state.filters.status === 'pending') removeFromQueue(id);
      else {
        try { upsertQueue(await fetchConflict(id)); } catch (_) { /* ignore */ }
      }
      if (state.current?.id === id) {
        report(`"${titleOf(state.current)}" was just resolved elsewhere.`, null);
        await recover(id);
      }
    }
  }

  // fetch-based Server-Sent Events reader: unlike EventSource it can send the Bearer key, and
  // it resumes with Last-Event-ID after a drop.
  async function stream() {
    let attempt = 0;
    let dropped = false;
    for (;;) {
      try {
        const headers = authHeaders({ Accept: 'text/event-stream' });
        if (state.lastEventId !== null) headers['Last-Event-ID'] = state.lastEventId;
        const res = await fetch('/events', { headers, cache: 'no-store' });
        if (res.status === 401) {
          setLive('Live updates: waiting for an API key', 'off');
          const sent = headers.Authorization ? headers.Authorization.slice(7) : null;
          if (apiKey() === sent) {
            sessionStorage.removeItem('concord.key');
            await askForKey(Boolean(sent));
          }
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        attempt = 0;
        setLive(dropped ? 'Live updates reconnected' : 'Live updates on', 'on');
        if (dropped) {
          // Whatever changed while the stream was down came with Last-Event-ID; the counts too.
          refreshStats();
        }
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value.replace(/\r\n?/g, '\n');
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            dispatch(block);
          }
        }
        throw new Error('the stream ended');
      } catch (e) {
        dropped = true;
        attempt += 1;
        const wait = Math.min(5000, 1000 * attempt);
        setLive(`Live updates dropped; reconnecting (attempt ${attempt})…`, 'off');
        await sleep(wait);
      }
    }
  }

  function dispatch(block) {
    let kind = 'message';
    let id = null;
    const data = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      let value = i < 0 ? '' : line.slice(i + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') kind = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== null) state.lastEventId = id;
    if (!data.length) return;
    let parsed;
    try { parsed = JSON.parse(data.join('\n')); } catch (_) { return; }
    onEvent(kind, parsed);
  }

  // ---- keyboard ----------------------------------------------------------------------------
  function closeDialogs() {
    for (const d of document.querySelectorAll('dialog[open]')) {
      if (d.id !== 'key-dialog') d.close();
    }
  }

  function onKey(ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = t instanceof HTMLElement &&
      (t.matches('input, textarea, select') || t.isContentEditable);
    if (typing) {
      if (ev.key === 'Escape' && t.id === 'note') {
        t.blur();
        $('conflict-title')?.focus();
      }
      return;
    }
    if (document.querySelector('dialog[open]')) return;
    const k = ev.key;
    if (KEY_STRATEGY[k]) {
      if (state.current) { ev.preventDefault(); decide(KEY_STRATEGY[k]); }
    } else if (k === 'n') {
      const note = $('note');
      if (note && !note.disabled) { ev.preventDefault(); note.focus(); }
    } else if (k === 'j') {
      ev.preventDefault(); step(1);
    } else if (k === 'k') {
      ev.preventDefault(); step(-1);
    } else if (k === 'u') {
      ev.preventDefault(); undo();
    } else if (k === 'q') {
      ev.preventDefault(); toggleQuarantine();
    } else if (k === '?') {
      ev.preventDefault(); $('help-dialog').showModal(); $('help-close').focus();
    }
  }

  // ---- start -------------------------------------------------------------------------------
  // `changed`: the field the reviewer just set, which wins over those it contradicts.
  function readFilters(changed) {
    const form = $('filters');
    const q = form.quarantined;
    // The quarantine queue is pending conflicts only, which have no resolver; choosing another
    // status or a resolver leaves it.
    if (q.checked && changed === q) {
      form.status.value = 'pending';
      form.by.value = '';
    } else if (q.checked && (form.status.value !== 'pending' || form.by.value.trim())) {
      q.checked = false;
    }
    // Only resolved conflicts have a resolver: filtering by one shows resolved ones.
    if (form.by.value.trim() && form.status.value === 'pending') form.status.value = 'resolved';
    state.filters = {
      status: form.status.value,
      type: form.type.value,
      label: form.label.value.trim(),
      by: form.by.value.trim(),
      order: form.order.value,
      quarantined: q.checked,
    };
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(state.filters)) if (v) query.set(k, v === true ? '1' : v);
    if (state.pageSize !== 50) query.set('limit', state.pageSize);
    history.replaceState(null, '', `${location.pathname}?${query}${location.hash}`);
  }

  function applyFiltersFromUrl() {
    const q = new URLSearchParams(location.search);
    const form = $('filters');
    const size = Number(q.get('limit'));
    if (Number.isInteger(size) && size >= 1 && size <= 200) state.pageSize = size;
    for (const name of ['status', 'type', 'label', 'by', 'order']) {
      const v = q.get(name);
      if (v === null) continue;
      const field = form.elements[name];
      if (field.tagName === 'SELECT' && ![...field.options].some((o) => o.value === v)) continue;
      field.value = v;
    }
    const box = form.elements.quarantined;
    box.checked = ['1', 'true'].includes(q.get('quarantined'));
    readFilters(box.checked ? box : undefined);
  }

  // `q`: the quarantine queue, or everything again.
  function toggleQuarantine() {
    const q = $('filters').quarantined;
    q.checked = !q.checked;
    readFilters(q);
    loadQueue();
  }

  async function start() {
    showReviewer();
    applyFiltersFromUrl();
    $('filters').addEventListener('submit', (ev) => {
      ev.preventDefault();
      readFilters();
      loadQueue();
    });
    $('filters').addEventListener('change', (ev) => {
      if (ev.target.tagName === 'SELECT' || ev.target.type === 'checkbox') { readFilters(ev.target); loadQueue(); }
    });
    $('more').addEventListener('click', loadMore);
    $('problem-close').addEventListener('click', clearProblem);
    $('help-button').addEventListener('click', () => { $('help-dialog').showModal(); $('help-close').focus(); });
    $('help-close').addEventListener('click', () => $('help-dialog').close());
    $('reviewer').addEventListener('click', () => askName());
    $('key-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const key = $('key-input').value.trim();
      if (!key) return;
      sessionStorage.setItem('concord.key', key);
      $('key-dialog').close();
      const waiting = keyWaiters;
      keyWaiters = [];
      waiting.forEach((r) => r());
    });
    // The key prompt cannot be dismissed: nothing works without a key.
    $('key-dialog').addEventListener('cancel', (ev) => ev.preventDefault());
    $('merge-text').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        $('merge-form').requestSubmit();
      }
    });
    document.addEventListener('keydown', onKey);

    stream();
    await loadMe();
    await Promise.all([loadQueue(), refreshSources()]);
    refreshStats();
    refreshSweep();
    const wanted = location.hash.slice(1);
    if (/^[0-9a-f-]{36}$/i.test(wanted)) await openConflict(wanted);
  }

  start();
})();
