// Browser test of the ring explorer: Debian's Chromium through playwright-core,
// the page opened from file:// in a temp folder with fixture traces.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const assets = path.resolve(here, '../assets');
const fixtures = path.join(here, 'fixtures');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const screenshot = process.env.EXPLORER_SCREENSHOT || path.resolve(here, '../../../target/ringlab/explorer.png');

const noD = JSON.parse(fs.readFileSync(path.join(fixtures, 'xsk-ring-no-d.json'), 'utf8'));
const live = JSON.parse(fs.readFileSync(path.join(fixtures, 'xsk-ring-cons-no-publish.json'), 'utf8'));
const simFile = path.join(fixtures, 'sim-tx-wrap.jsonl');
const simLines = fs.readFileSync(simFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const simHeader = simLines[0];
const simSteps = simLines.slice(1);

// A hand-made liveness trace that loops back, to check loop_end.
const loop = {
  format: 'ringlab-trace/1',
  kind: 'tlc-counterexample',
  title: 'hand-made-loop',
  source: 'test',
  outcome: 'liveness:EveryEntryConsumed',
  expected: 'liveness:EveryEntryConsumed',
  ring: { size: 2, never: 4, prod_side: 'kernel', cons_side: 'user' },
  loop_end: { back_to: 2 },
  states: [
    { num: 1, action: 'Init', vars: { prod: 3, cons: 3, pProd: 3, pCons: 3, pWr: 3, cProd: 3, cCons: 3, cRd: 3, cEnd: 3, slot: [{ idx: 4, ok: true }, { idx: 4, ok: true }], own: ['free', 'free'] } },
    { num: 2, action: 'ProdReserve', vars: { prod: 3, cons: 3, pProd: 0, pCons: 3, pWr: 3, cProd: 3, cCons: 3, cRd: 3, cEnd: 3, slot: [{ idx: 4, ok: true }, { idx: 4, ok: true }], own: ['free', 'free'] } },
    { num: 3, action: 'ProdWrite', vars: { prod: 3, cons: 3, pProd: 0, pCons: 3, pWr: 0, cProd: 3, cCons: 3, cRd: 3, cEnd: 3, slot: [{ idx: 4, ok: true }, { idx: 3, ok: false }], own: ['free', 'written'] } },
  ],
};

const mod = (n, m) => ((n % m) + m) % m;

let dir;
let context;
let page;
let setupError = null;
const pageErrors = [];

// Every test fails, with the reason, if the browser could not be started.
function ready() {
  if (setupError) throw setupError;
}

async function prodSlot() {
  return page.getAttribute('svg.ring [data-marker="prod"]', 'data-slot');
}

async function waitStep(num) {
  await page.waitForSelector(`#diagram svg[data-step="${num}"]`);
}

describe('ring explorer', () => {
  before(async () => {
    try {
      await setUp();
    } catch (e) {
      setupError = e;
    }
  });

  async function setUp() {
    if (!fs.existsSync(chromiumPath)) {
      throw new Error(`Chromium not found at ${chromiumPath}: install Debian's package (apt-get install chromium) or set CHROMIUM`);
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringlab-explorer-'));
    for (const f of ['explorer.html', 'explorer-trace.js', 'explorer-draw.js', 'explorer.js', 'style.css']) {
      fs.copyFileSync(path.join(assets, f), path.join(dir, f));
    }
    fs.writeFileSync(path.join(dir, 'traces.js'), `window.RINGLAB_TRACES = ${JSON.stringify([noD, live, loop])};\n`);
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      ],
      viewport: { width: 1280, height: 960 },
    });
    page = context.pages()[0] || (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(pathToFileURL(path.join(dir, 'explorer.html')).href);
    await page.waitForSelector('#diagram svg.ring');
  }

  after(async () => {
    if (context) await context.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('steps a counterexample forward and back', async () => {
    ready();
    const size = noD.ring.size;
    await page.selectOption('#trace-select', { label: `${noD.title} — ${noD.outcome} (${noD.states.length} states)` });
    await waitStep(noD.states[0].num);
    assert.equal(await prodSlot(), String(mod(noD.states[0].vars.prod, size)));
    assert.equal(await page.textContent('#step-label'), `step 1 of ${noD.states.length}`);

    // The first step that moves ->producer to another slot.
    const j = noD.states.findIndex((s, i) => i > 0 && mod(s.vars.prod, size) !== mod(noD.states[i - 1].vars.prod, size));
    assert.ok(j > 0, 'the fixture moves prod');
    for (let i = 1; i <= j; i++) {
      await page.click('#next');
      await waitStep(noD.states[i].num);
    }
    assert.equal(await prodSlot(), String(mod(noD.states[j].vars.prod, size)));
    assert.equal(await page.getAttribute('svg.ring [data-marker="prod"]', 'data-value'), String(noD.states[j].vars.prod));
    assert.match(await page.textContent('#action'), new RegExp(noD.states[j].action));
    assert.equal(await page.getAttribute('#vars tr[data-var="prod"]', 'class'), 'changed');

    await page.click('#prev');
    await waitStep(noD.states[j - 1].num);
    assert.equal(await prodSlot(), String(mod(noD.states[j - 1].vars.prod, size)));

    // The last state shows the outcome; the hash names trace and step.
    await page.click('#last');
    const endNum = noD.states.at(-1).num;
    await waitStep(endNum);
    assert.equal((await page.textContent('#outcome .outcome-main')).trim(), noD.outcome);
    const broken = noD.outcome.split(':')[1];
    assert.equal(await page.getAttribute(`#invariants [data-invariant="${broken}"]`, 'class'), 'bad');
    assert.match(await page.evaluate(() => location.hash), new RegExp(`trace=${noD.title}&step=${endNum}$`));
    await page.keyboard.press('ArrowLeft');
    await waitStep(noD.states.at(-2).num);
    await page.keyboard.press('ArrowRight');
    await waitStep(endNum);

    fs.mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
  });

  it('opens a trace from the URL hash and shows how a liveness trace ends', async () => {
    ready();
    await page.evaluate((h) => { location.hash = h; }, `#trace=${live.title}&step=${live.states.at(-1).num}`);
    await waitStep(live.states.at(-1).num);
    assert.match(await page.textContent('#outcome'), /stutters forever/);

    await page.evaluate(() => { location.hash = '#trace=hand-made-loop&step=3'; });
    await waitStep(3);
    assert.match(await page.textContent('#outcome'), /loops back to state 2/);
    // never-stored slot and invalid descriptor
    assert.equal(await page.textContent('svg.ring .slot[data-slot="0"] .slot-pos'), '–');
    assert.equal(await page.textContent('svg.ring .slot[data-slot="1"] .slot-pos'), '3!');
    await page.click('#goto-loop');
    await waitStep(2);
  });

  it('loads a simulator trace and shows wrapped counters', async () => {
    ready();
    await page.setInputFiles('#file-input', simFile);
    const first = simSteps[0].step;
    const lastStep = simSteps.at(-1).step;
    await page.waitForFunction(() => document.querySelector('#info .kind')?.textContent === 'sim-trace');
    await waitStep(first);
    assert.equal(await page.textContent('#step-label'), `step ${first} of ${lastStep}`);
    assert.equal(await page.getAttribute('#step-label', 'data-count'), String(simSteps.length));
    assert.equal(await prodSlot(), String(mod(simSteps[0].state.prod, simHeader.config.size)));
    // slots never stored into
    assert.equal(await page.locator('svg.ring .slot-pos', { hasText: '–' }).count(), simHeader.config.size);

    // The step at which ->producer wraps past 2^32.
    const w = simSteps.findIndex((s, i) => i > 0 && s.state.prod < simSteps[i - 1].state.prod);
    assert.ok(w > 0, 'the fixture wraps prod');
    await page.fill('#slider', String(w));
    await waitStep(simSteps[w].step);
    assert.equal(await page.getAttribute('svg.ring [data-marker="prod"]', 'data-value'), String(simSteps[w].state.prod));
    assert.equal(await prodSlot(), String(mod(simSteps[w].state.prod, simHeader.config.size)));
    const row = await page.textContent('#vars tr[data-var="prod"] td');
    assert.match(row, new RegExp(`^${simSteps[w].state.prod}\\b`));
    assert.equal(await page.getAttribute('#vars tr[data-var="prod"]', 'class'), 'changed');
    await page.click('#prev');
    await waitStep(simSteps[w - 1].step);
    assert.match(await page.textContent('#vars tr[data-var="prod"] td'), new RegExp(`^${simSteps[w - 1].state.prod} 0x`));
    // a long position is shortened to its low 16 bits in the diagram
    const labels = await page.locator('svg.ring .slot-pos').allTextContents();
    assert.ok(labels.some((l) => /^…[0-9a-f]{4}!?$/.test(l)), labels.join(' '));
  });

  it('says what is wrong with a malformed file, and keeps the page', async () => {
    ready();
    const bad = [JSON.stringify(simHeader), JSON.stringify(simSteps[0]), '{"step":1,"action":"ProdReserve","prod":', ''].join('\n');
    await page.setInputFiles('#file-input', { name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(bad) });
    await page.waitForSelector('#errors:not([hidden])');
    assert.match(await page.textContent('#errors'), /broken\.jsonl: line 3: not valid JSON/);
    await page.setInputFiles('#file-input', { name: 'old.json', mimeType: 'application/json', buffer: Buffer.from('{"states":[{"num":1,"action":"Init","vars":[["prod","1"]]}]}') });
    await page.waitForFunction(() => /old\.json: .*older/.test(document.querySelector('#errors').textContent));
    await page.waitForSelector('#diagram svg.ring');
    assert.deepEqual(pageErrors, []);
  });
});

// The verification report `ringlab verify` writes: its index, a
// counterexample page and the explorer with the report's traces.
const reportDir = path.resolve(process.env.RINGLAB_REPORT || path.resolve(here, '../../../target/ringlab/report'));
const reportShot = process.env.REPORT_SCREENSHOT || path.resolve(here, '../../../target/ringlab/report.png');

describe('verification report', () => {
  let ctx;

  after(async () => {
    if (ctx) await ctx.close();
  });

  it('shows the verdict, a counterexample page and the explorer with the embedded traces', async () => {
    const index = path.join(reportDir, 'index.html');
    if (!fs.existsSync(index)) {
      throw new Error(`no report at ${reportDir}: run \`ringlab verify\` (make verify) first, or set RINGLAB_REPORT to a report folder`);
    }
    if (!fs.existsSync(chromiumPath)) {
      throw new Error(`Chromium not found at ${chromiumPath}: install Debian's package (apt-get install chromium) or set CHROMIUM`);
    }
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ringlab-report-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
      viewport: { width: 1280, height: 900 },
    });
    const errors = [];
    const p = ctx.pages()[0] || (await ctx.newPage());
    p.on('pageerror', (e) => errors.push(e.message));

    // The banner agrees with the verify run's record, when there is one.
    await p.goto(pathToFileURL(index).href);
    const banner = await p.getAttribute('#banner', 'class');
    assert.match(banner, /^banner (ok|bad)$/);
    const record = path.resolve(reportDir, '../verify.json');
    if (fs.existsSync(record)) {
      const ok = JSON.parse(fs.readFileSync(record, 'utf8')).ok;
      assert.equal(banner, ok ? 'banner ok' : 'banner bad', 'the banner says what verify.json says');
    }
    assert.match(await p.textContent('#banner strong'), banner === 'banner ok' ? /All as expected/ : /Not all as expected/);
    for (const id of ['models', 'coverage', 'thresholds', 'proofs', 'mutants', 'differential', 'kernel']) {
      assert.ok(await p.$(`h2#${id}`), `section ${id}`);
    }
    fs.mkdirSync(path.dirname(reportShot), { recursive: true });
    await p.screenshot({ path: reportShot, fullPage: true });

    // A counterexample page: a ring diagram per step, readable without script.
    // Ring traces (XskRing.tla) are drawn as rings and embedded in the
    // explorer; traces of the other specs are drawn as lanes (below).
    const links = [...new Set(await p.$$eval('tr[data-model]', (rows) => rows
      .filter((r) => r.textContent.includes('XskRing.tla'))
      .flatMap((r) => [...r.querySelectorAll('a[href^="traces/"]')].map((a) => a.getAttribute('href')))))];
    assert.ok(links.length > 0, 'the models table links at least one counterexample page');
    await p.goto(new URL(links[0], pathToFileURL(index)).href);
    const steps = await p.$$eval('section.step', (s) => s.length);
    assert.ok(steps > 0);
    assert.equal(await p.$$eval('section.step svg.ring', (s) => s.length), steps);
    assert.equal(await p.evaluate(() => document.scripts.length), 0, 'the page needs no script');
    const lastStep = await p.getAttribute('section.step:last-of-type svg.ring', 'data-step');

    // Its last step in the explorer, from the embedded traces.js.
    await p.click('section.step:last-of-type a:text("open in the explorer")');
    await p.waitForSelector(`#diagram svg.ring[data-step="${lastStep}"]`);
    const embedded = await p.$$eval('#trace-select optgroup[label="in this report"] option', (o) => o.length);
    assert.ok(embedded >= links.length, `${embedded} embedded traces for ${links.length} counterexample pages`);
    assert.equal(await p.isHidden('#errors'), true, await p.textContent('#errors'));
    assert.deepEqual(errors, []);
  });

  // Every counterexample page, of every spec: a diagram on every step (a
  // ring, or the lanes of where each frame, buffer or token is), the
  // story of what broke where there is no ring, the ring indices and the
  // actor of every step, and no page (the index too) wider than the window
  // at 1366 or 1920 pixels.
  it('draws every counterexample and fits 1366 and 1920 pixels', async () => {
    const index = path.join(reportDir, 'index.html');
    const pages = fs.readdirSync(path.join(reportDir, 'traces')).filter((f) => f.endsWith('.html'));
    assert.ok(pages.length > 0, `no counterexample pages in ${reportDir}/traces`);
    for (const width of [1366, 1920]) {
      const p = ctx.pages()[0] || (await ctx.newPage());
      await p.setViewportSize({ width, height: 900 });
      for (const f of ['index.html', ...pages.map((x) => `traces/${x}`)]) {
        await p.goto(new URL(f, pathToFileURL(index)).href);
        const over = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(over <= 0, `${f} is ${over} px wider than a ${width}-pixel window`);
        if (f === 'index.html' || width !== 1366) continue;
        const steps = await p.$$eval('section.step', (s) => s.length);
        const drawn = await p.$$eval('section.step svg.ring, section.step svg.lanes', (s) => s.length);
        assert.ok(steps > 0, `${f}: no steps`);
        assert.equal(drawn, steps, `${f}: ${drawn} diagrams for ${steps} steps`);
        if (!(await p.$('section.step svg.ring'))) {
          assert.ok(await p.$('section.story ol.story-steps li'), `${f}: no story of what broke`);
        }
        // the ring indices (or the protocol's counters) on every step, and
        // each step's actor
        const rows = await p.$$eval('table.indices tbody tr', (rs) => rs.filter((r) => r.querySelector('td.num a')).map((r) => r.querySelectorAll('td.num').length));
        const cols = await p.$$eval('table.indices thead th.num', (h) => h.length);
        assert.ok(cols > 0, `${f}: no ring indices or counters`);
        assert.equal(rows.length, steps, `${f}: ${rows.length} index rows for ${steps} steps`);
        assert.ok(rows.every((n) => n === cols + 1), `${f}: a row without every index`);
        const actors = await p.$$eval('table.indices tbody tr td.muted:nth-child(2)', (c) => c.slice(1).filter((x) => x.textContent.trim() === '').length);
        assert.equal(actors, 0, `${f}: a step without its actor`);
      }
    }
  });
});
