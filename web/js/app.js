// The page: any SowZero game against the engine's own agents, compiled to
// WebAssembly and run in a worker (worker.js, engine.js). A person plays
// South, North, both or neither by clicking pits; the agent is `zero` with
// a loaded network, or plain MCTS without one. The agent's view of each
// position (value, margin, visits and priors) is shown beside the board.
//
// URL parameters: game=NAME (a game or preset), side=0|1|agents|both,
// network=NAME (one listed under /models/), sims=N, seed=N (the agents'
// seed, as `sowzero engine --seed`), delay=ms before each agent move.
import { readWeightsHeader } from './engine.js';

const params = new URLSearchParams(location.search);
const SEED = params.has('seed') ? Number(params.get('seed')) : 1 + Math.floor(Math.random() * 1e9);
const DELAY = params.has('delay') ? Math.max(0, Number(params.get('delay')) || 0) : 400;
const SIDE = ['South', 'North'];
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- The worker ----------------------------------------------------------

class EngineClient {
  constructor() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.next = 1;
    this.pending = new Map();
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      this.pending.delete(data.id);
      if ('error' in data) p.reject(new Error(data.error));
      else p.resolve(data.result);
    };
    // A worker that cannot start (e.g. the module is not built) says so here.
    this.worker.onerror = (e) => {
      e.preventDefault();
      const err = new Error(`the engine did not start (${e.message || 'the WebAssembly module is missing: run make web'})`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      fail(err);
    };
  }

  call(method, ...args) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args });
    });
  }
}

const app = {
  engine: null,
  registry: null, // games, options and presets (sz_rules_json)
  game: null, // {game, options}: the rules in play
  state: null, // the position (engine.js parseState)
  legal: [], // [{action, label}] of the position
  moves: [], // [{side, action, label}] since the start or the set-up
  view: null, // the agent's analysis of the position
  nets: new Map(), // name -> {path, game, rules}
  agent: '',
  busy: false, // an agent is thinking: the board waits
  generation: 0, // bumped by every new game or position: stale work stops
  last: null, // pits sown from by the last move
};

const mode = () => $('side').value;
const isPerson = (side) => mode() === 'both' || mode() === String(side);

function setStatus(state, text) {
  const s = $('status');
  s.dataset.state = state;
  s.textContent = text;
}

function fail(e) {
  console.error(e);
  app.busy = false;
  setStatus('error', e.message);
}

// ---- Games, presets and rule options ---------------------------------------

// The game behind a choice of the game menu, and the settings its preset
// changes ({} for a game).
function choiceOf(name) {
  const r = app.registry;
  if (r.games.some((g) => g.name === name)) return { game: name, settings: {} };
  const p = r.presets.find((x) => x.name === name);
  return { game: p.game, settings: parseSettings(p.settings) };
}

function parseSettings(text) {
  const out = {};
  for (const kv of text.split(/\s+/).filter(Boolean)) {
    const i = kv.indexOf('=');
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

function fillGameMenu() {
  const r = app.registry;
  const games = Object.assign(document.createElement('optgroup'), { label: 'Games' });
  for (const g of r.games) games.append(new Option(`${g.name} — ${g.summary.split(':')[0]}`, g.name));
  const presets = Object.assign(document.createElement('optgroup'), { label: 'Presets' });
  for (const p of r.presets)
    if (!r.games.some((g) => g.name === p.name)) presets.append(new Option(`${p.name} (${p.game}${p.settings ? `: ${p.settings}` : ''})`, p.name));
  $('game').replaceChildren(games, presets);
}

// The rule option fields of a game, set to its defaults and a preset's
// settings, then to `values` (a weight file's rules).
function fillOptions(name, values = {}) {
  const { game, settings } = choiceOf(name);
  const g = app.registry.games.find((x) => x.name === game);
  const fields = [];
  for (const o of g.options) {
    const value = values[o.key] ?? settings[o.key] ?? String(o.default);
    let input;
    if (o.values) {
      input = document.createElement('select');
      for (const v of o.values) input.append(new Option(v, v));
    } else {
      input = Object.assign(document.createElement('input'), { type: 'number', min: o.min, max: o.max });
    }
    input.id = `opt-${o.key}`;
    input.dataset.key = o.key;
    input.dataset.base = settings[o.key] ?? String(o.default);
    input.value = value;
    input.addEventListener('change', () => newGame().catch(fail));
    const label = Object.assign(document.createElement('label'), { title: o.help });
    label.append(o.key, input);
    fields.push(label);
  }
  $('options').replaceChildren(...fields);
}

// The options that differ from the chosen game or preset: `game NAME` and
// these give the rules on the form.
function changedOptions() {
  const out = {};
  for (const input of $('options').querySelectorAll('[data-key]'))
    if (input.value !== input.dataset.base) out[input.dataset.key] = input.value;
  return out;
}

// ---- Networks and the agent --------------------------------------------------

// Loads a weight file into the engine; if it was trained for other rules
// than those in play, the game switches to them.
async function loadNetwork(name, bytes) {
  const header = readWeightsHeader(bytes);
  if (!header) throw new Error(`${name} is not a SowZero weight file (sowzero train writes them, e.g. RUN/best.weights)`);
  if (!app.registry.games.some((g) => g.name === header.game))
    throw new Error(`${name} is a network for ${header.game}, a game this engine does not know`);
  const path = await app.engine.call('loadWeights', name, bytes);
  app.nets.set(name, { path, ...header });
  if (![...$('network').options].some((o) => o.value === name)) $('network').append(new Option(name, name));
  await useNetwork(name);
}

// Lets the agent play with a loaded network (none: name ''); a network
// for other rules than those in play brings its rules in a new game.
async function useNetwork(name) {
  $('network').value = name;
  const net = app.nets.get(name);
  if (net && (net.game !== app.game?.game || net.rules !== app.game?.options)) {
    $('game').value = net.game;
    fillOptions(net.game, parseSettings(net.rules));
    await newGame();
    return;
  }
  await setAgent();
  // While an agent thinks, its loop shows the next position itself.
  if (!app.busy) {
    await refresh(app.generation);
    render();
  }
}

async function fetchNetwork(name) {
  const resp = await fetch(`models/${encodeURIComponent(name)}`);
  if (!resp.ok) throw new Error(`models/${name}: HTTP ${resp.status}`);
  await loadNetwork(name, new Uint8Array(await resp.arrayBuffer()));
}

// `zero` with the chosen network if it fits the rules in play, else MCTS.
// The WebAssembly build computes the network in fp32; the spec says so, so
// that the protocol log replays move for move in a native `sowzero engine`
// (whose default on a CPU with AVX512_BF16 is bf16).
async function setAgent() {
  const sims = Math.max(1, Math.round(Number($('sims').value) || 200));
  const net = app.nets.get($('network').value);
  const fits = net && net.game === app.game.game && net.rules === app.game.options;
  const spec = fits ? `zero weights=${net.path} sims=${sims} precision=fp32` : `mcts sims=${sims}`;
  app.agent = await app.engine.call('setAgent', spec);
  const s = $('network-status');
  delete s.dataset.state;
  if (net && !fits)
    s.textContent = `${$('network').value} plays ${net.game} ${net.rules}; these rules differ, so MCTS plays.`;
  else if (net) s.textContent = `${$('network').value}: ${net.game}, ${sims} simulations a move.`;
  else s.textContent = `No network: MCTS with random playouts, ${sims} simulations a move.`;
  s.dataset.agent = app.agent;
}

// ---- Play --------------------------------------------------------------------

async function newGame() {
  const gen = ++app.generation;
  app.busy = true;
  // The agent is re-created for the new rules by `game`: a network for
  // other rules would refuse them, so a plain agent stands in meanwhile.
  await app.engine.call('setAgent', 'random');
  const r = await app.engine.call('newGame', $('game').value, changedOptions());
  app.game = { game: r.game, options: r.options };
  app.last = null;
  $('title-game').textContent = `${$('game').value} against the engine`;
  await setAgent();
  await advance(gen);
}

// The position, its legal moves, the record and the agent's view.
async function refresh(gen) {
  const e = app.engine;
  const state = await e.call('state');
  const legal = await e.call('legalMoves');
  const moves = await e.call('moves');
  let view = null;
  if (!state.over && $('show-view').checked) view = await e.call('analyze').catch(() => null);
  if (gen !== app.generation) return;
  Object.assign(app, { state, legal, moves, view });
}

// Plays the agent's moves until a person is to move or the game ends.
async function advance(gen) {
  for (;;) {
    await refresh(gen);
    if (gen !== app.generation) return;
    const s = app.state;
    if (s.over || isPerson(s.mover)) {
      app.busy = false;
      render();
      return;
    }
    app.busy = true;
    render();
    if (DELAY) await sleep(DELAY);
    if (gen !== app.generation) return;
    const from = pitsOf(s.mover, app.legal);
    const r = await app.engine.call('genmove');
    if (gen !== app.generation) return;
    app.last = from.get(r.label) ?? null;
  }
}

async function personMove(action) {
  const s = app.state;
  if (app.busy || s.over || !isPerson(s.mover)) return;
  app.busy = true;
  const gen = app.generation;
  app.last = pitsOf(s.mover, app.legal).get(app.legal.find((m) => m.action === action)?.label) ?? null;
  render();
  try {
    await app.engine.call('play', action);
    await advance(gen);
  } catch (e) {
    fail(e);
  }
}

async function undo() {
  if (app.busy) return;
  app.busy = true;
  const gen = ++app.generation;
  // Back to the last position where a person was to move.
  let state = await app.engine.call('undo');
  let moves = await app.engine.call('moves');
  while (moves.length && !isPerson(state.mover)) {
    state = await app.engine.call('undo');
    moves = await app.engine.call('moves');
  }
  app.last = null;
  await advance(gen);
}

async function setPosition() {
  const t = $('position').value.trim().split(/\s+/);
  const gen = ++app.generation;
  app.busy = true;
  try {
    await app.engine.call('setboard', t[0], t.slice(1));
  } catch (e) {
    app.busy = false;
    setStatus('error', `That position is refused: ${e.message}`);
    return;
  }
  app.last = null;
  await advance(gen);
}

// ---- The board -----------------------------------------------------------------

// The board's rows top to bottom as absolute pit numbers, seen from South;
// North's rows come first. Kujifunza: 4 x 8 (docs/games/kujifunza.md);
// every other game: two rows, South's from his left, North's above it.
function layoutOf(game, n) {
  const range = (a, b) => (a <= b ? [...Array(b - a + 1).keys()].map((i) => a + i) : range(b, a).reverse());
  if (game === 'kujifunza') return { rows: [range(23, 16), range(24, 31), range(15, 8), range(0, 7)], rowSide: [1, 1, 0, 0] };
  return { rows: [range(n - 1, n / 2), range(0, n / 2 - 1)], rowSide: [1, 0] };
}

// The pit a move named `label` sows from: Kujifunza names the row (b|f)
// and the column from the mover's own left; other games name the pit.
function pitOfLabel(mover, label) {
  const k = /^([bf])(\d+)(ccw|cw)$/.exec(label);
  if (!k) return Number(label);
  const c = Number(k[2]);
  return 16 * mover + (k[1] === 'b' ? c : 15 - c);
}

// label -> pit, for the moves of `mover`.
function pitsOf(mover, moves) {
  return new Map(moves.map((m) => [m.label, pitOfLabel(mover, m.label)]));
}

// The name a pit has in move names: its number, or Kujifunza's row letter
// and column from its owner's left.
function pitName(game, p) {
  if (game !== 'kujifunza') return String(p);
  const l = p % 16;
  return l < 8 ? `b${l}` : `f${15 - l}`;
}

function ownerOf(p) {
  const s = app.state;
  if (s.owner) return s.owner[p];
  if (app.game.game === 'kujifunza') return p < 16 ? 0 : 1;
  return p < s.pits.length / 2 ? 0 : 1;
}

const STORE_NOTE = {
  oware: 'captured',
  namnam: 'captured this round',
  'bao-kenya': 'store',
  'bao-laps': 'captured',
  kujifunza: 'kete on his side',
};

function pitElement(p, playable, share) {
  const s = app.state;
  const n = s.pits[p];
  const el = document.createElement('div');
  el.className = 'pit';
  el.dataset.pit = p;
  el.dataset.owner = ownerOf(p);
  el.setAttribute('aria-label', `pit ${pitName(app.game.game, p)}: ${n}`);
  const name = Object.assign(document.createElement('span'), { className: 'pit-name', textContent: pitName(app.game.game, p) });
  const count = Object.assign(document.createElement('span'), { className: 'count', textContent: n });
  const seeds = Object.assign(document.createElement('span'), { className: 'seeds' });
  seeds.innerHTML = '<i></i>'.repeat(Math.min(n, 12));
  el.append(name, count, seeds);
  if (playable?.length === 1) {
    el.classList.add('playable');
    el.tabIndex = 0;
    el.setAttribute('role', 'button');
    el.title = playable[0].label;
    el.addEventListener('click', () => personMove(playable[0].action));
    el.addEventListener('keydown', (ev) => (ev.key === 'Enter' || ev.key === ' ') && personMove(playable[0].action));
  } else if (playable?.length > 1) {
    // Kujifunza: both directions from this pit.
    el.classList.add('playable', 'two-ways');
    const dirs = Object.assign(document.createElement('span'), { className: 'dirs' });
    for (const m of playable) {
      const b = Object.assign(document.createElement('button'), { type: 'button', className: 'dir', title: m.label });
      b.textContent = m.label.endsWith('ccw') ? '↺' : '↻';
      b.dataset.move = m.label;
      b.addEventListener('click', (ev) => {
        ev.stopPropagation();
        personMove(m.action);
      });
      dirs.append(b);
    }
    el.append(dirs);
  }
  if (app.last === p) el.classList.add('last');
  if (share !== undefined) {
    const bar = Object.assign(document.createElement('span'), { className: 'prob' });
    bar.innerHTML = `<b style="width:${(100 * share).toFixed(1)}%"></b>`;
    bar.title = `agent: ${(100 * share).toFixed(1)}% of the visits`;
    el.append(bar);
  }
  return el;
}

// The share of the search's visits (the priors before any) per pit the
// player to move can sow from.
function sharesByPit() {
  const v = app.view;
  const out = new Map();
  if (!v || !v.moves.length) return out;
  const total = v.moves.reduce((t, m) => t + m.visits, 0);
  for (const m of v.moves) {
    const p = pitOfLabel(app.state.mover, m.label);
    out.set(p, (out.get(p) ?? 0) + (total ? m.visits / total : m.prior));
  }
  return out;
}

function storeElement(side, where) {
  const s = app.state;
  const el = document.createElement('div');
  el.className = `store store-${where}`;
  el.dataset.side = side;
  const who = mode() === 'both' ? '' : isPerson(side) ? ' (you)' : ' (agent)';
  const kujifunza = app.game.game === 'kujifunza';
  const count = kujifunza ? s.pits.slice(16 * side, 16 * side + 16).reduce((a, b) => a + b, 0) : s.stores[side];
  let note = STORE_NOTE[app.game.game] ?? 'store';
  if (s.owner) note += ` · owns ${s.owner.filter((o) => o === side).length} pits`;
  el.innerHTML = '<span class="store-label"></span><span class="count"></span><span class="store-note"></span>';
  el.querySelector('.store-label').textContent = SIDE[side] + who;
  el.querySelector('.count').textContent = count;
  el.querySelector('.store-note').textContent = note;
  if (!s.over && s.mover === side) el.classList.add('to-move');
  return el;
}

function renderBoard() {
  const s = app.state;
  const layout = layoutOf(app.game.game, s.pits.length);
  // A person playing North sees the board from his side.
  const flip = mode() === '1';
  const rows = flip ? layout.rows.map((r) => r.slice().reverse()).reverse() : layout.rows;
  const top = flip ? 0 : 1;
  const byPit = new Map();
  if (!app.busy && !s.over && isPerson(s.mover))
    for (const m of app.legal) {
      const p = pitOfLabel(s.mover, m.label);
      byPit.set(p, [...(byPit.get(p) ?? []), m]);
    }
  const shares = sharesByPit();
  const board = $('board');
  board.dataset.game = app.game.game;
  board.dataset.flipped = flip;
  board.style.setProperty('--cols', rows[0].length);
  const grid = Object.assign(document.createElement('div'), { className: 'rows' });
  for (const row of rows) {
    const r = Object.assign(document.createElement('div'), { className: 'row' });
    r.append(...row.map((p) => pitElement(p, byPit.get(p), s.mover === ownerOf(p) || byPit.has(p) ? shares.get(p) : undefined)));
    grid.append(r);
  }
  board.replaceChildren(storeElement(top, 'top'), grid, storeElement(1 - top, 'bottom'));
  let note = '';
  if (s.owner) note = `Round ${s.round}, started by ${SIDE[s.starter]}${s.claims ? `; ${SIDE[s.mover]} claims ${s.claims} more pit${s.claims > 1 ? 's' : ''}` : ''}. Pits are tinted by owner.`;
  if (app.game.game === 'kujifunza' && byPit.size) note = 'Pits with two arrows: ↺ sows counter-clockwise, ↻ clockwise.';
  $('board-note').textContent = note;
}

function renderStatus() {
  const s = app.state;
  const st = $('status');
  delete st.dataset.final;
  delete st.dataset.winner;
  if (s.over) {
    st.dataset.final = s.final.join(' ');
    st.dataset.winner = s.winner;
    let who = 'A draw.';
    if (s.winner !== 'draw') {
      who = `${SIDE[s.winner]} wins.`;
      if (mode() === '0' || mode() === '1') who = isPerson(s.winner) ? 'You win!' : 'The agent wins.';
    }
    setStatus('over', `Game over: South ${s.final[0]} – ${s.final[1]} North. ${who}`);
    st.dataset.final = s.final.join(' ');
    st.dataset.winner = s.winner;
  } else if (app.busy) {
    setStatus('thinking', `The agent (${SIDE[s.mover]}) is thinking…`);
  } else if (mode() === 'both') {
    setStatus('your-move', `${SIDE[s.mover]} to move: click a highlighted pit.`);
  } else {
    setStatus('your-move', `Your move (${SIDE[s.mover]}): click a highlighted pit.`);
  }
}

function renderView() {
  const v = app.view;
  const s = app.state;
  const body = $('policy').tBodies[0];
  if (!v) {
    $('view-who').textContent = s.over ? 'The game is over.' : $('show-view').checked ? '' : 'Hidden.';
    $('value').textContent = '–';
    $('margin').textContent = '–';
    delete $('value').dataset.value;
    body.replaceChildren();
    return;
  }
  const sign = (x, d) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(d);
  $('view-who').textContent = `${SIDE[s.mover]} to move; agent: ${app.agent}.`;
  $('value').textContent = `${sign(v.value, 3)} for ${SIDE[s.mover]}`;
  $('value').dataset.value = v.value;
  $('margin').textContent = v.margin === null ? '– (no network)' : `${sign(v.margin, 1)} seeds for ${SIDE[s.mover]}`;
  const total = v.moves.reduce((t, m) => t + m.visits, 0) || 1;
  body.replaceChildren(...v.moves.map((m) => {
    const tr = document.createElement('tr');
    if (m.action === v.best) tr.className = 'best';
    const cells = [m.label, m.visits, '', `${(100 * m.prior).toFixed(1)}%`, m.visits ? sign(m.value, 2) : '–'];
    for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
    tr.cells[2].innerHTML = `<span class="bar"><b style="width:${((100 * m.visits) / total).toFixed(1)}%"></b></span>`;
    return tr;
  }));
}

function renderMoves() {
  const list = $('moves');
  list.dataset.actions = app.moves.map((m) => m.action).join(' ');
  list.replaceChildren(...app.moves.map((m) => {
    const li = document.createElement('li');
    li.dataset.side = m.side;
    li.dataset.action = m.action;
    li.innerHTML = '<span class="side"></span> <span class="label"></span>';
    li.querySelector('.side').textContent = SIDE[m.side];
    li.querySelector('.label').textContent = m.label;
    return li;
  }));
  const scroll = $('moves-scroll');
  scroll.scrollTop = scroll.scrollHeight;
}

function render() {
  if (!app.state) return;
  renderBoard();
  renderStatus();
  renderView();
  renderMoves();
  if (document.activeElement !== $('position')) $('position').value = `${app.state.mover} ${app.state.tokens.join(' ')}`;
  $('undo').disabled = app.busy || !app.moves.length || mode() === 'agents';
  $('new-game').disabled = false;
  if ($('protocol-box').open) showProtocol();
}

async function showProtocol() {
  const lines = await app.engine.call('transcript');
  $('protocol').textContent = lines.join('\n');
}

// ---- Start -------------------------------------------------------------------

async function start() {
  $('seed').textContent = SEED;
  app.engine = new EngineClient();
  const { rules } = await app.engine.call('init', SEED);
  app.registry = rules;
  $('engine-status').dataset.state = 'ready';
  $('engine-status').textContent = `SowZero engine (WebAssembly), seed ${SEED}`;
  fillGameMenu();
  const wanted = params.get('game');
  $('game').value = wanted && [...$('game').options].some((o) => o.value === wanted) ? wanted : 'oware';
  fillOptions($('game').value);
  if (params.has('side')) $('side').value = params.get('side');
  if (params.has('sims')) $('sims').value = params.get('sims');

  const restart = () => newGame().catch(fail);
  $('game').addEventListener('change', () => {
    fillOptions($('game').value);
    restart();
  });
  $('side').addEventListener('change', restart);
  $('new-game').addEventListener('click', restart);
  $('undo').addEventListener('click', () => undo().catch(fail));
  $('setboard').addEventListener('click', () => setPosition().catch(fail));
  $('sims').addEventListener('change', () => setAgent().catch(fail));
  $('show-view').addEventListener('change', () => !app.busy && refresh(app.generation).then(render).catch(fail));
  $('protocol-box').addEventListener('toggle', () => $('protocol-box').open && showProtocol().catch(fail));
  $('network').addEventListener('change', async () => {
    const name = $('network').value;
    try {
      if (name && !app.nets.has(name)) await fetchNetwork(name);
      else await useNetwork(name);
    } catch (e) {
      $('network-status').textContent = e.message;
      $('network-status').dataset.state = 'error';
    }
  });
  $('network-file').addEventListener('change', async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    try {
      await loadNetwork(file.name, new Uint8Array(await file.arrayBuffer()));
    } catch (e) {
      $('network-status').textContent = e.message;
      $('network-status').dataset.state = 'error';
    }
  });

  // The networks served next to the page (serve.mjs --run / --weights).
  let served = [];
  try {
    const resp = await fetch('models/');
    if (resp.ok) served = await resp.json();
  } catch {
    served = [];
  }
  for (const m of served) $('network').append(new Option(m.name, m.name));
  // A network brings its own rules: it is loaded before the first game.
  const first = params.get('network') ?? served[0]?.name;
  if (first) {
    try {
      await fetchNetwork(first);
      return;
    } catch (e) {
      $('network-status').textContent = e.message;
      $('network-status').dataset.state = 'error';
    }
  }
  await newGame();
}

// For tests and the curious: the protocol lines sent so far, and the
// engine's answers.
window.sowzero = {
  seed: SEED,
  transcript: () => app.engine.call('transcript'),
  responses: () => app.engine.call('responses'),
};

start().catch(fail);
