/**
 * The live view's page: one HTML shell, one stylesheet and one script, served from this module so
 * they ship inside the package (no CDN; the page works offline, R89). The script builds every node
 * with createElement and textContent and never parses strings as markup, so keys, summaries and
 * payloads always render as text (R88). Plain browser JavaScript (ES2020), no framework: the page
 * is a few tables and two SVG drawings.
 */

export function pageHtml(): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>session-state-kit live view</title>',
    '<link rel="stylesheet" href="app.css">',
    // Relative, so the browser asks under the page's path, where the token cookie is sent (R87).
    '<link rel="icon" href="favicon.ico">',
    '</head><body><div id="app"><noscript>The live view needs JavaScript.</noscript></div>',
    '<script src="app.js"></script>',
    '</body></html>',
  ].join('\n');
}

export const APP_CSS = String.raw`
:root { --human: #c2410c; --agent: #1d4ed8; --system: #52525b; --spawn: #15803d; --explicit: #1d4ed8; --ambient: #9333ea;
  --pending: #dc2626; --bg: #fafafa; --fg: #18181b; --muted: #71717a; --line: #e4e4e7; font-family: system-ui, sans-serif; }
body { margin: 0; background: var(--bg); color: var(--fg); font-size: 14px; }
header { display: flex; align-items: center; gap: 16px; padding: 10px 18px; background: #18181b; color: #fafafa; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .label { color: #a1a1aa; font-family: ui-monospace, monospace; font-size: 12px; }
header .live { margin-left: auto; font-size: 12px; }
header .live.on::before { content: "\25CF "; color: #22c55e; }
header .live.off::before { content: "\25CB "; color: #f59e0b; }
nav { display: flex; gap: 4px; padding: 8px 18px 0; border-bottom: 1px solid var(--line); background: #fff; }
nav a { padding: 6px 12px; color: var(--fg); text-decoration: none; border-bottom: 2px solid transparent; }
nav a.active { border-color: var(--agent); font-weight: 600; }
main { padding: 14px 18px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; text-align: right; }
.key { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
a.key, button.link { color: var(--agent); cursor: pointer; background: none; border: 0; padding: 0; font: inherit; text-decoration: underline; text-align: left; }
.chip { display: inline-block; padding: 1px 7px; border-radius: 9px; color: #fff; font-size: 12px; }
.chip.human { background: var(--human); } .chip.agent { background: var(--agent); } .chip.system { background: var(--system); }
.chip.spawn { background: var(--spawn); } .chip.explicit { background: var(--explicit); } .chip.ambient { background: var(--ambient); }
.chip.pending { background: var(--pending); } .chip.lane { background: #a1a1aa; }
tr.gap td { background: repeating-linear-gradient(45deg, #fff7ed, #fff7ed 8px, #ffedd5 8px, #ffedd5 16px); color: #9a3412; font-weight: 600; text-align: center; }
tr.fresh td { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: #fef9c3; } to { background: transparent; } }
pre.payload { margin: 0; font-size: 11px; white-space: pre-wrap; word-break: break-all; max-width: 420px; }
code.notice { display: block; font-size: 12px; background: #fef2f2; border-left: 3px solid var(--pending); padding: 4px 6px; white-space: pre-wrap; word-break: break-all; }
.bar { display: flex; gap: 8px; align-items: center; margin-bottom: 10px; flex-wrap: wrap; }
.bar input[type=search], .bar input[type=text] { padding: 5px 8px; border: 1px solid var(--line); border-radius: 4px; min-width: 220px; }
.bar button, .pager button { padding: 4px 10px; }
.pager { margin: 10px 0; display: flex; gap: 8px; align-items: center; color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 6px 0 14px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; }
h2 { font-size: 15px; margin: 6px 0 10px; } h3 { font-size: 14px; margin: 18px 0 8px; }
.muted { color: var(--muted); }
.error { color: var(--pending); }
svg { background: #fff; border: 1px solid var(--line); max-width: 100%; }
svg text { font-family: ui-monospace, monospace; font-size: 11px; fill: var(--fg); }
.legend { display: flex; gap: 12px; margin: 6px 0; font-size: 12px; }
.toast { position: fixed; right: 16px; bottom: 16px; background: #18181b; color: #fff; padding: 8px 12px; border-radius: 6px; font-size: 12px; max-width: 50vw; }
`;

export const APP_JS = String.raw`(function () {
'use strict';
var ACTORS = ['human', 'agent', 'system'];
var COLORS = { human: '#c2410c', agent: '#1d4ed8', system: '#52525b', spawn: '#15803d', explicit: '#1d4ed8', ambient: '#9333ea', pending: '#dc2626' };
var SVGNS = 'http://www.w3.org/2000/svg';
var app = document.getElementById('app');
var state = { view: null, params: {}, stack: [], after: null, lastRender: 0, seen: {} };

// Every node is built here; text goes through textContent only (R88).
function h(tag, attrs) {
  var el = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else if (k === 'onclick' || k === 'oninput' || k === 'onchange' || k === 'onsubmit') el[k] = v;
    else el.setAttribute(k, String(v));
  }
  for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
  return el;
}
function add(el, child) {
  if (child === undefined || child === null || child === false) return;
  if (Array.isArray(child)) { child.forEach(function (c) { add(el, c); }); return; }
  el.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
}
function s(tag, attrs) {
  var el = document.createElementNS(SVGNS, tag);
  for (var k in attrs) if (k === 'text') el.textContent = String(attrs[k]); else el.setAttribute(k, String(attrs[k]));
  return el;
}
function time(ms) { var d = new Date(ms); return isNaN(d.getTime()) ? String(ms) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z'); }
function chip(cls, label) { return h('span', { class: 'chip ' + cls, text: label || cls }); }

function hashFor(view, params) {
  var q = new URLSearchParams();
  for (var k in params) if (params[k] !== undefined && params[k] !== '' && params[k] !== null) q.set(k, params[k]);
  var qs = q.toString();
  return '#/' + view + (qs ? '?' + qs : '');
}
function go(view, params) { location.hash = hashFor(view, params || {}); }
function link(label, view, params, testid) {
  return h('a', { class: 'key', href: hashFor(view, params), 'data-testid': testid, text: label });
}
function sessionLink(key, agent, testid) { return link(key, 'session', { key: key, agent: agent }, testid || 'session-link'); }

function api(path, params) {
  var q = new URLSearchParams();
  for (var k in params || {}) if (params[k] !== undefined && params[k] !== null && params[k] !== '') q.set(k, params[k]);
  return fetch('api/' + path + '?' + q.toString(), { headers: { accept: 'application/json' } }).then(function (r) {
    return r.json().then(function (body) { if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status)); return body; });
  });
}

function parseHash() {
  var m = /^#\/([a-z]+)(?:\?(.*))?$/.exec(location.hash);
  var params = {};
  if (m && m[2]) new URLSearchParams(m[2]).forEach(function (v, k) { params[k] = v; });
  return { view: m ? m[1] : 'sessions', params: params };
}

var header = h('header', null, h('h1', { text: 'session-state-kit live view' }), h('span', { class: 'label', 'data-testid': 'store-label' }),
  h('span', { class: 'live off', 'data-testid': 'live', text: 'connecting' }));
var nav = h('nav');
var main = h('main');
app.textContent = '';
add(app, [header, nav, main]);
var TABS = [['sessions', 'Sessions'], ['watches', 'Watches'], ['activity', 'Activity']];

function renderNav(view) {
  nav.textContent = '';
  TABS.forEach(function (t) {
    add(nav, h('a', { href: '#/' + t[0], class: (view === t[0] || (view === 'session' && t[0] === 'sessions')) ? 'active' : null, 'data-testid': 'tab-' + t[0], text: t[1] }));
  });
}

function pager(page, onNext) {
  var bar = h('div', { class: 'pager' });
  if (state.stack.length > 0) add(bar, h('button', { 'data-testid': 'page-first', text: '\u2190 first page', onclick: function () { state.stack = []; state.after = null; render(); } }));
  if (page.next) add(bar, h('button', { 'data-testid': 'page-next', text: 'next page \u2192', onclick: function () { state.stack.push(state.after); state.after = page.next; onNext(); } }));
  add(bar, h('span', { 'data-testid': 'page-status', text: page.rows.length + ' shown' + (page.next ? ', more on the next page' : '') + (page.byteLimited ? ' (this page reached its size limit)' : '') }));
  return bar;
}

// ---- Sessions ----
function viewSessions(p) {
  var search = h('input', { type: 'search', placeholder: 'filter by key or agent', value: p.search || '', 'data-testid': 'filter' });
  var agent = h('input', { type: 'text', placeholder: 'agent id (exact)', value: p.agent || '', 'data-testid': 'filter-agent' });
  var form = h('form', { class: 'bar', onsubmit: function (e) { e.preventDefault(); state.after = null; state.stack = []; go('sessions', { search: search.value, agent: agent.value }); } },
    search, agent, h('button', { type: 'submit', text: 'filter' }));
  var a = state.after || {};
  return api('sessions', { search: p.search, agent: p.agent, afterKey: a.sessionKey, afterAgent: a.agentId }).then(function (page) {
    var rows = page.rows.map(function (r) {
      var fresh = state.seen['s:' + r.sessionKey + '\u0000' + r.agentId] !== undefined && state.seen['s:' + r.sessionKey + '\u0000' + r.agentId] !== r.stateVersion;
      state.seen['s:' + r.sessionKey + '\u0000' + r.agentId] = r.stateVersion;
      if (r.watcherOnly) return h('tr', { 'data-testid': 'session-row' },
        h('td', null, link(r.sessionKey, 'session', { key: r.sessionKey }, 'session-link')),
        h('td', { colspan: 7, class: 'muted', text: 'watches only: no events recorded under this key' }));
      return h('tr', { 'data-testid': 'session-row', class: fresh ? 'fresh' : null },
        h('td', null, sessionLink(r.sessionKey, r.agentId)),
        h('td', { class: 'key', text: r.agentId }),
        h('td', { class: 'num', 'data-testid': 'state-version', text: r.stateVersion }),
        h('td', { text: time(r.updatedAt) }),
        h('td', null, r.lastActorType ? chip(r.lastActorType) : h('span', { class: 'muted', text: 'pruned' }), r.lastActorId ? h('span', { class: 'key', text: ' ' + r.lastActorId }) : null),
        h('td', { class: 'key', text: r.lastKind || '' }),
        h('td', { class: 'num', text: r.earliestAvailableSequence }),
        h('td', { class: 'num', text: r.prunedMaxSequence }));
    });
    var table = h('table', { 'data-testid': 'sessions' },
      h('thead', null, h('tr', null, ['session', 'agent', 'stateVersion', 'last activity', 'last actor', 'last kind', 'earliest available', 'pruned up to'].map(function (t) { return h('th', { text: t }); }))),
      h('tbody', null, rows.length ? rows : h('tr', null, h('td', { colspan: 8, class: 'muted', text: 'no sessions match' }))));
    return [form, table, pager(page, render)];
  });
}

// ---- One session ----
function eventRow(e) {
  var fresh = state.seen.maxSeq !== undefined && e.sequence > state.seen.maxSeq;
  return h('tr', { 'data-testid': 'event-row', class: fresh ? 'fresh' : null },
    h('td', { class: 'num', text: e.sequence }),
    h('td', { text: time(e.occurredAt) }),
    h('td', null, chip(e.actorType), e.actorId ? h('span', { class: 'key', text: ' ' + e.actorId }) : null),
    h('td', { class: 'key', text: e.kind }),
    h('td', { 'data-testid': 'summary', text: e.summary }),
    h('td', null, e.payload !== undefined ? h('pre', { class: 'payload', text: JSON.stringify(e.payload, null, 1) })
      : e.payloadClipped !== undefined ? h('pre', { class: 'payload', 'data-testid': 'payload-clipped', text: e.payloadClipped }) : null));
}

function viewSession(p) {
  var key = p.key;
  var agentP = p.agent ? Promise.resolve(p.agent) : api('sessions', { search: key, limit: 200 }).then(function (page) {
    var hits = page.rows.filter(function (r) { return r.sessionKey === key && !r.watcherOnly; });
    return hits.length === 1 ? hits[0].agentId : null;
  });
  return agentP.then(function (agent) {
    var top = [h('h2', null, 'Session ', h('span', { class: 'key', 'data-testid': 'session-title', text: key }))];
    var timelineP = agent ? api('timeline', { session: key, agent: agent, before: state.after }) : Promise.resolve(null);
    return Promise.all([timelineP, api('watches', { session: key, limit: 200 })]).then(function (res) {
      var t = res[0]; var w = res[1];
      var out = top;
      if (t && t.head) {
        var hd = t.head;
        out.push(h('dl', { class: 'facts' },
          h('dt', { text: 'agent' }), h('dd', { class: 'key', text: hd.agentId }),
          h('dt', { text: 'stateVersion' }), h('dd', { 'data-testid': 'head-version', text: hd.stateVersion }),
          h('dt', { text: 'last activity' }), h('dd', { text: time(hd.updatedAt) }),
          h('dt', { text: 'earliest available' }), h('dd', { text: hd.earliestAvailableSequence }),
          h('dt', { text: 'pruned up to' }), h('dd', { text: hd.prunedMaxSequence })));
        var rows = t.events.map(eventRow);
        var maxSeq = t.events.length ? t.events[0].sequence : 0;
        if (state.after === null || state.after === undefined) state.seen.maxSeq = maxSeq;
        if (t.gap) rows.push(h('tr', { class: 'gap', 'data-testid': 'history-gap' }, h('td', { colspan: 6,
          text: 'history gap: events up to #' + t.gap.prunedMaxSequence + ' were pruned (R33); the earliest available is #' + t.gap.earliestAvailableSequence })));
        if (!t.events.length && !t.gap) rows.push(h('tr', null, h('td', { colspan: 6, class: 'muted', text: 'no events retained' })));
        out.push(h('h3', { text: 'Timeline (newest first)' }));
        out.push(h('table', { 'data-testid': 'timeline' }, h('thead', null, h('tr', null, ['seq', 'occurred', 'actor', 'kind', 'summary', 'payload'].map(function (x) { return h('th', { text: x }); }))), h('tbody', null, rows)));
        out.push(pager({ rows: t.events, next: t.next, byteLimited: t.byteLimited }, render));
      } else {
        out.push(h('p', { class: 'muted', text: agent ? 'no such session' : 'no events recorded under this key (it only watches)' }));
      }
      out.push(h('h3', { text: 'Watches of this session' }));
      out.push(cursorTable(w.rows, key));
      return out;
    });
  });
}

// ---- Watches ----
function cursorTable(rows, focus) {
  var body = rows.map(function (c) {
    return h('tr', { 'data-testid': 'cursor-row', class: c.pending ? 'pending' : null },
      h('td', null, focus === c.watcherSessionKey ? h('span', { class: 'key', text: c.watcherSessionKey }) : link(c.watcherSessionKey, 'session', { key: c.watcherSessionKey }, 'watcher-link')),
      h('td', null, focus === c.targetSessionKey ? h('span', { class: 'key', text: c.targetSessionKey }) : sessionLink(c.targetSessionKey, c.targetAgentId, 'target-link')),
      h('td', { class: 'key', text: c.targetAgentId }),
      h('td', { class: 'num', text: c.lastSeenSequence }), h('td', { class: 'num', text: c.notifiedSequence }), h('td', { class: 'num', text: c.materialSequence }),
      h('td', null, chip(c.provenance)), h('td', null, chip('lane', c.wake)),
      h('td', null, c.pending ? [chip('pending', 'pending'), h('code', { class: 'notice', 'data-testid': 'notice-text', text: c.noticeText }),
        sessionLink(c.targetSessionKey, c.targetAgentId, 'notice-target')] : h('span', { class: 'muted', text: 'settled' })));
  });
  return h('table', { 'data-testid': 'cursors' },
    h('thead', null, h('tr', null, ['watcher', 'target', 'agent', 'L (seen)', 'N (notified)', 'M (material)', 'provenance', 'wake lane', 'notice (R23 text)'].map(function (x) { return h('th', { text: x }); }))),
    h('tbody', null, body.length ? body : h('tr', null, h('td', { colspan: 9, class: 'muted', text: 'no watches' }))));
}

function graph(rows) {
  var watchers = []; var targets = [];
  rows.forEach(function (c) {
    if (watchers.indexOf(c.watcherSessionKey) < 0) watchers.push(c.watcherSessionKey);
    var t = c.targetSessionKey + ' (' + c.targetAgentId + ')';
    if (targets.indexOf(t) < 0) targets.push(t);
  });
  var rowH = 24; var n = Math.max(watchers.length, targets.length, 1);
  var W = 900; var H = n * rowH + 40; var x1 = 300; var x2 = 600;
  var svg = s('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'data-testid': 'graph', role: 'img', 'aria-label': 'watch graph' });
  svg.appendChild(s('text', { x: x1 - 8, y: 16, 'text-anchor': 'end', text: 'watchers' }));
  svg.appendChild(s('text', { x: x2 + 8, y: 16, text: 'targets' }));
  var yOf = function (list, v) { return 34 + list.indexOf(v) * rowH; };
  rows.forEach(function (c) {
    var ya = yOf(watchers, c.watcherSessionKey); var yb = yOf(targets, c.targetSessionKey + ' (' + c.targetAgentId + ')');
    var path = s('path', { d: 'M' + x1 + ' ' + ya + ' C' + (x1 + 150) + ' ' + ya + ' ' + (x2 - 150) + ' ' + yb + ' ' + x2 + ' ' + yb,
      fill: 'none', stroke: c.pending ? COLORS.pending : COLORS[c.provenance] || '#999', 'stroke-width': c.pending ? 3 : 1.5,
      'stroke-dasharray': c.wake === 'next-turn' ? '5 4' : 'none' });
    path.appendChild(s('title', { text: c.watcherSessionKey + ' watches ' + c.targetSessionKey + ' (' + c.provenance + ', ' + c.wake + (c.pending ? ', pending' : '') + ')' }));
    svg.appendChild(path);
  });
  watchers.forEach(function (w) { var y = yOf(watchers, w); svg.appendChild(s('circle', { cx: x1, cy: y, r: 4, fill: '#18181b' })); svg.appendChild(s('text', { x: x1 - 8, y: y + 4, 'text-anchor': 'end', text: w })); });
  targets.forEach(function (t) { var y = yOf(targets, t); svg.appendChild(s('circle', { cx: x2, cy: y, r: 4, fill: '#18181b' })); svg.appendChild(s('text', { x: x2 + 8, y: y + 4, text: t })); });
  return svg;
}

function viewWatches(p) {
  var session = h('input', { type: 'search', placeholder: 'session key (watcher or target)', value: p.session || '', 'data-testid': 'watch-filter' });
  var pending = h('input', { type: 'checkbox', 'data-testid': 'pending-only' });
  pending.checked = p.pending === '1';
  var form = h('form', { class: 'bar', onsubmit: function (e) { e.preventDefault(); state.after = null; state.stack = []; go('watches', { session: session.value, pending: pending.checked ? '1' : '' }); } },
    session, h('label', null, pending, ' pending only'), h('button', { type: 'submit', text: 'filter' }));
  var a = state.after || {};
  return api('watches', { session: p.session, pending: p.pending, afterAgent: a.targetAgentId, afterTarget: a.targetSessionKey, afterWatcher: a.watcherSessionKey }).then(function (page) {
    var legend = h('div', { class: 'legend' }, chip('spawn'), chip('explicit'), chip('ambient'), chip('pending', 'pending notice'), h('span', { class: 'muted', text: 'dashed: wakes on its next turn (R25)' }));
    return [form, legend, graph(page.rows), pager(page, render), cursorTable(page.rows)];
  });
}

// ---- Activity ----
function viewActivity(p) {
  var minutes = p.minutes || '60';
  var select = h('select', { 'data-testid': 'window', onchange: function () { go('activity', { minutes: select.value }); } },
    [['60', 'last hour'], ['360', '6 hours'], ['1440', '24 hours']].map(function (o) { var opt = h('option', { value: o[0], text: o[1] }); if (o[0] === minutes) opt.selected = true; return opt; }));
  return api('activity', { minutes: minutes }).then(function (a) {
    var W = 900; var H = 240; var pad = 30; var n = a.buckets.length;
    var max = 1; a.buckets.forEach(function (b) { max = Math.max(max, b.human + b.agent + b.system); });
    var bw = (W - 2 * pad) / n;
    var svg = s('svg', { width: W, height: H + 30, viewBox: '0 0 ' + W + ' ' + (H + 30), 'data-testid': 'activity', role: 'img', 'aria-label': 'events per minute by actor' });
    a.buckets.forEach(function (b, i) {
      var y = H;
      ACTORS.forEach(function (actor) {
        if (!b[actor]) return;
        var hgt = (b[actor] / max) * (H - pad);
        y -= hgt;
        var r = s('rect', { x: pad + i * bw, y: y, width: Math.max(1, bw - 1), height: hgt, fill: COLORS[actor], 'data-actor': actor });
        r.appendChild(s('title', { text: time(b.minute) + ': ' + b[actor] + ' ' + actor }));
        svg.appendChild(r);
      });
    });
    svg.appendChild(s('line', { x1: pad, y1: H, x2: W - pad, y2: H, stroke: '#999' }));
    svg.appendChild(s('text', { x: pad, y: H + 18, text: time(a.buckets[0].minute) }));
    svg.appendChild(s('text', { x: W - pad, y: H + 18, 'text-anchor': 'end', text: time(a.end) }));
    svg.appendChild(s('text', { x: pad, y: 14, text: 'max ' + max + ' events/min' }));
    var total = { human: 0, agent: 0, system: 0 };
    a.buckets.forEach(function (b) { ACTORS.forEach(function (x) { total[x] += b[x]; }); });
    var legend = h('div', { class: 'legend', 'data-testid': 'activity-legend' }, ACTORS.map(function (x) { return h('span', null, chip(x), ' ' + total[x] + ' events'); }));
    return [h('div', { class: 'bar' }, h('h2', { text: 'Events per minute by actor' }), select), legend, svg];
  });
}

var VIEWS = { sessions: viewSessions, session: viewSession, watches: viewWatches, activity: viewActivity };
var rendering = null; var again = false;

function render() {
  if (rendering) { again = true; return rendering; }
  var route = parseHash();
  // Only the view's own names: '#/constructor' must not reach Object.prototype.
  var view = Object.prototype.hasOwnProperty.call(VIEWS, route.view) ? route.view : 'sessions';
  var fn = VIEWS[view];
  renderNav(view);
  rendering = fn(route.params).then(function (nodes) {
    // A live refresh must not eat what the person is typing: the focused field keeps its text and caret.
    var focused = document.activeElement && main.contains(document.activeElement) ? document.activeElement : null;
    var keep = focused && focused.getAttribute('data-testid') ? { id: focused.getAttribute('data-testid'), value: focused.value, start: focused.selectionStart, end: focused.selectionEnd } : null;
    main.textContent = '';
    add(main, nodes);
    if (keep) {
      var again2 = main.querySelector('[data-testid="' + keep.id + '"]');
      if (again2) { again2.value = keep.value; again2.focus(); try { again2.setSelectionRange(keep.start, keep.end); } catch (e) { /* not a text field */ } }
    }
    main.setAttribute('data-rendered', String(++state.lastRender));
    main.setAttribute('data-route', location.hash);
  }, function (err) {
    main.textContent = '';
    add(main, h('p', { class: 'error', 'data-testid': 'error', text: 'could not load: ' + err.message }));
  }).then(function () { rendering = null; if (again) { again = false; render(); } });
  return rendering;
}

window.addEventListener('hashchange', function () {
  var route = parseHash();
  if (state.view !== route.view || JSON.stringify(state.params) !== JSON.stringify(route.params)) { state.after = null; state.stack = []; state.seen = {}; }
  state.view = route.view; state.params = route.params;
  render();
});

var toastTimer = null;
function toast(text) {
  var old = document.querySelector('.toast'); if (old) old.remove();
  var t = h('div', { class: 'toast', 'data-testid': 'toast', text: text });
  document.body.appendChild(t);
  clearTimeout(toastTimer); toastTimer = setTimeout(function () { t.remove(); }, 4000);
}

// Live (R86): the server says something changed; the page refetches only what it shows.
var liveEl = header.querySelector('[data-testid=live]');
var pendingRender = null;
function soon() { clearTimeout(pendingRender); pendingRender = setTimeout(render, 50); }
function connect() {
  var es = new EventSource('api/live');
  es.addEventListener('hello', function () { liveEl.className = 'live on'; liveEl.textContent = 'live'; });
  es.addEventListener('changed', function () { liveEl.textContent = 'live, updated ' + new Date().toLocaleTimeString(); soon(); });
  // One frame per commit (R86): the first watcher, and how many more got a notice with it.
  es.addEventListener('notice', function (m) {
    try { var d = JSON.parse(m.data); toast('pending notice for ' + d.watcherSessionKey + (d.more ? ' and ' + d.more + ' more' : '')); } catch (e) { /* ignore */ }
    soon();
  });
  es.onerror = function () { liveEl.className = 'live off'; liveEl.textContent = 'reconnecting'; };
}

api('info').then(function (info) { header.querySelector('.label').textContent = info.label + ' (read-only)'; }, function () {});
var first = parseHash(); state.view = first.view; state.params = first.params;
render();
connect();
})();
`;
