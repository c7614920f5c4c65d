// End to end: the page in Debian's Chromium (driven by playwright-core),
// served from localhost by serve.mjs with the WebAssembly module (make web)
// and a random network per game (dump_cases --make-net). For each game a
// person plays one whole game as South and one as North by clicking pits
// (seeded random choices) against `zero`; then
//   - the final position and result the page shows equal `sowzero engine`'s
//     replay of the same moves (`moves ...` then `state`);
//   - the page's protocol transcript, replayed into a native
//     `sowzero engine` with the same seed and weight file, gets the same
//     answer to every line: every agent move (genmove) and every analysis
//     the page showed came out of the same search as natively.
// Screenshots: build/web-test/GAME-south.png, GAME-north.png.
//
// Environment: SOWZERO_BIN (build/sowzero; dump_cases is taken from
// the same build folder), SOWZERO_WASM_DIR (build/web), CHROMIUM_BIN.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../serve.mjs';
import { Engine, REPO_DIR, SOWZERO_BIN, requireFile, requirePackage, rng } from './util.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const WASM_DIR = path.resolve(REPO_DIR, process.env.SOWZERO_WASM_DIR || 'build/web');
const DUMP_CASES = path.join(path.dirname(SOWZERO_BIN), 'tests/export/dump_cases');
const ARTEFACTS = path.resolve(REPO_DIR, process.env.SOWZERO_WEB_ARTEFACTS || 'build/web-test');
const SIMS = 12;
const GAMES = ['oware', 'namnam', 'bao-kenya', 'bao-laps', 'kujifunza'];

let server;
let url;
let browser;
let netDir;
const weights = {}; // game -> weight file

before(async () => {
  const { chromium } = requirePackage('playwright-core');
  requireFile(CHROMIUM, 'install Debian\'s chromium (sh scripts/install-deps.sh web)');
  requireFile(DUMP_CASES, 'run make build/tests/export/dump_cases');
  for (const f of ['sowzero.mjs', 'sowzero.wasm']) requireFile(path.join(WASM_DIR, f), 'run make web');
  netDir = mkdtempSync(path.join(os.tmpdir(), 'sowzero-web-'));
  GAMES.forEach((g, i) => {
    weights[g] = path.join(netDir, `${g}.weights`);
    execFileSync(DUMP_CASES, ['--make-net', weights[g], '--game', g, '--hidden', '16', '--blocks', '1', '--seed', String(20 + i)]);
  });
  const models = Object.fromEntries(GAMES.map((g) => [`${g}.weights`, weights[g]]));
  ({ server, url } = await serve({ port: 0, models, wasmDir: WASM_DIR }));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  mkdirSync(ARTEFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (netDir) rmSync(netDir, { recursive: true, force: true });
});

async function openPage(query) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${url}${query}`);
  return { page, errors };
}

// Waits until a person is to move (with at least `plies` moves on the
// record) or the game is over; fails on the page's errors. Returns the
// status and, for a person's move, the playable pits with the direction
// buttons each offers (Kujifunza).
async function settle(page, plies) {
  const handle = await page.waitForFunction((n) => {
    const st = document.getElementById('status').dataset.state;
    const moves = document.querySelectorAll('#moves li').length;
    if (st === 'error' || st === 'over') return { state: st, text: document.getElementById('status').textContent };
    if (st !== 'your-move' || moves < n) return false;
    const pits = [...document.querySelectorAll('#board .pit.playable')]
      .map((p) => ({ pit: p.dataset.pit, dirs: [...p.querySelectorAll('.dir')].map((d) => d.dataset.move) }));
    return { state: st, moves, pits };
  }, plies, { timeout: 60000 });
  const r = await handle.jsonValue();
  if (r.state === 'error') assert.fail(`the page reports: ${r.text}`);
  return r;
}

// Plays one game on the page by clicking: a random highlighted pit, and on
// a Kujifunza pit offering both directions, a random one of them.
async function playGame(page, seed) {
  const rand = rng(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  let clicks = 0;
  let r;
  while ((r = await settle(page, clicks ? r.moves + 1 : 0)).state !== 'over') {
    const choice = pick(r.pits);
    assert.ok(choice, 'a person is to move, but no pit is playable');
    const pit = `#board .pit[data-pit="${choice.pit}"]`;
    await page.click(choice.dirs.length ? `${pit} .dir[data-move="${pick(choice.dirs)}"]` : pit);
    clicks++;
    assert.ok(clicks < 2000, 'the game does not end');
  }
  return page.evaluate(() => ({
    actions: document.getElementById('moves').dataset.actions.split(' ').filter(Boolean).map(Number),
    sides: [...document.querySelectorAll('#moves li')].map((li) => Number(li.dataset.side)),
    pits: Object.fromEntries([...document.querySelectorAll('#board .pit')].map((p) => [p.dataset.pit, Number(p.querySelector('.count').textContent)])),
    stores: Object.fromEntries([...document.querySelectorAll('#board .store')].map((s) => [s.dataset.side, Number(s.querySelector('.count').textContent)])),
    final: document.getElementById('status').dataset.final,
    winner: document.getElementById('status').dataset.winner,
    text: document.getElementById('status').textContent,
  }));
}

// The native engine's state after the page's game: its rules, then its
// moves from the start.
async function nativeFinal(transcript, actions) {
  const native = new Engine(SOWZERO_BIN);
  try {
    const gameLine = transcript.filter((l) => l.startsWith('game ')).pop();
    await native.send(gameLine);
    return (await native.send(`moves ${actions.join(' ')}`)).split(' ');
  } finally {
    await native.close();
  }
}

// Replays the page's protocol lines into `sowzero engine --seed SEED`, the
// weight files taken from disk; returns the lines whose answers differ.
async function replay(seed, transcript, responses) {
  const native = new Engine(SOWZERO_BIN, ['--seed', String(seed)]);
  const differ = [];
  let genmoves = 0;
  try {
    for (let i = 0; i < transcript.length; i++) {
      // The page's /w/NAME is NAME in the folder of the networks.
      const line = transcript[i].replaceAll('weights=/w/', `weights=${netDir}/`);
      const answer = (await native.request(line)).replaceAll(`weights=${netDir}/`, 'weights=/w/');
      if (line.startsWith('genmove')) genmoves++;
      if (answer !== responses[i]) differ.push({ line: transcript[i], page: responses[i], native: answer, before: transcript.slice(Math.max(0, i - 3), i) });
    }
  } finally {
    await native.close();
  }
  return { differ, genmoves };
}

async function check(t, game, side, shown, page) {
  const { transcript, responses, seed } = await page.evaluate(async () => ({
    transcript: await window.sowzero.transcript(),
    responses: await window.sowzero.responses(),
    seed: window.sowzero.seed,
  }));
  assert.equal(transcript.length, responses.length);

  // The final position and result against the native replay of the moves.
  const state = await nativeFinal(transcript, shown.actions);
  const at = state.indexOf('over');
  assert.ok(at > 0, `the engine says the game is not over after ${shown.actions.join(' ')}: ${state.join(' ')}`);
  const tokens = state.slice(1, at - 1);
  const n = Object.keys(shown.pits).length;
  const pits = tokens.slice(0, n).map(Number);
  assert.deepEqual(Object.keys(shown.pits).map(Number).sort((a, b) => a - b), [...pits.keys()], 'the board shows every pit once');
  assert.deepEqual(pits.map((_, p) => shown.pits[p]), pits, 'pits on the page vs the engine');
  // Kujifunza's side panels count the kete on each side; the others show
  // the stores.
  const stores = game === 'kujifunza'
    ? [0, 1].map((s) => pits.slice(16 * s, 16 * s + 16).reduce((a, b) => a + b, 0))
    : tokens.slice(n, n + 2).map(Number);
  assert.deepEqual([shown.stores[0], shown.stores[1]], stores, 'stores on the page vs the engine');
  assert.equal(shown.final, `${state[at + 1]} ${state[at + 2]}`, 'final score on the page vs the engine');
  assert.equal(shown.winner, state[at + 3], 'winner on the page vs the engine');
  assert.match(shown.text, new RegExp(`South ${state[at + 1]} – ${state[at + 2]} North`));

  // Every answer of the page's engine against the native one's.
  const { differ, genmoves } = await replay(seed, transcript, responses);
  const agentMoves = shown.sides.filter((s) => s !== side).length;
  assert.equal(genmoves, agentMoves, 'one genmove per agent move on the record');
  assert.ok(transcript.some((l) => /^agent zero weights=/.test(l)), 'the agent played with the network');
  assert.deepEqual(differ, [], 'answers of the page\'s engine that differ from the native engine\'s');
  t.diagnostic(`${game} as ${side ? 'North' : 'South'}: ${shown.actions.length} plies, ${agentMoves} agent moves, ` +
    `${transcript.length} protocol lines replayed; ${shown.text}`);
}

for (const [i, game] of GAMES.entries()) {
  test(`${game}: a person plays a whole game as South and as North by clicking pits`, async (t) => {
    for (const side of [0, 1]) {
      const { page, errors } = await openPage(`?network=${game}.weights&side=${side}&sims=${SIMS}&seed=${7 + i}&delay=0`);
      const shown = await playGame(page, 100 * i + side);
      await page.screenshot({ path: path.join(ARTEFACTS, `${game}-${side ? 'north' : 'south'}.png`), fullPage: true });
      await check(t, game, side, shown, page);
      await page.close();
      assert.deepEqual(errors, []);
    }
  });
}
