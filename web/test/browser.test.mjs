// End to end: the page in Debian's Chromium (driven by playwright-core),
// served from localhost by serve.mjs with an exported network. A person's
// side is played by clicking pits (seeded random choices) until the game
// ends; then the board, stores and final score the page shows must equal
// the C engine's replay of the same moves, and every move the network made
// must be the most probable legal move of the same network evaluated
// outside the browser (the JSON export, which matches the C network).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../serve.mjs';
import { evaluate, loadNetwork } from '../js/netjson.js';
import { OwareGame, encode, parseRules } from '../js/oware.js';
import { readOnnxMetadata } from '../js/onnxmeta.js';
import { EXPORT_DIR, Engine, REPO_DIR, requireFile, requirePackage, rng } from './util.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const ARTEFACTS = path.resolve(REPO_DIR, process.env.SOWZERO_WEB_ARTEFACTS || 'build/web-test');
const NET = process.env.SOWZERO_WEB_NET || 'trained';

let server;
let url;
let context;
let profile;
let engine;
const pageErrors = [];

before(async () => {
  const { chromium } = requirePackage('playwright-core');
  requireFile(CHROMIUM, 'install Debian\'s chromium (sh scripts/install-deps.sh web)');
  const model = requireFile(path.join(EXPORT_DIR, `${NET}.onnx`), 'run make test-export');
  const warri = requireFile(path.join(EXPORT_DIR, 'other', 'warri.onnx'), 'run make test-export');
  ({ server, url } = await serve({ port: 0, files: { '/models/oware.onnx': model, '/models/warri.onnx': warri } }));
  profile = mkdtempSync(path.join(os.tmpdir(), 'sowzero-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  engine = new Engine();
});

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await engine?.close();
});

async function openPage(query) {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(`console: ${m.text()}`));
  page.on('requestfailed', (r) => pageErrors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${url}${query}`);
  return page;
}

const movesOf = (s) => s.split(' ').filter(Boolean).map(Number);

// Plays one game on the page as `side` (0 South, 1 North); returns the
// moves and what the page shows at the end.
async function playGame(page, side, seed) {
  if (side !== 0) await page.selectOption('#side', String(side));
  const rand = rng(seed);
  let clicks = 0;
  // Moves on the log when it is the person's turn again: after his click
  // the network replies; as North he waits for its opening move.
  let expected = side === 0 ? 0 : 1;
  for (;;) {
    await page.waitForFunction((n) => {
      const st = document.getElementById('status').dataset.state;
      const moves = document.getElementById('log').dataset.moves.split(' ').filter(Boolean).length;
      return st === 'error' || st === 'over' || (st === 'your-move' && moves >= n);
    }, expected, { timeout: 60000 });
    const state = await page.getAttribute('#status', 'data-state');
    if (state === 'error') assert.fail(`the page reports: ${await page.textContent('#status')}`);
    if (state === 'over') break;
    const pits = await page.$$('.pit.playable');
    assert.ok(pits.length > 0, 'your move, but no playable pit');
    const before = movesOf(await page.getAttribute('#log', 'data-moves')).length;
    await pits[Math.floor(rand() * pits.length)].click();
    clicks++;
    expected = before + 2;
    assert.ok(clicks < 1000, 'the game does not end');
  }
  const shown = await page.evaluate(() => ({
    moves: document.getElementById('log').dataset.moves,
    pits: [...document.querySelectorAll('.pit')].map((b) => [Number(b.dataset.pit), Number(b.querySelector('.count').textContent)]),
    stores: [...document.querySelectorAll('.store')].map((s) => [Number(s.dataset.side), Number(s.querySelector('.count').textContent)]),
    final: document.getElementById('status').dataset.final,
    reason: document.getElementById('status').dataset.reason,
    text: document.getElementById('status').textContent,
  }));
  return { ...shown, moves: movesOf(shown.moves), clicks };
}

// The page's final position against `sowzero engine` and the network's
// choices against the same network outside the browser.
async function check(t, game, side) {
  const meta = readOnnxMetadata(new Uint8Array(readFileSync(path.join(EXPORT_DIR, `${NET}.onnx`))));
  const rules = parseRules(meta.props.rules);
  await engine.send(`game oware ${meta.props.rules}`);
  const state = (await engine.replay(game.moves)).split(' ');
  const n = 2 * rules.houses;
  assert.equal(state[n + 4], 'over', `the engine says the game is not over after ${game.moves.join(' ')}`);
  const pits = Array(n);
  for (const [i, c] of game.pits) pits[i] = c;
  assert.deepEqual(pits, state.slice(1, n + 1).map(Number), 'pits on the page vs the engine');
  const stores = [0, 0];
  for (const [s, c] of game.stores) stores[s] = c;
  assert.deepEqual(stores, state.slice(n + 1, n + 3).map(Number), 'stores on the page vs the engine');
  assert.equal(game.final, `${state[n + 5]} ${state[n + 6]}`, 'final score on the page vs the engine');
  assert.match(game.text, new RegExp(`South ${state[n + 5]} – ${state[n + 6]} North`));

  const net = loadNetwork(JSON.parse(readFileSync(path.join(EXPORT_DIR, `${NET}.json`), 'utf8')));
  const g = new OwareGame(rules);
  let netMoves = 0;
  for (const a of game.moves) {
    if (g.pos.mover !== side) {
      const legal = g.legal();
      const r = evaluate(net, encode(rules, g.pos), legal);
      const best = legal.reduce((b, x) => (r.policy[x] > r.policy[b] ? x : b), legal[0]);
      assert.equal(a, best, `network move ${g.moves.length + 1}: played ${a}, its policy prefers ${best} (${r.policy})`);
      netMoves++;
    }
    g.play(a);
  }
  assert.ok(g.pos.over);
  t.diagnostic(`${game.moves.length} plies (${game.clicks} clicks, ${netMoves} network moves), ended by ${game.reason}: ` +
    `South ${game.final.replace(' ', ' – ')} North; engine: ${state.join(' ')}`);
}

test('a person plays South against the network by clicking pits', async (t) => {
  const page = await openPage('?delay=0');
  const game = await playGame(page, 0, 2024);
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTEFACTS, 'final.png'), fullPage: true });
  await check(t, game, 0);
  assert.ok(game.clicks >= 5, 'a complete game takes more than a few clicks');
  await page.close();
  assert.deepEqual(pageErrors, []);
});

test('a person plays North: the network opens', async (t) => {
  const page = await openPage('?delay=0');
  const game = await playGame(page, 1, 77);
  await page.screenshot({ path: path.join(ARTEFACTS, 'final-north.png'), fullPage: true });
  await check(t, game, 1);
  await page.close();
  assert.deepEqual(pageErrors, []);
});

test('models the page cannot play are refused with a clear message', async () => {
  let page = await openPage('?model=models/warri.onnx');
  await page.waitForFunction(() => document.getElementById('model-status').dataset.state === 'error');
  assert.match(await page.textContent('#model-status'), /grand_slam=capture_continue is not supported/);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'error');
  await page.close();
  page = await openPage('?model=no-such-model.onnx');
  await page.waitForFunction(() => document.getElementById('model-status').dataset.state === 'error');
  assert.match(await page.textContent('#model-status'), /no-such-model\.onnx: HTTP 404/);
  await page.setInputFiles('#model-file', { name: 'fake.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from([0x72, 0x10, 0x01]) });
  await page.waitForFunction(() => /fake\.onnx is not an ONNX model \(truncated/.test(document.getElementById('model-status').textContent));
  await page.close();
  // The 404 is the point of this test.
  pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !/no-such-model|404/.test(e)));
  assert.deepEqual(pageErrors, []);
});
