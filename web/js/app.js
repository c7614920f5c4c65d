// The page: loads an exported ONNX model (ONNX Runtime Web, WebAssembly),
// draws the Oware board, lets a person play one side by clicking pits and
// has the network play the other with the most probable legal move of its
// policy. The network's view of every position (move probabilities, value,
// predicted margin) is shown for the player to move.
//
// URL parameters: model=URL of the .onnx file (default models/oware.onnx),
// delay=milliseconds before the network's move (default 400).
import * as ort from '../node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';

import { maskedSoftmax } from './netjson.js';
import { readOnnxMetadata } from './onnxmeta.js';
import { NORTH, OwareGame, SOUTH, encode, featureCount, legalActions, parseRules } from './oware.js';

ort.env.wasm.wasmPaths = new URL('../node_modules/onnxruntime-web/dist/', import.meta.url).href;
// One thread: threads need a cross-origin-isolated page, which a plain
// static server does not give, and the network is small.
ort.env.wasm.numThreads = 1;

const params = new URLSearchParams(location.search);
const MODEL_URL = params.get('model') || 'models/oware.onnx';
const DELAY = params.has('delay') ? Math.max(0, Number(params.get('delay')) || 0) : 400;

const SIDE_NAME = ['South', 'North'];
const $ = (id) => document.getElementById(id);

const app = {
  session: null,
  rules: null,
  meta: null,
  game: null,
  human: SOUTH,
  view: null, // the network's view of the current position
  last: null, // {pit, captured: [pits]} of the last move
  notes: [], // one line per move played, for the log
  generation: 0, // bumped by every new game: stale async work stops
  busy: false,
};

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

function setModelStatus(state, text) {
  const s = $('model-status');
  s.dataset.state = state;
  s.textContent = text;
}

// Checks that a model is an Oware network this page can drive and opens it.
async function loadModel(bytes, label) {
  let meta;
  try {
    meta = readOnnxMetadata(bytes);
  } catch (e) {
    throw new Error(`${label} is not an ONNX model (${e.message})`);
  }
  const p = meta.props;
  if (meta.producer !== 'sowzero' || !p.game)
    throw new Error(`${label} is not a SowZero export (sowzero export RUN --format onnx)`);
  if (p.game !== 'oware') throw new Error(`${label} is a network for ${p.game}; this page plays Oware`);
  const rules = parseRules(p.rules);
  if (p.encoding_version !== '1')
    throw new Error(`${label} uses Oware feature encoding version ${p.encoding_version}; this page encodes version 1`);
  if (Number(p.n_features) !== featureCount(rules) || Number(p.n_actions) !== rules.houses)
    throw new Error(`${label} takes ${p.n_features} features and ${p.n_actions} actions; ` +
      `these rules need ${featureCount(rules)} and ${rules.houses}`);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  app.session = session;
  app.rules = rules;
  app.meta = p;
  setModelStatus('ready', `${label}: ${p.network.replace(/ \(.*\)$/, '')}, ${rules.houses} houses × ${rules.seeds} seeds`);
}

// The network on one position: policy over the legal moves, value and
// predicted margin for the player to move.
async function evaluate(pos) {
  const f = encode(app.rules, pos);
  const out = await app.session.run({ features: new ort.Tensor('float32', f, [1, f.length]) });
  const legal = legalActions(app.rules, pos);
  const logits = Array.from(out.policy_logits.data);
  return { mover: pos.mover, legal, policy: maskedSoftmax(logits, legal), value: out.value.data[0], score: out.score.data[0] };
}

// ---- Drawing -------------------------------------------------------------

function pitElement(pit, owner, action) {
  const g = app.game;
  const p = g.pos;
  const wrap = document.createElement('div');
  wrap.className = 'pit-wrap';
  const label = document.createElement('div');
  label.className = 'pit-label';
  label.textContent = `pit ${pit}`;
  const btn = document.createElement('button');
  btn.type = 'button';
  btn.className = 'pit';
  btn.dataset.pit = pit;
  btn.dataset.owner = owner;
  btn.dataset.action = action;
  const n = p.pits[pit];
  btn.innerHTML = `<span class="count">${n}</span><span class="seeds">${'<i></i>'.repeat(Math.min(n, 15))}</span>`;
  btn.setAttribute('aria-label', `${SIDE_NAME[owner]} pit ${pit}: ${n} seeds`);
  const playable = !app.busy && !p.over && owner === app.human && p.mover === app.human && g.legal().includes(action);
  if (playable) {
    btn.classList.add('playable');
    btn.addEventListener('click', () => humanMove(action));
  } else {
    btn.disabled = true;
  }
  if (app.last && app.last.pit === pit) btn.classList.add('last');
  if (app.last && app.last.captured.includes(pit)) btn.classList.add('captured');
  const bar = document.createElement('div');
  bar.className = 'prob';
  const v = app.view;
  if (v && v.mover === owner && !p.over) {
    bar.innerHTML = `<b style="width:${(100 * v.policy[action]).toFixed(1)}%"></b>`;
    bar.title = `network: ${(100 * v.policy[action]).toFixed(1)}%`;
  }
  wrap.append(label, btn, bar);
  return wrap;
}

function render() {
  const g = app.game;
  const h = app.rules.houses;
  const me = app.human;
  const opp = 1 - me;
  // The person's row at the bottom from his left; the opponent's row above,
  // so that seeds travel counter-clockwise on screen as on the board.
  const bottom = $('row-bottom');
  const top = $('row-top');
  bottom.replaceChildren(...[...Array(h).keys()].map((a) => pitElement(me * h + a, me, a)));
  top.replaceChildren(...[...Array(h).keys()].map((k) => pitElement(opp * h + h - 1 - k, opp, h - 1 - k)));
  const stores = [
    ['store-bottom', me, `You (${SIDE_NAME[me]})`],
    ['store-top', opp, `Network (${SIDE_NAME[opp]})`],
  ];
  for (const [id, side, text] of stores) {
    $(id).dataset.side = side;
    $(id).querySelector('.store-label').textContent = text;
    $(id).querySelector('.count').textContent = g.pos.store[side];
  }
  // The log: one row per turn pair, South's move then North's.
  const log = $('log');
  log.dataset.moves = g.moves.join(' ');
  const rows = [];
  for (const { side, text } of app.notes) {
    if (!rows.length || rows[rows.length - 1][side] !== undefined || (side === SOUTH && rows[rows.length - 1][NORTH] !== undefined))
      rows.push([]);
    rows[rows.length - 1][side] = text;
  }
  log.tBodies[0].replaceChildren(...rows.map((r, i) => {
    const tr = document.createElement('tr');
    for (const t of [`${i + 1}.`, r[SOUTH] ?? '', r[NORTH] ?? '']) tr.append(Object.assign(document.createElement('td'), { textContent: t }));
    return tr;
  }));
  const scroll = $('log-scroll');
  scroll.scrollTop = scroll.scrollHeight;
  renderView();
}

function renderView() {
  const v = app.view;
  const probs = $('probs');
  if (!v || app.game.pos.over) {
    $('view-who').textContent = app.game.pos.over ? 'The game is over.' : '';
    probs.replaceChildren();
    $('value').textContent = '–';
    $('score').textContent = '–';
    return;
  }
  const who = v.mover === app.human ? `you (${SIDE_NAME[v.mover]})` : `the network (${SIDE_NAME[v.mover]})`;
  $('view-who').textContent = `Player to move: ${who}.`;
  const h = app.rules.houses;
  const best = v.legal.reduce((b, a) => (v.policy[a] > v.policy[b] ? a : b), v.legal[0]);
  const cells = [];
  for (let a = 0; a < h; a++) {
    const pit = v.mover * h + a;
    const legal = v.legal.includes(a);
    const cls = legal ? (a === best ? 'best' : '') : 'illegal';
    const name = Object.assign(document.createElement('span'), { className: cls, textContent: `pit ${pit}` });
    const bar = Object.assign(document.createElement('div'), { className: 'bar' });
    bar.innerHTML = `<b style="width:${(100 * v.policy[a]).toFixed(1)}%"></b>`;
    const pct = Object.assign(document.createElement('span'), { className: cls, textContent: legal ? `${(100 * v.policy[a]).toFixed(1)}%` : '–' });
    pct.dataset.action = a;
    cells.push(name, bar, pct);
  }
  probs.replaceChildren(...cells);
  const sign = (x, d) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(d);
  $('value').textContent = `${sign(v.value, 3)} for ${SIDE_NAME[v.mover]}`;
  $('value').dataset.value = v.value;
  $('score').textContent = `${sign(v.score, 1)} seeds for ${SIDE_NAME[v.mover]}`;
}

function showOutcome() {
  const p = app.game.pos;
  const f = p.final.map((x) => (p.half ? `${x}.5` : `${x}`));
  const why = {
    target: 'a player reached the target',
    famine: 'the player to move could not move or feed',
    repetition: 'a position repeated',
    nocapture: 'too long without a capture',
    maxplies: 'the move limit was reached',
  }[p.reason] || p.reason;
  let who = 'Draw.';
  if (p.winner === app.human) who = 'You win!';
  else if (p.winner !== 2) who = 'The network wins.';
  const s = $('status');
  s.dataset.final = `${f[0]} ${f[1]}`;
  s.dataset.reason = p.reason;
  // Final scores count the seeds left in each row for its owner
  // (leftover=own_row), which the stores do not show.
  const left = app.rules.leftover === 'own_row' && p.pits.some((x) => x > 0) ? ' with the seeds left in each row' : '';
  setStatus('over', `Game over (${why}): South ${f[0]} – ${f[1]} North${left}. ${who}`);
}

// ---- Play ----------------------------------------------------------------

function play(action) {
  const g = app.game;
  const pit = g.pos.mover * app.rules.houses + action;
  const side = g.pos.mover;
  const r = g.play(action);
  const text = `pit ${pit}${r.captured ? `, takes ${r.captured}` : ''}${r.grandSlam ? ' (grand slam: no capture)' : ''}`;
  app.notes.push({ side, text });
  app.last = { pit, captured: r.pits };
}

async function afterMove(gen) {
  const g = app.game;
  app.view = null;
  if (!g.pos.over) app.view = await evaluate(g.pos);
  if (gen !== app.generation) return;
  if (g.pos.over) {
    render();
    showOutcome();
    return;
  }
  if (g.pos.mover === app.human) {
    app.busy = false;
    render();
    setStatus('your-move', 'Your move: click one of your highlighted pits.');
    return;
  }
  app.busy = true;
  render();
  setStatus('thinking', 'The network is thinking…');
  if (DELAY) await new Promise((r) => setTimeout(r, DELAY));
  if (gen !== app.generation) return;
  const v = app.view;
  const best = v.legal.reduce((b, a) => (v.policy[a] > v.policy[b] ? a : b), v.legal[0]);
  play(best);
  await afterMove(gen);
}

function humanMove(action) {
  if (app.busy || app.game.pos.over || app.game.pos.mover !== app.human) return;
  app.busy = true;
  play(action);
  render();
  afterMove(app.generation).catch(fail);
}

async function newGame() {
  const gen = ++app.generation;
  app.human = Number($('side').value);
  app.game = new OwareGame(app.rules);
  app.notes = [];
  app.last = null;
  app.view = null;
  app.busy = true;
  delete $('status').dataset.final;
  delete $('status').dataset.reason;
  await afterMove(gen);
}

function fail(e) {
  console.error(e);
  setStatus('error', e.message);
}

async function start() {
  $('new-game').addEventListener('click', () => app.rules && newGame().catch(fail));
  $('side').addEventListener('change', () => app.rules && newGame().catch(fail));
  $('model-file').addEventListener('change', async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    try {
      setModelStatus('loading', `Loading ${file.name}…`);
      await loadModel(new Uint8Array(await file.arrayBuffer()), file.name);
      await newGame();
    } catch (e) {
      setModelStatus('error', e.message);
      setStatus('error', 'This model cannot be played here; load an exported Oware model.');
    }
  });
  try {
    const resp = await fetch(MODEL_URL);
    if (!resp.ok) throw new Error(`${MODEL_URL}: HTTP ${resp.status}`);
    await loadModel(new Uint8Array(await resp.arrayBuffer()), MODEL_URL.split('/').pop());
    await newGame();
  } catch (e) {
    setModelStatus('error', `No model: ${e.message}`);
    setStatus('error', 'Load an exported Oware model: sowzero export RUN --format onnx --out web/models/oware.onnx, or pick a file above.');
  }
}

start();
