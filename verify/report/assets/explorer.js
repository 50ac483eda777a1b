// ringlab ring explorer: loads ringlab traces and steps through them.
// Plain script, no dependencies; works from file://.
'use strict';

(function () {
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

  // ---------------------------------------------------------------- state

  const app = {
    traces: [],      // loaded traces (embedded first)
    cur: -1,         // index into traces
    idx: 0,          // index into the current trace's states
    errors: [],
  };

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

  // ---------------------------------------------------------------- formats

  // A position as a slot label: long values shortened to their low 16 bits.
  function shortPos(p) {
    if (p >= 65536) return '…' + (p % 65536).toString(16).padStart(4, '0');
    return String(p);
  }

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }

  function sv(tag, attrs, ...kids) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k) e.append(k);
    return e;
  }

  const title = (text) => sv('title', { text });

  // ---------------------------------------------------------------- diagram

  const CIRCLE_MAX = 32;

  // Geometry of the circle: slot s centred at angle 2πs/size clockwise
  // from the top. All angles in radians.
  function circleLayout(size) {
    const W = 560;
    const H = 520;
    const cx = W / 2;
    const cy = H / 2;
    const r2 = 160; // outer edge of the ring
    const r1 = 100; // inner edge
    const span = (2 * Math.PI) / size;
    const pt = (a, r) => ({ x: cx + r * Math.sin(a), y: cy - r * Math.cos(a) });
    const ang = (s) => s * span;
    const f = (n) => n.toFixed(2);
    // One arrow width as an angle at radius r, less for narrow slots.
    const unit = (r) => Math.min(span / 6, 15 / r);
    return {
      kind: 'circle',
      W, H,
      compact: size > 8,
      tiny: size > 16,
      slotPath(s) {
        if (size === 1) {
          return `M${f(cx)},${f(cy - r2)} A${r2},${r2} 0 1 1 ${f(cx - 0.01)},${f(cy - r2)} Z ` +
            `M${f(cx)},${f(cy - r1)} A${r1},${r1} 0 1 0 ${f(cx - 0.01)},${f(cy - r1)} Z`;
        }
        const a0 = ang(s) - span / 2;
        const a1 = ang(s) + span / 2;
        const large = span > Math.PI ? 1 : 0;
        const o0 = pt(a0, r2), o1 = pt(a1, r2), i1 = pt(a1, r1), i0 = pt(a0, r1);
        return `M${f(o0.x)},${f(o0.y)} A${r2},${r2} 0 ${large} 1 ${f(o1.x)},${f(o1.y)} ` +
          `L${f(i1.x)},${f(i1.y)} A${r1},${r1} 0 ${large} 0 ${f(i0.x)},${f(i0.y)} Z`;
      },
      centre(s) { return pt(ang(s), (r1 + r2) / 2); },
      angleDeg(s) { return (ang(s) * 180) / Math.PI; },
      // Tip of a marker arrow and the unit vector away from the ring.
      arrow(s, side, frac) {
        const r = side === 'out' ? r2 + 3 : r1 - 9;
        const a = ang(s) + frac * unit(r);
        const tip = pt(a, r);
        const dir = side === 'out' ? { x: Math.sin(a), y: -Math.cos(a) } : { x: -Math.sin(a), y: Math.cos(a) };
        return { tip, dir };
      },
      // Where the label lines of the markers at slot s start, and which way
      // further lines go.
      block(s, side) {
        const a = ang(s);
        const sin = Math.sin(a);
        const cos = Math.cos(a);
        const sideways = Math.abs(sin) > 0.35;
        // at the sides the arrows spread towards the labels: start these further off
        const p = pt(a, side === 'out' ? r2 + (sideways ? 36 : 30) : r1 - (sideways ? 38 : 34));
        let anchor = 'middle';
        if (sin > 0.35) anchor = side === 'out' ? 'start' : 'end';
        if (sin < -0.35) anchor = side === 'out' ? 'end' : 'start';
        // outside: lines go away from the centre; inside: towards it
        let dy = cos >= 0 ? 1 : -1;
        if (side === 'out') dy = -dy;
        return { x: p.x, y: p.y + (sideways ? 0 : dy * 4), anchor, dy, sideways };
      },
      // The arc over the slots of n positions starting at slot s (inside).
      peekPath(s, n) {
        const r = r1 - 4;
        if (n >= size) {
          return `M${f(cx)},${f(cy - r)} A${r},${r} 0 1 1 ${f(cx - 0.01)},${f(cy - r)}`;
        }
        const a0 = ang(s) - span / 2 + 0.03;
        const a1 = ang(s) - span / 2 + n * span - 0.03;
        const p0 = pt(a0, r), p1 = pt(a1, r);
        return `M${f(p0.x)},${f(p0.y)} A${r},${r} 0 ${a1 - a0 > Math.PI ? 1 : 0} 1 ${f(p1.x)},${f(p1.y)}`;
      },
    };
  }

  // Beyond 32 slots: a horizontal bar, slot 0 at the left.
  function barLayout(size) {
    const w = Math.max(18, Math.min(44, 960 / size));
    const x0 = 50;
    const top = 90;
    const h = 60;
    const W = x0 * 2 + w * size;
    const H = 250;
    const f = (n) => n.toFixed(2);
    return {
      kind: 'bar',
      W, H,
      compact: true,
      tiny: true,
      slotPath(s) {
        return `M${f(x0 + s * w)},${top} h${f(w)} v${h} h${f(-w)} Z`;
      },
      centre(s) { return { x: x0 + (s + 0.5) * w, y: top + h / 2 }; },
      angleDeg() { return 0; },
      arrow(s, side, frac) {
        const x = x0 + (s + 0.5) * w + frac * Math.min(12, w / 6);
        return side === 'out'
          ? { tip: { x, y: top - 3 }, dir: { x: 0, y: -1 } }
          : { tip: { x, y: top + h + 9 }, dir: { x: 0, y: 1 } };
      },
      block(s, side) {
        const x = x0 + (s + 0.5) * w;
        return side === 'out'
          ? { x, y: top - 26, anchor: 'middle', dy: -1, sideways: false }
          : { x, y: top + h + 38, anchor: 'middle', dy: 1, sideways: false };
      },
      peekPath(s, n) {
        const y = top + h + 4;
        const a = x0 + s * w + 2;
        const len = Math.min(n, size - s) * w - 4;
        let d = `M${f(a)},${y} h${f(len)}`;
        if (n > size - s) d += ` M${f(x0 + 2)},${y} h${f((n - (size - s)) * w - 4)}`;
        return d;
      },
    };
  }

  // The slot a marker points at, or null if the state has none.
  function markerSlot(t, key, v) {
    if (key === 'cSpec' || key === 'last') {
      const r = v[key];
      return isObj(r) && r.some && isInt(r.pos) ? ((r.pos % t.ring.size) + t.ring.size) % t.ring.size : null;
    }
    return isInt(v[key]) ? ((v[key] % t.ring.size) + t.ring.size) % t.ring.size : null;
  }

  function markerTip(t, m, v) {
    const user = t.ring.prod_side === 'user';
    if (m.key === 'cSpec') return `cSpec: position ${v.cSpec.pos} loaded before ->producer (val ${v.cSpec.val === t.ring.never ? 'never stored' : v.cSpec.val})`;
    if (m.key === 'last') {
      const l = v.last;
      const got = l.val === t.ring.never ? 'a slot never stored into' : `the entry for position ${l.val}`;
      return `last load: position ${l.pos}, got ${got}${l.pub ? '' : ', not published when loaded'}`;
    }
    const val = v[m.key];
    if (m.key === 'pCons' && user) {
      return `pCons = ${val}: the producer's cached consumer, kept plus the size; it caches cons = ${sub(t, val, t.ring.size)}`;
    }
    return `${m.key} = ${val}: ${VAR_DOC[m.key] || ''}`;
  }

  function markerLabel(t, m, lay) {
    if (m.key === 'pCons' && t.ring.prod_side === 'user') return lay.compact ? 'pC' : 'cached cons';
    return lay.compact ? m.short : m.label;
  }

  function triangle(tip, dir, half, len) {
    const bx = tip.x + dir.x * len;
    const by = tip.y + dir.y * len;
    const px = -dir.y * half;
    const py = dir.x * half;
    const f = (n) => n.toFixed(2);
    return `M${f(tip.x)},${f(tip.y)} L${f(bx + px)},${f(by + py)} L${f(bx - px)},${f(by - py)} Z`;
  }

  function renderDiagram(t, i) {
    const st = t.states[i];
    const v = st.vars;
    const size = t.ring.size;
    const lay = size <= CIRCLE_MAX ? circleLayout(size) : barLayout(size);
    const svg = sv('svg', {
      xmlns: SVGNS,
      viewBox: `0 0 ${lay.W} ${lay.H}`,
      class: `ring ring-${lay.kind}`,
      'data-step': String(st.num),
      'data-index': String(i),
      role: 'img',
      'aria-label': `ring of ${size} slots at step ${st.num}`,
    });
    if (lay.kind === 'bar') svg.setAttribute('width', String(lay.W));

    // Slots.
    const slots = sv('g', { class: 'slots' });
    for (let s = 0; s < size; s++) {
      const e = v.slot ? v.slot[s] : null;
      const never = !e || e.idx === null || e.idx === t.ring.never || e.idx === t.M;
      const own = st.own[s];
      const changed = st.slotChanged.has(s);
      const g = sv('g', { class: `slot own-${own}${changed ? ' changed' : ''}`, 'data-slot': String(s), 'data-own': own });
      const pos = never ? '–' : shortPos(e.idx);
      const tip = `slot ${s}: ${never ? 'never stored' : `entry for position ${e.idx}`}${e && e.ok === false ? ' (invalid descriptor)' : ''}; ${OWN_DOC[own]}${t.ownDerived ? ' (derived from the counters)' : ''}`;
      g.append(title(tip));
      g.append(sv('path', { d: lay.slotPath(s), fill: OWN_COLOUR[own], class: 'sector' }));
      const c = lay.centre(s);
      const fg = own === 'clobbered' ? '#ffffff' : '#111827';
      const text = pos + (e && e.ok === false ? '!' : '');
      if (!lay.compact) {
        g.append(sv('text', { x: c.x, y: c.y - 14, 'text-anchor': 'middle', class: 'slot-index', fill: own === 'clobbered' ? '#fee2e2' : '#6b7280', text: `slot ${s}` }));
        g.append(sv('text', { x: c.x, y: c.y + 5, 'text-anchor': 'middle', class: 'slot-pos', fill: fg, text }));
        g.append(sv('text', { x: c.x, y: c.y + 19, 'text-anchor': 'middle', class: 'slot-own', fill: own === 'clobbered' ? '#fee2e2' : '#4b5563', text: own }));
      } else {
        // narrow slots: the value reads along the radius
        let rot = lay.angleDeg(s) - 90;
        if (lay.kind === 'bar') rot = -90;
        else if (lay.angleDeg(s) > 180) rot += 180;
        g.append(sv('text', {
          x: c.x, y: c.y + 4, 'text-anchor': 'middle', class: 'slot-pos small', fill: fg, text,
          transform: `rotate(${rot.toFixed(1)} ${c.x.toFixed(2)} ${c.y.toFixed(2)})`,
        }));
      }
      slots.append(g);
    }
    svg.append(slots);

    // Slot numbers on the bar, at its bottom edge.
    if (lay.compact && lay.kind === 'bar') {
      const nums = sv('g', { class: 'slot-nums' });
      for (let s = 0; s < size; s += size > 64 ? 8 : 4) {
        const c = lay.centre(s);
        nums.append(sv('text', { x: c.x, y: c.y + 26, 'text-anchor': 'middle', class: 'slot-index', text: String(s) }));
      }
      svg.append(nums);
    }

    // The peeked, not yet loaded range [cRd, cEnd).
    if (isInt(v.cRd) && isInt(v.cEnd)) {
      const n = sub(t, v.cEnd, v.cRd);
      const s0 = markerSlot(t, 'cRd', v);
      if (n > 0 && n <= size) {
        const changed = st.changed.has('cRd') || st.changed.has('cEnd');
        const g = sv('g', { class: `marker peek${changed ? ' changed' : ''}`, 'data-marker': 'peek', 'data-slot': String(s0), 'data-len': String(n) });
        g.append(title(`peeked, not yet loaded: positions ${v.cRd} .. ${v.cEnd} (cRd .. cEnd), ${n} ${n === 1 ? 'entry' : 'entries'}`));
        g.append(sv('path', { d: lay.peekPath(s0, n), class: 'peek-arc', stroke: '#059669' }));
        svg.append(g);
      }
    }

    // Markers: an arrow each, labels stacked per slot and side.
    const blocks = new Map();
    const mk = sv('g', { class: 'markers' });
    for (const m of MARKERS) {
      const s = markerSlot(t, m.key, v);
      if (s === null) continue;
      const changed = st.changed.has(m.key);
      const g = sv('g', {
        class: `marker ${m.solid ? 'shared' : 'cache'}${changed ? ' changed' : ''}`,
        'data-marker': m.key,
        'data-slot': String(s),
        'data-value': String(m.key === 'cSpec' || m.key === 'last' ? v[m.key].pos : v[m.key]),
      });
      g.append(title(markerTip(t, m, v)));
      const { tip, dir } = lay.arrow(s, m.side, m.frac);
      g.append(sv('path', {
        d: lay.tiny ? triangle(tip, dir, m.solid ? 5 : 4, m.solid ? 11 : 9) : triangle(tip, dir, m.solid ? 7 : 5.5, m.solid ? 16 : 13),
        fill: m.solid ? m.colour : '#ffffff',
        stroke: m.colour,
        'stroke-width': changed ? 2.5 : 1.6,
        'stroke-dasharray': m.dashed ? '2 2' : 'none',
        class: 'arrow',
      }));
      const key = `${m.side}:${s}`;
      if (!blocks.has(key)) blocks.set(key, []);
      const line = blocks.get(key).length;
      blocks.get(key).push(m);
      const b = lay.block(s, m.side);
      const lh = lay.compact ? 12 : 15;
      let y = b.y + b.dy * line * lh;
      if (b.sideways) y = b.y + line * lh; // re-centred below
      g.append(sv('text', {
        x: b.x.toFixed(2), y: y.toFixed(2),
        'text-anchor': b.anchor,
        'dominant-baseline': 'middle',
        fill: m.colour,
        class: `marker-label${m.solid ? ' shared' : ''}${lay.compact ? ' small' : ''}`,
        text: markerLabel(t, m, lay),
      }));
      mk.append(g);
    }
    // Side blocks: centre the lines on their anchor.
    for (const [key, ms] of blocks) {
      if (ms.length < 2) continue;
      const [side, s] = key.split(':');
      const b = lay.block(Number(s), side);
      if (!b.sideways) continue;
      const lh = lay.compact ? 12 : 15;
      const shift = ((ms.length - 1) * lh) / 2;
      for (const m of ms) {
        const text = mk.querySelector(`[data-marker="${m.key}"] text`);
        text.setAttribute('y', (Number(text.getAttribute('y')) - shift).toFixed(2));
      }
    }
    svg.append(mk);

    // Sides, named where there is room.
    if (lay.kind === 'circle') {
      svg.append(sv('text', { x: 12, y: 22, class: 'side-note', fill: PROD_COLOUR, text: `producer (${t.ring.prod_side || '?'}): outside` }));
      svg.append(sv('text', { x: 12, y: 40, class: 'side-note', fill: CONS_COLOUR, text: `consumer (${t.ring.cons_side || '?'}): inside` }));
    } else {
      svg.append(sv('text', { x: 12, y: 22, class: 'side-note', fill: PROD_COLOUR, text: `producer (${t.ring.prod_side || '?'}): above` }));
      svg.append(sv('text', { x: 12, y: 40, class: 'side-note', fill: CONS_COLOUR, text: `consumer (${t.ring.cons_side || '?'}): below` }));
    }
    return svg;
  }

  function renderLegend() {
    const box = $('legend');
    box.textContent = '';
    const own = el('div', { class: 'legend-row' });
    for (const [k, c] of Object.entries(OWN_COLOUR)) {
      own.append(el('span', { class: 'chip', title: OWN_DOC[k] }, el('i', { style: `background:${c}` }), k));
    }
    const mk = el('div', { class: 'legend-row' });
    const arrow = (fill, stroke, dashed) => {
      const s = sv('svg', { width: 14, height: 14, viewBox: '0 0 14 14' });
      s.append(sv('path', { d: 'M7,13 L1,2 L13,2 Z', fill, stroke, 'stroke-width': 1.5, 'stroke-dasharray': dashed ? '2 2' : 'none' }));
      return s;
    };
    const arc = sv('svg', { width: 22, height: 14, viewBox: '0 0 22 14' });
    arc.append(sv('path', { d: 'M2,7 h18', stroke: '#059669', 'stroke-width': 5, 'stroke-linecap': 'round' }));
    mk.append(
      el('span', { class: 'chip' }, arrow(PROD_COLOUR, PROD_COLOUR), arrow(CONS_COLOUR, CONS_COLOUR), 'prod, cons: the shared counters'),
      el('span', { class: 'chip' }, arrow('#fff', PROD_COLOUR), arrow('#fff', CONS_COLOUR), 'a side\'s own copy'),
      el('span', { class: 'chip' }, arrow('#fff', '#047857', true), 'last load'),
      el('span', { class: 'chip' }, arc, 'cRd..cEnd: peeked, not loaded'),
    );
    const notes = el('div', { class: 'legend-row notes' },
      'Outside the ring: the producer\'s variables; inside: the consumer\'s. Amber: producer positions (prod and its copies pProd, pWr, cProd); blue: consumer positions (cons, pCons, cCons). ' +
      'Slot label: the position whose entry the slot holds (– never stored, ! invalid descriptor). Black outline, highlighted label: changed by this step.');
    box.append(own, mk, notes);
  }

  // ---------------------------------------------------------------- panels

  function fmtNum(n, t, counter) {
    const span = el('span', { class: 'num' }, String(n));
    const extra = [];
    if (n >= 65536) extra.push('0x' + n.toString(16));
    if (counter && t) extra.push(`slot ${((n % t.ring.size) + t.ring.size) % t.ring.size}`);
    if (extra.length) span.append(el('span', { class: 'muted', text: ` ${extra.join(' · ')}` }));
    return span;
  }

  function fmtBool(b) {
    return el('span', { class: `bool ${b ? 'yes' : 'no'}`, text: b ? 'TRUE' : 'FALSE' });
  }

  function fmtLoad(r, never) {
    const box = el('span', { class: 'record' });
    if (r.some === false) {
      box.append(el('span', { class: 'muted', text: 'none (some = FALSE)' }));
      return box;
    }
    const field = (name, val, bad) => box.append(el('span', { class: `field${bad ? ' bad' : ''}`, title: bad ? 'breaks an invariant' : '' },
      el('b', { text: name }), ' ', typeof val === 'boolean' ? (val ? 'TRUE' : 'FALSE') : String(val),
      name === 'val' && val === never ? el('span', { class: 'muted', text: ' (never stored)' }) : null));
    for (const k of Object.keys(r)) {
      if (k === 'some') continue;
      let bad = false;
      if (k === 'pub') bad = r.pub === false;
      if (k === 'val') bad = r.val !== r.pos;
      if (k === 'exp') bad = r.exp !== r.pos;
      if (k === 'ok') bad = false;
      field(k, r[k], bad);
    }
    return box;
  }

  function fmtValue(t, name, v, st) {
    if (name === 'slot' && Array.isArray(v)) {
      const box = el('span', { class: 'slots-list' });
      v.forEach((e, k) => {
        const never = e.idx === null || e.idx === t.ring.never || e.idx === t.M;
        const item = el('span', { class: `slot-item${st.entryChanged.has(k) ? ' changed' : ''}`, title: never ? 'never stored' : String(e.idx) },
          el('span', { class: 'muted', text: `${k}:` }), never ? '–' : String(e.idx), e.ok === false ? el('b', { class: 'bad-text', text: '!' }) : null);
        box.append(item);
      });
      return box;
    }
    if (name === 'own' && Array.isArray(v)) {
      const box = el('span', { class: 'slots-list' });
      v.forEach((o, k) => box.append(el('span', { class: `own-chip${st.ownChanged.has(k) ? ' changed' : ''}`, style: `background:${OWN_COLOUR[o] || '#fff'}${o === 'clobbered' ? ';color:#fff' : ''}` }, `${k}: ${o}`)));
      return box;
    }
    if ((name === 'last' || name === 'cSpec') && isObj(v)) return fmtLoad(v, t.ring.never);
    if (typeof v === 'number') return fmtNum(v, t, COUNTERS.includes(name));
    if (typeof v === 'boolean') return fmtBool(v);
    if (typeof v === 'string') return el('span', { text: v });
    return el('code', { text: JSON.stringify(v) });
  }

  function renderVars(t, i) {
    const st = t.states[i];
    const table = $('vars');
    table.textContent = '';
    const known = new Set(GROUPS.flatMap((g) => g[1]));
    const groups = GROUPS.map(([g, ks]) => [g, ks.filter((k) => k in st.vars)]);
    const other = Object.keys(st.vars).filter((k) => !known.has(k));
    if (other.length) groups.push(['other', other]);
    const body = el('tbody');
    for (const [g, ks] of groups) {
      if (!ks.length) continue;
      body.append(el('tr', { class: 'group' }, el('th', { colspan: '2', text: g })));
      for (const k of ks) {
        const ch = st.changed.has(k);
        body.append(el('tr', { class: ch ? 'changed' : '', 'data-var': k },
          el('th', { title: VAR_DOC[k] || '' }, k, ch ? el('span', { class: 'star', text: '*', title: 'changed by this step' }) : null),
          el('td', {}, fmtValue(t, k, st.vars[k], st))));
      }
    }
    if (t.ownDerived && !('own' in st.vars)) {
      body.append(el('tr', { class: 'note' }, el('td', { colspan: '2', text: 'own is not in this trace: slot colours are derived from the counters.' })));
    }
    table.append(body);
  }

  function renderInvariants(t, i) {
    const box = $('invariants');
    box.textContent = '';
    const r = invariants(t, t.states[i].vars);
    box.append(el('h3', { text: 'invariants on this state' }));
    const ul = el('ul');
    for (const [k, ok] of Object.entries(r)) {
      const cls = ok === null ? 'na' : ok ? 'ok' : 'bad';
      const mark = ok === null ? '–' : ok ? '✓' : '✗';
      ul.append(el('li', { class: cls, 'data-invariant': k, title: INVARIANT_DOC[k] + (ok === null ? ' (not in this trace)' : '') },
        el('span', { class: 'mark', text: mark }), k));
    }
    box.append(ul);
  }

  function loopText(le, t) {
    if (le === 'stuttering') return 'then stutters forever';
    if (isObj(le)) {
      const target = t.states.find((s) => s.num === le.back_to);
      return `then loops back to state ${le.back_to}${target ? ` (${target.action})` : ''}`;
    }
    return '';
  }

  function renderOutcome(t, i) {
    const box = $('outcome');
    box.textContent = '';
    const lastState = i === t.states.length - 1;
    const bad = t.outcome && t.outcome !== 'pass';
    if (!lastState || !t.outcome) { box.hidden = true; return; }
    box.hidden = false;
    box.className = `outcome ${bad ? 'bad' : 'good'}`;
    box.append(el('div', { class: 'outcome-main', text: t.outcome }));
    const name = t.outcome.split(':')[1];
    if (name && INVARIANT_DOC[name]) box.append(el('div', { class: 'outcome-doc', text: `${name}: ${INVARIANT_DOC[name]}` }));
    const lt = loopText(t.loop_end, t);
    if (lt) {
      const row = el('div', { class: 'outcome-loop', text: lt });
      if (isObj(t.loop_end)) {
        const j = t.states.findIndex((s) => s.num === t.loop_end.back_to);
        if (j >= 0) {
          const b = el('button', { type: 'button', id: 'goto-loop', text: `go to state ${t.loop_end.back_to}` });
          b.addEventListener('click', () => show(j));
          row.append(' ', b);
        }
      }
      box.append(row);
    }
    if (t.expected) {
      const same = t.expected === t.outcome;
      box.append(el('div', { class: 'outcome-exp', text: `expected ${t.expected}${same ? ' ✓' : ' — differs'}` }));
    }
  }

  function renderInfo(t) {
    const box = $('info');
    box.hidden = false;
    box.textContent = '';
    const ring = t.ring;
    const bits = [];
    bits.push(el('span', { class: 'title', text: t.title }));
    bits.push(el('span', { class: 'kind', text: t.kind }));
    const ringText = `${ring.name ? ring.name + ' ring, ' : ''}${ring.size} slots, producer ${ring.prod_side || '?'} → consumer ${ring.cons_side || '?'}`;
    bits.push(el('span', { text: ringText }));
    const extra = [];
    if (ring.start !== undefined) extra.push(`start ${ring.start}`);
    if (ring.max_batch !== undefined) extra.push(`max batch ${ring.max_batch}`);
    if (ring.invalid_descs) extra.push('invalid descriptors');
    if (Array.isArray(ring.mutants) && ring.mutants.length) extra.push(`mutants: ${ring.mutants.join(', ')}`);
    extra.push(t.M === U32 ? 'counters u32' : `counters mod ${t.M}`);
    bits.push(el('span', { class: 'muted', text: extra.join(' · ') }));
    if (t.source) bits.push(el('span', { class: 'muted', text: t.source }));
    if (t.outcome) {
      const lt = loopText(t.loop_end, t);
      bits.push(el('span', { class: `badge ${t.outcome === 'pass' ? 'good' : 'bad'}`, text: t.outcome + (lt ? `, ${lt}` : '') }));
    }
    for (const b of bits) box.append(b);
  }

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
    renderOutcome(t, i);
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
})();
