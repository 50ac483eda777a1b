// ringlab ring explorer, 3 of 3: the page: traces loaded (embedded,
// opened or dropped), the timeline, stepping, and the URL's #trace=&step=.
// Loads after explorer-trace.js and explorer-draw.js.
'use strict';

(function (R) {
  const {
    SVGNS, U32, OWN_COLOUR, OWN_DOC, PROD_COLOUR, CONS_COLOUR, COUNTERS, GROUPS, VAR_DOC,
    INVARIANT_DOC, MARKERS, $, TraceError, lineOf, jsonError, isObj, isInt, parseText,
    normalize, SIM_HEADER, SIM_FIELDS, fromSimLines, finish, sub, inRange, deriveOwn,
    invariants, shortPos, el, sv, title, CIRCLE_MAX, circleLayout, barLayout, markerSlot,
    markerTip, markerLabel, triangle, renderDiagram, renderLegend, fmtNum, fmtBool,
    fmtLoad, fmtValue, renderVars, renderInvariants, loopText, renderOutcome, renderInfo,
  } = R;

  // ---------------------------------------------------------------- state

  const app = {
    traces: [],      // loaded traces (embedded first)
    cur: -1,         // index into traces
    idx: 0,          // index into the current trace's states
    errors: [],
  };

  function renderTimeline(t) {
    const box = $('timeline');
    box.textContent = '';
    const table = el('table');
    const head = el('tr', {}, el('th', { text: '#' }), el('th', { text: 'action' }), el('th', { text: 'changed' }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    t.states.forEach((s, j) => {
      const tr = el('tr', { 'data-index': String(j) },
        el('td', { class: 'num', text: String(s.num) }),
        el('td', { class: 'act', text: s.action }),
        el('td', { class: 'muted', text: [...s.changed].join(', ') }));
      tr.addEventListener('click', () => show(j));
      body.append(tr);
    });
    if (t.outcome || t.loop_end) {
      const lt = loopText(t.loop_end, t);
      body.append(el('tr', { class: 'end' }, el('td'), el('td', { colspan: '2', text: [t.outcome, lt].filter(Boolean).join(' — ') })));
    }
    table.append(body);
    box.append(table);
  }

  // ---------------------------------------------------------------- navigation

  function setHash(t, st) {
    const h = `#trace=${encodeURIComponent(t.title)}&step=${st.num}`;
    if (location.hash === h) return;
    try { history.replaceState(null, '', h); } catch (e) { /* some file:// setups refuse */ }
  }

  function show(i) {
    const t = app.traces[app.cur];
    if (!t) return;
    i = Math.max(0, Math.min(t.states.length - 1, i));
    app.idx = i;
    const st = t.states[i];
    const d = $('diagram');
    d.textContent = '';
    d.append(renderDiagram(t, i));
    const lastNum = t.states[t.states.length - 1].num;
    $('step-label').textContent = `step ${st.num} of ${lastNum}`;
    $('step-label').dataset.count = String(t.states.length);
    $('step-label').title = `${t.states.length} states`;
    const act = $('action');
    act.textContent = '';
    act.append(el('span', { class: 'muted', text: i === 0 ? 'initial state: ' : 'after ' }), el('code', { text: st.action || '(none)' }));
    $('slider').max = String(t.states.length - 1);
    $('slider').value = String(i);
    $('first').disabled = $('prev').disabled = i === 0;
    $('next').disabled = $('last').disabled = i === t.states.length - 1;
    renderVars(t, i);
    renderInvariants(t, i);
    renderOutcome(t, i, show);
    const box = $('timeline');
    for (const tr of box.querySelectorAll('tr.current')) tr.classList.remove('current');
    const row = box.querySelector(`tr[data-index="${i}"]`);
    if (row) {
      row.classList.add('current');
      const top = row.offsetTop - box.clientHeight / 2;
      box.scrollTop = Math.max(0, top);
    }
    setHash(t, st);
  }

  function select(k, stepNum) {
    app.cur = k;
    const t = app.traces[k];
    $('trace-select').value = String(k);
    renderInfo(t);
    renderTimeline(t);
    let i = 0;
    if (stepNum !== undefined && stepNum !== null) {
      const j = t.states.findIndex((s) => s.num === stepNum);
      if (j >= 0) i = j;
      else addError(`${t.title}: no state ${stepNum}; showing the first`);
    }
    document.body.classList.add('has-trace');
    show(i);
  }

  function refreshSelect() {
    const sel = $('trace-select');
    sel.textContent = '';
    if (!app.traces.length) {
      sel.append(el('option', { value: '', text: 'no trace loaded' }));
      sel.disabled = true;
      return;
    }
    sel.disabled = false;
    const groups = new Map();
    app.traces.forEach((t, k) => {
      const g = t.origin === 'embedded' ? 'in this report' : 'opened files';
      if (!groups.has(g)) groups.set(g, el('optgroup', { label: g }));
      const label = `${t.title}${t.outcome ? ` — ${t.outcome}` : ''} (${t.states.length} states)`;
      groups.get(g).append(el('option', { value: String(k), text: label }));
    });
    for (const g of groups.values()) sel.append(g);
  }

  function addError(msg) {
    app.errors.push(msg);
    const box = $('errors');
    box.hidden = false;
    box.append(el('div', { class: 'error' }, msg));
  }

  function clearErrors() {
    app.errors = [];
    $('errors').textContent = '';
    $('errors').hidden = true;
  }

  function uniqueTitle(title) {
    let t = title;
    let n = 2;
    while (app.traces.some((x) => x.title === t)) t = `${title} (${n++})`;
    return t;
  }

  function addTraces(list, origin) {
    const first = app.traces.length;
    for (const t of list) {
      t.origin = origin;
      t.title = uniqueTitle(t.title);
      app.traces.push(t);
    }
    refreshSelect();
    return first;
  }

  async function openFiles(files) {
    clearErrors();
    for (const f of files) {
      let text;
      try {
        text = await f.text();
      } catch (e) {
        addError(`${f.name}: cannot read the file (${e.message})`);
        continue;
      }
      try {
        const list = parseText(text, f.name);
        const k = addTraces(list, f.name);
        select(k);
      } catch (e) {
        if (!(e instanceof TraceError)) console.error(e);
        addError(`${f.name}: ${e.message}`);
      }
    }
  }

  function parseHash() {
    const out = {};
    for (const part of location.hash.replace(/^#/, '').split('&')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      try {
        out[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1));
      } catch (e) { /* ignore a malformed part */ }
    }
    return out;
  }

  function applyHash() {
    const h = parseHash();
    if (h.trace === undefined) return false;
    const k = app.traces.findIndex((t) => t.title === h.trace);
    if (k < 0) {
      addError(`no trace titled "${h.trace}" in this report (open its file to view it)`);
      return false;
    }
    const n = h.step !== undefined && /^-?\d+$/.test(h.step) ? Number(h.step) : null;
    const t = app.traces[k];
    if (k === app.cur && n !== null && t.states[app.idx].num === n) return true;
    select(k, n);
    return true;
  }

  function loadEmbedded() {
    const emb = window.RINGLAB_TRACES;
    if (emb === undefined) return;
    if (!Array.isArray(emb)) {
      addError('traces.js: window.RINGLAB_TRACES must be an array of traces');
      return;
    }
    const ok = [];
    emb.forEach((raw, i) => {
      try {
        ok.push(normalize(raw, ''));
      } catch (e) {
        const name = isObj(raw) && raw.title ? `"${raw.title}"` : `trace ${i + 1}`;
        addError(`traces.js, ${name}: ${e.message}`);
      }
    });
    addTraces(ok, 'embedded');
  }

  function wire() {
    $('first').addEventListener('click', () => show(0));
    $('prev').addEventListener('click', () => show(app.idx - 1));
    $('next').addEventListener('click', () => show(app.idx + 1));
    $('last').addEventListener('click', () => show(Infinity));
    $('slider').addEventListener('input', (e) => show(Number(e.target.value)));
    $('trace-select').addEventListener('change', (e) => {
      if (e.target.value !== '') select(Number(e.target.value));
    });
    $('file-input').addEventListener('change', async (e) => {
      await openFiles([...e.target.files]);
      e.target.value = '';
    });
    document.addEventListener('keydown', (e) => {
      if (app.cur < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
      const tag = e.target && e.target.tagName;
      if (tag === 'SELECT' || tag === 'TEXTAREA' || (tag === 'INPUT' && e.target.type !== 'file')) return;
      const go = { ArrowLeft: app.idx - 1, ArrowRight: app.idx + 1, Home: 0, End: Infinity }[e.key];
      if (go === undefined) return;
      e.preventDefault();
      show(go);
    });
    window.addEventListener('hashchange', () => applyHash());
    const drop = $('drop');
    let depth = 0;
    document.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; drop.hidden = false; });
    document.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) drop.hidden = true; });
    document.addEventListener('dragover', (e) => e.preventDefault());
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      drop.hidden = true;
      if (e.dataTransfer && e.dataTransfer.files.length) openFiles([...e.dataTransfer.files]);
    });
  }

  function emptyState() {
    const d = $('diagram');
    d.textContent = '';
    d.append(el('div', { class: 'empty' },
      el('p', { text: 'No trace loaded.' }),
      el('p', { text: 'Open a ringlab trace (.json, "format": "ringlab-trace/1") or a simulator trace (.jsonl from ringlab sim ring --trace), or drop one on the page.' })));
    for (const id of ['first', 'prev', 'next', 'last']) $(id).disabled = true;
  }

  function start() {
    renderLegend();
    wire();
    emptyState();
    try {
      loadEmbedded();
    } catch (e) {
      addError(`traces.js: ${e.message}`);
    }
    if (!applyHash() && app.traces.length) select(0);
  }

  // For tests and the console.
  window.ringlabExplorer = { parseText, get traces() { return app.traces; }, show, select };

  start();
})(window.ringlabParts = window.ringlabParts || {});
