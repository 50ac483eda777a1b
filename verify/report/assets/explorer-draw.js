// ringlab ring explorer, 2 of 3: a state drawn (the ring diagram, its
// legend, the variables, invariants and outcome panels), from what
// explorer-trace.js defines.
'use strict';

(function (R) {
  const {
    SVGNS, U32, OWN_COLOUR, OWN_DOC, PROD_COLOUR, CONS_COLOUR, COUNTERS, GROUPS, VAR_DOC,
    INVARIANT_DOC, MARKERS, $, TraceError, lineOf, jsonError, isObj, isInt, parseText,
    normalize, SIM_HEADER, SIM_FIELDS, fromSimLines, finish, sub, inRange, deriveOwn,
    invariants,
  } = R;

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

  // goTo(j): the page shows state j (the loop's start).
  function renderOutcome(t, i, goTo) {
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
          b.addEventListener('click', () => goTo(j));
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

  Object.assign(R, { shortPos, el, sv, title, CIRCLE_MAX, circleLayout, barLayout, markerSlot, markerTip, markerLabel, triangle, renderDiagram, renderLegend, fmtNum, fmtBool, fmtLoad, fmtValue, renderVars, renderInvariants, loopText, renderOutcome, renderInfo });
})(window.ringlabParts = window.ringlabParts || {});
