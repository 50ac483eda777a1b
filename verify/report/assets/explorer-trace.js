// ringlab ring explorer, 1 of 3: the spec's vocabulary and the trace
// formats (ringlab-trace/1 JSON, the simulator's JSONL), parsed and
// checked with errors that say where. Plain script, no dependencies;
// works from file://. explorer-draw.js and explorer.js read what it
// puts in window.ringlabParts.
'use strict';

(function (R) {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const U32 = 4294967296;

  // Slot fill by owner (the spec's `own`).
  const OWN_COLOUR = {
    free: '#e5e7eb',
    written: '#fde68a',
    published: '#93c5fd',
    read: '#bbf7d0',
    clobbered: '#ef4444',
  };
  const OWN_DOC = {
    free: 'free: nobody\'s entry',
    written: 'written: stored, not yet published (producer\'s)',
    published: 'published: the consumer\'s to load',
    read: 'read: loaded, not yet handed back',
    clobbered: 'clobbered: an unread entry was overwritten',
  };
  const PROD_COLOUR = '#b45309';
  const CONS_COLOUR = '#1d4ed8';

  // Counters, in the order the spec declares them.
  const COUNTERS = ['prod', 'cons', 'pProd', 'pCons', 'pWr', 'cProd', 'cCons', 'cRd', 'cEnd', 'cExp'];
  const GROUPS = [
    ['shared', ['prod', 'cons', 'slot', 'own']],
    ['producer', ['pProd', 'pCons', 'pWr', 'pAhead']],
    ['consumer', ['cProd', 'cCons', 'cRd', 'cEnd', 'cValid', 'cSpec']],
    ['history', ['cExp', 'last']],
  ];
  const VAR_DOC = {
    prod: 'ring->producer: the shared producer counter',
    cons: 'ring->consumer: the shared consumer counter',
    slot: 'slot[s]: the position whose entry slot s holds (– never stored, ! invalid descriptor)',
    own: 'own[s]: whose slot s is',
    pProd: 'producer\'s cached_prod: next position to reserve',
    pCons: 'producer\'s cached_cons (a user producer keeps it plus the ring size)',
    pWr: 'producer: next reserved position not yet stored',
    pAhead: 'without barrier A: an entry stored before its reservation',
    cProd: 'consumer\'s cached_prod',
    cCons: 'consumer\'s cached_cons (user side: end of its peeks)',
    cRd: 'consumer: next peeked position not yet loaded',
    cEnd: 'consumer: end of the peeked positions',
    cValid: 'consumer: valid entries loaded since the last release',
    cSpec: 'without barrier C: an entry loaded before ->producer',
    cExp: 'ghost: the position FIFO order expects loaded next',
    last: 'history: the consumer\'s last load',
  };
  const INVARIANT_DOC = {
    IndicesAreU32: 'every counter stays a u32',
    CachedNotAhead: 'a cached copy of the other side\'s counter lags the truth, never leads',
    InFlightBounded: 'published and reserved entries never exceed the size',
    NoOverwrite: 'the producer never overwrites an entry nobody loaded',
    ReadsPublished: 'the consumer loads only published entries, and the entry stored for that position',
    FifoOrder: 'positions are loaded in order, each once',
    EveryEntryConsumed: 'every published entry is eventually consumed and handed back',
  };

  // Markers: side decides where they are drawn (producer outside the ring,
  // consumer inside), shared ones are solid, caches hollow. frac: the
  // arrow's offset from the slot's centre line in arrow widths (clockwise
  // positive), so arrows at one slot do not overlap.
  const MARKERS = [
    { key: 'prod', side: 'out', solid: true, label: 'prod', short: 'P', colour: PROD_COLOUR, frac: 0 },
    { key: 'pProd', side: 'out', solid: false, label: 'pProd', short: 'pP', colour: PROD_COLOUR, frac: -1 },
    { key: 'pWr', side: 'out', solid: false, label: 'pWr', short: 'pW', colour: PROD_COLOUR, frac: 1 },
    { key: 'pCons', side: 'out', solid: false, label: 'pCons', short: 'pC', colour: CONS_COLOUR, frac: 2 },
    { key: 'cons', side: 'in', solid: true, label: 'cons', short: 'C', colour: CONS_COLOUR, frac: 0 },
    { key: 'cProd', side: 'in', solid: false, label: 'cProd', short: 'cP', colour: PROD_COLOUR, frac: -1 },
    { key: 'cCons', side: 'in', solid: false, label: 'cCons', short: 'cC', colour: CONS_COLOUR, frac: 1 },
    { key: 'last', side: 'in', solid: false, dashed: true, label: 'last load', short: 'L', colour: '#047857', frac: 2 },
    { key: 'cSpec', side: 'in', solid: false, dashed: true, label: 'cSpec (early load)', short: 'cS', colour: '#7c3aed', frac: -2 },
  ];

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- parsing

  class TraceError extends Error {}

  function lineOf(text, pos) {
    let line = 1;
    let col = 1;
    for (let i = 0; i < pos && i < text.length; i++) {
      if (text[i] === '\n') { line++; col = 1; } else { col++; }
    }
    return { line, col };
  }

  // A JSON.parse error message with the line and column it happened at.
  function jsonError(text, err) {
    const m = /position (\d+)/.exec(err.message);
    const msg = err.message.replace(/\s*\(line \d+ column \d+\)/, '');
    if (m) {
      const { line, col } = lineOf(text, Number(m[1]));
      return `line ${line}, column ${col}: ${msg}`;
    }
    return msg;
  }

  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

  // Any trace file: ringlab-trace/1 JSON (one trace or an array) or a
  // simulator JSONL trace. Returns normalized traces; throws TraceError.
  function parseText(text, name) {
    text = text.replace(/^\uFEFF/, '');
    if (text.trim() === '') throw new TraceError('the file is empty');
    let value;
    let whole = null;
    try {
      value = JSON.parse(text);
    } catch (e) {
      whole = e;
    }
    if (whole === null) {
      if (Array.isArray(value)) return value.map((t, i) => normalize(t, `trace ${i + 1} of the array`));
      if (isObj(value) && typeof value.ring === 'string' && !('states' in value)) {
        return [fromSimLines(text, name)];
      }
      return [normalize(value, '')];
    }
    // Not one JSON value: a JSONL file if its first line is an object.
    const first = text.split('\n').find((l) => l.trim() !== '');
    let head = null;
    try { head = JSON.parse(first); } catch (e) { /* not JSONL */ }
    if (isObj(head) && !('format' in head) && !('states' in head)) return [fromSimLines(text, name)];
    throw new TraceError(`not valid JSON: ${jsonError(text, whole)}`);
  }

  function normalize(t, where) {
    const at = where ? `${where}: ` : '';
    const fail = (msg) => { throw new TraceError(at + msg); };
    if (!isObj(t)) fail('expected a JSON object with "format": "ringlab-trace/1"');
    if (t.format !== 'ringlab-trace/1') {
      if (t.format === undefined && Array.isArray(t.states) && t.states[0] && Array.isArray(t.states[0].vars)) {
        fail('this is the older `ringlab check` trace shape (vars as [name, TLA+ text] pairs); the explorer reads "format": "ringlab-trace/1"');
      }
      fail(`"format" is ${JSON.stringify(t.format)}, expected "ringlab-trace/1"`);
    }
    if (!isObj(t.ring)) fail('"ring" is missing (expected {"size", "never", "prod_side", "cons_side"})');
    if (!isInt(t.ring.size) || t.ring.size < 1) fail(`"ring.size" must be a positive integer, not ${JSON.stringify(t.ring.size)}`);
    if (t.ring.never !== undefined && t.ring.never !== null && !isInt(t.ring.never)) fail('"ring.never" must be an integer');
    if (!Array.isArray(t.states) || t.states.length === 0) fail('"states" must be a non-empty array');
    const size = t.ring.size;
    const states = t.states.map((s, i) => {
      const sw = `states[${i}]`;
      if (!isObj(s)) fail(`${sw} is not an object`);
      if (!isObj(s.vars)) fail(`${sw}.vars must be an object of variable values`);
      for (const c of COUNTERS) {
        if (c in s.vars && !isInt(s.vars[c])) fail(`${sw}.vars.${c} must be an integer, not ${JSON.stringify(s.vars[c])}`);
      }
      if ('slot' in s.vars) {
        const sl = s.vars.slot;
        if (!Array.isArray(sl) || sl.length !== size) fail(`${sw}.vars.slot must be an array of ${size} entries`);
        sl.forEach((e, k) => {
          if (!isObj(e) || !(e.idx === null || isInt(e.idx))) fail(`${sw}.vars.slot[${k}] must be {"idx": integer, "ok": bool}`);
        });
      }
      if ('own' in s.vars) {
        const own = s.vars.own;
        if (!Array.isArray(own) || own.length !== size) fail(`${sw}.vars.own must be an array of ${size} owners`);
        own.forEach((o, k) => {
          if (!(o in OWN_COLOUR)) fail(`${sw}.vars.own[${k}] is ${JSON.stringify(o)}, not one of ${Object.keys(OWN_COLOUR).join(', ')}`);
        });
      }
      return {
        num: isInt(s.num) ? s.num : i + 1,
        action: typeof s.action === 'string' ? s.action : '',
        vars: s.vars,
      };
    });
    const le = t.loop_end;
    if (!(le === null || le === undefined || le === 'stuttering' || (isObj(le) && isInt(le.back_to)))) {
      fail(`"loop_end" must be null, "stuttering" or {"back_to": N}, not ${JSON.stringify(le)}`);
    }
    return finish({
      format: t.format,
      kind: t.kind || 'trace',
      title: String(t.title || 'untitled'),
      source: t.source || '',
      outcome: t.outcome || null,
      expected: t.expected || null,
      ring: Object.assign({}, t.ring),
      loop_end: le === undefined ? null : le,
      states,
    });
  }

  const SIM_HEADER = { ring: 'string', size: 'number', prod_side: 'string', cons_side: 'string' };
  const SIM_FIELDS = ['prod', 'cons', 'pProd', 'pCons', 'pWr', 'cProd', 'cCons', 'cRd', 'cEnd'];

  // A `ringlab sim ring --trace` file: a header line {"protocol", "seed",
  // "mutants", "config"}, then one line a step {"step", "action", "state"}.
  function fromSimLines(text, name) {
    const lines = text.split('\n');
    let header = null;
    const states = [];
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i].trim();
      if (raw === '') continue;
      const n = i + 1;
      const fail = (msg) => { throw new TraceError(`line ${n}: ${msg}`); };
      let v;
      try {
        v = JSON.parse(raw);
      } catch (e) {
        fail(`not valid JSON: ${e.message.replace(/\s*\(line \d+ column \d+\)/, '')}`);
      }
      if (!isObj(v)) fail('expected a JSON object');
      if (header === null) {
        if (typeof v.protocol !== 'string' || !isObj(v.config)) fail('the header needs "protocol" and "config"; a simulator trace starts with {"protocol", "seed", "steps", "mutants", "config"}');
        if (v.protocol !== 'xsk_ring') fail(`this is a trace of ${v.protocol}; the explorer draws xsk_ring traces`);
        const c = v.config;
        for (const [k, ty] of Object.entries(SIM_HEADER)) {
          if (typeof c[k] !== ty) fail(`the header's config needs "${k}" (a ${ty})`);
        }
        if (!isInt(c.size) || c.size < 1) fail('"size" must be a positive integer');
        header = Object.assign({}, c, { seed: v.seed, mutants: v.mutants });
        continue;
      }
      const st = v.state;
      if (!isObj(st)) fail('"state" is missing (expected {"step", "action", "state"})');
      for (const f of SIM_FIELDS) {
        if (!isInt(st[f])) fail(`"${f}" must be an integer${f in st ? `, not ${JSON.stringify(st[f])}` : ' and is missing'}`);
      }
      if (typeof v.action !== 'string') fail('"action" is missing');
      if (!Array.isArray(st.slot) || st.slot.length !== header.size) fail(`"slot" must be an array of ${header.size} entries`);
      if (!Array.isArray(st.slotOk) || st.slotOk.length !== header.size) fail(`"slotOk" must be an array of ${header.size} booleans`);
      if (states.length === 0 && v.action !== 'Init') fail(`the first step must be "Init", not ${JSON.stringify(v.action)}`);
      const vars = {};
      for (const f of SIM_FIELDS) vars[f] = st[f];
      vars.slot = st.slot.map((idx, k) => ({ idx: idx === null ? U32 : idx, ok: st.slotOk[k] !== false }));
      states.push({ num: isInt(v.step) ? v.step : states.length, action: v.action, vars });
    }
    if (header === null) throw new TraceError('the file is empty');
    if (states.length === 0) throw new TraceError('the trace has a header but no steps');
    const ring = {
      size: header.size,
      never: U32,
      prod_side: header.prod_side,
      cons_side: header.cons_side,
      name: header.ring,
    };
    for (const k of ['start', 'max_batch', 'seed', 'invalid_descs', 'mutants']) {
      if (k in header) ring[k] = header[k];
    }
    const mut = Array.isArray(header.mutants) && header.mutants.length ? ` [${header.mutants.join(', ')}]` : '';
    return finish({
      format: 'ringlab-trace/1',
      kind: 'sim-trace',
      title: `${header.ring} ring, seed ${header.seed}${mut}`,
      source: name || '',
      outcome: null,
      expected: null,
      ring,
      loop_end: null,
      states,
    });
  }

  // Derived, per state: the owners (given or derived) and what changed.
  function finish(t) {
    t.M = isInt(t.ring.never) && t.ring.never > 0 ? t.ring.never : U32;
    t.ownDerived = !t.states.every((s) => Array.isArray(s.vars.own));
    let prev = null;
    for (const s of t.states) {
      s.own = Array.isArray(s.vars.own) ? s.vars.own : deriveOwn(t, s.vars);
      s.changed = new Set();
      s.slotChanged = new Set(); // entry or owner changed
      s.entryChanged = new Set();
      s.ownChanged = new Set();
      if (prev) {
        const names = new Set([...Object.keys(prev.vars), ...Object.keys(s.vars)]);
        for (const k of names) {
          if (JSON.stringify(prev.vars[k]) !== JSON.stringify(s.vars[k])) s.changed.add(k);
        }
        for (let k = 0; k < t.ring.size; k++) {
          const a = prev.vars.slot && prev.vars.slot[k];
          const b = s.vars.slot && s.vars.slot[k];
          if (JSON.stringify(a) !== JSON.stringify(b)) s.entryChanged.add(k);
          if (prev.own[k] !== s.own[k]) s.ownChanged.add(k);
          if (s.entryChanged.has(k) || s.ownChanged.has(k)) s.slotChanged.add(k);
        }
      }
      prev = s;
    }
    return t;
  }

  function sub(t, a, b) {
    return (((a - b) % t.M) + t.M) % t.M;
  }

  const inRange = (t, x, lo, hi) => sub(t, x, lo) < sub(t, hi, lo);

  // Owners from the counters, for traces without `own`: the entry stored in
  // a slot is read if its position is in [cons, cRd), published if in
  // [cons, prod), written if in [prod, pWr), else free.
  function deriveOwn(t, v) {
    const own = [];
    for (let k = 0; k < t.ring.size; k++) {
      const e = v.slot && v.slot[k];
      const p = e ? e.idx : null;
      let o = 'free';
      if (p !== null && p !== t.M && p !== t.ring.never && isInt(v.cons)) {
        if (isInt(v.cRd) && inRange(t, p, v.cons, v.cRd)) o = 'read';
        else if (isInt(v.prod) && inRange(t, p, v.cons, v.prod)) o = 'published';
        else if (isInt(v.prod) && isInt(v.pWr) && inRange(t, p, v.prod, v.pWr)) o = 'written';
      }
      own.push(o);
    }
    return own;
  }

  // The spec's invariants on one state: true, false, or null (not in trace).
  function invariants(t, v) {
    const size = t.ring.size;
    const has = (...ks) => ks.every((k) => isInt(v[k]));
    const r = {};
    const cs = COUNTERS.filter((c) => isInt(v[c]));
    r.IndicesAreU32 = cs.length ? cs.every((c) => v[c] >= 0 && v[c] < t.M) : null;
    r.CachedNotAhead = has('cons', 'pCons', 'prod', 'cProd')
      ? sub(t, v.cons, t.ring.prod_side === 'user' ? sub(t, v.pCons, size) : v.pCons) <= size &&
        sub(t, v.prod, v.cProd) <= size
      : null;
    r.InFlightBounded = has('prod', 'cons', 'pProd')
      ? sub(t, v.prod, v.cons) <= size && sub(t, v.pProd, v.cons) <= size
      : null;
    r.NoOverwrite = Array.isArray(v.own) ? v.own.every((o) => o !== 'clobbered') : null;
    const l = isObj(v.last) ? v.last : null;
    r.ReadsPublished = l ? !l.some || (l.pub === true && l.val === l.pos) : null;
    r.FifoOrder = l ? !l.some || l.pos === l.exp : null;
    return r;
  }

  Object.assign(R, { SVGNS, U32, OWN_COLOUR, OWN_DOC, PROD_COLOUR, CONS_COLOUR, COUNTERS, GROUPS, VAR_DOC, INVARIANT_DOC, MARKERS, $, TraceError, lineOf, jsonError, isObj, isInt, parseText, normalize, SIM_HEADER, SIM_FIELDS, fromSimLines, finish, sub, inRange, deriveOwn, invariants });
})(window.ringlabParts = window.ringlabParts || {});
