// SowZero's engine in JavaScript: the WebAssembly module (make web) driven
// through the engine protocol (docs/PROTOCOL.md), one session per Engine.
// Used by the page's worker (worker.js) and by Node (wasm-node.mjs). Every
// protocol line sent is kept in `transcript`, so a game played here can be
// replayed line for line into `sowzero engine --seed SEED`, and every
// response in `responses`, to compare the two.

export class EngineError extends Error {}

// The board tokens of `state` as fields. Nam Nam adds the pits' owners, the
// round, its starter and the claims left after the two stores; every other
// game is its pits then the two stores.
export function splitBoard(game, tokens) {
  const extra = game === 'namnam' ? 4 : 0;
  const n = tokens.length - 2 - extra;
  const board = {
    pits: tokens.slice(0, n).map(Number),
    stores: tokens.slice(n, n + 2).map(Number),
  };
  if (game === 'namnam') {
    const [owner, round, starter, claims] = tokens.slice(n + 2);
    // '-': the rows of round 1, each player owning his own row.
    board.owner = owner === '-' ? [...Array(n).keys()].map((p) => (p < n / 2 ? 0 : 1)) : [...owner].map((c) => (c === 'n' ? 1 : 0));
    board.round = Number(round);
    board.starter = Number(starter);
    board.claims = Number(claims);
  }
  return board;
}

// A `state` response: MOVER BOARD... LEGAL STATUS [FINAL0 FINAL1 WINNER].
// STATUS is found by its word, as the protocol asks, not by counting pits.
export function parseState(game, text) {
  const t = text.trim().split(/\s+/);
  const at = t.findIndex((x, i) => i > 0 && (x === 'ongoing' || x === 'over'));
  if (at < 2) throw new EngineError(`not a state: '${text}'`);
  const state = {
    mover: Number(t[0]),
    tokens: t.slice(1, at - 1),
    legal: t[at - 1] === '-' ? [] : t[at - 1].split(',').map(Number),
    over: t[at] === 'over',
    text: t.join(' '),
  };
  Object.assign(state, splitBoard(game, state.tokens));
  if (state.over) {
    state.final = [t[at + 1], t[at + 2]];
    state.winner = t[at + 3] === 'draw' ? 'draw' : Number(t[at + 3]);
  }
  return state;
}

// An `analyze` response: "best A value V [margin M]", then one line per
// legal move "move A visits N prior P value V".
export function parseAnalysis(text) {
  const [head, ...rest] = text.trim().split('\n');
  const h = head.trim().split(/\s+/);
  const field = (words, key) => {
    const i = words.indexOf(key);
    return i >= 0 ? Number(words[i + 1]) : null;
  };
  return {
    best: field(h, 'best'),
    value: field(h, 'value'),
    margin: field(h, 'margin'),
    moves: rest.map((line) => {
      const w = line.trim().split(/\s+/);
      return { action: field(w, 'move'), visits: field(w, 'visits'), prior: field(w, 'prior'), value: field(w, 'value') };
    }),
  };
}

// The game and rule options a weight file was trained for, from its header
// (docs/FORMATS.md: magic, version, length, then the game name and the rule
// options as length-prefixed strings). null if the bytes are not one.
export function readWeightsHeader(bytes) {
  const magic = String.fromCharCode(...bytes.slice(0, 8));
  if (magic !== 'SZWEIGHT' || bytes.length < 28) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder();
  let at = 20; // magic, version (4), file length (8)
  const string = () => {
    const n = view.getUint32(at, true);
    if (at + 4 + n > bytes.length) throw new EngineError('truncated weight file header');
    const s = text.decode(bytes.subarray(at + 4, at + 4 + n));
    at += 4 + n;
    return s;
  };
  try {
    return { game: string(), rules: string() };
  } catch {
    return null;
  }
}

const WEIGHTS_DIR = '/w';

export class Engine {
  // module: an instance of the WebAssembly module (createSowZero()); seed:
  // the seed of the agents' random choices, as `sowzero engine --seed`.
  constructor(module, seed = 1) {
    this.M = module;
    this.seed = seed;
    this.session = module._sz_session_new(seed);
    if (!this.session) throw new EngineError('out of memory');
    this.transcript = [];
    this.responses = [];
    this.game = 'oware';
    this.options = '';
    this.moves = []; // {side, action, label} of each move since the start or setboard
    this.position = null;
    this.state();
  }

  // The games, their options and the presets (`sowzero rules`).
  rules() {
    return JSON.parse(this.M.UTF8ToString(this.M._sz_rules_json()));
  }

  // One protocol line; the result text after '= ', or an EngineError with
  // the message after '? '.
  send(line) {
    this.transcript.push(line);
    const M = this.M;
    const n = M.lengthBytesUTF8(line) + 1;
    const buf = M._malloc(n);
    let resp;
    try {
      M.stringToUTF8(line, buf, n);
      resp = M.UTF8ToString(M._sz_command(this.session, buf));
    } finally {
      M._free(buf);
    }
    const body = resp.replace(/\n\n$/, '');
    this.responses.push(body);
    if (body.startsWith('?')) throw new EngineError(body.replace(/^\?\d*\s?/, ''));
    return body.replace(/^=\d*\s?/, '');
  }

  // The position after a response that is a `state`; kept as `position`,
  // whose mover tells who makes the next move.
  update(text) {
    this.position = parseState(this.game, text);
    return this.position;
  }

  // A new game of NAME (a game or a preset) with rule options {key: value};
  // returns {game, options} as the engine settled them, and the state.
  // `game` re-creates the agent for the new rules, so a `zero` agent whose
  // network was trained for other rules makes it fail: set a plain agent
  // (setAgent('random')) before changing games.
  newGame(name, options = {}) {
    const args = Object.entries(options).map(([k, v]) => `${k}=${v}`);
    const r = this.send(['game', name, ...args].join(' ')).split(' ');
    this.game = r[0];
    this.options = r.slice(1).join(' ');
    this.moves = [];
    return { game: this.game, options: this.options, state: this.state() };
  }

  state() {
    return this.update(this.send('state'));
  }

  // The legal moves with the names a person reads on the board.
  legalMoves() {
    const text = this.send('labels');
    return text.split(/\s+/).filter(Boolean).map((pair) => {
      const i = pair.indexOf(':');
      return { action: Number(pair.slice(0, i)), label: pair.slice(i + 1) };
    });
  }

  // Plays an action of the side to move; returns the new state.
  play(action) {
    const side = this.position.mover;
    const label = this.legalMoves().find((m) => m.action === action)?.label ?? String(action);
    const state = this.update(this.send(`play ${action}`));
    this.moves.push({ side, action, label });
    return state;
  }

  // The agent chooses a move and plays it; returns it with the new state.
  genmove() {
    const side = this.position.mover;
    const labels = this.legalMoves();
    const action = Number(this.send('genmove'));
    const label = labels.find((m) => m.action === action)?.label ?? String(action);
    this.moves.push({ side, action, label });
    return { action, label, state: this.state() };
  }

  undo() {
    const state = this.update(this.send('undo'));
    this.moves.pop();
    return state;
  }

  // A position: MOVER then the game's board tokens (docs/games/).
  setboard(mover, tokens) {
    const state = this.update(this.send(['setboard', mover, ...tokens].join(' ')));
    this.moves = [];
    return state;
  }

  // Writes a weight file into the module's file system; returns its path
  // for `agent zero weights=PATH`.
  loadWeights(name, bytes) {
    const FS = this.M.FS;
    if (!FS.analyzePath(WEIGHTS_DIR).exists) FS.mkdir(WEIGHTS_DIR);
    const path = `${WEIGHTS_DIR}/${name.replace(/[^\w.-]/g, '_')}`;
    FS.writeFile(path, bytes);
    return path;
  }

  setAgent(spec) {
    return this.send(`agent ${spec}`);
  }

  // The agent's view of the position: best move, value and margin for the
  // player to move, and per legal move its visits, prior and value.
  analyze() {
    const labels = new Map(this.legalMoves().map((m) => [m.action, m.label]));
    const a = parseAnalysis(this.send('analyze'));
    for (const m of a.moves) m.label = labels.get(m.action) ?? String(m.action);
    return a;
  }

  close() {
    if (this.session) this.M._sz_session_free(this.session);
    this.session = 0;
  }
}
