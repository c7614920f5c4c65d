// Oware rules (docs/games/oware.md) for the browser and the tests: the same
// decisions as the C engine in game/oware.c, written for clarity instead of
// speed. Grand slams capture nothing (grand_slam=no_capture, the default
// `oware` preset); the other rule options of that preset are supported with
// the values listed in SUPPORTED, the rest are refused by parseRules.
//
// Pits are numbered counter-clockwise from South's left: South owns
// 0..h-1, North h..2h-1. Actions are mover-relative: action a sows the
// mover's pit a counted from his own left (South: pit a, North: pit h+a).
// A position is a plain object; OwareGame adds the move list and the
// repetition history.

export const SOUTH = 0;
export const NORTH = 1;

export const DEFAULT_RULES = Object.freeze({
  houses: 6,
  seeds: 4,
  grand_slam: 'no_capture',
  target: 0,
  repetition: 1,
  nocap_limit: 0,
  max_plies: 1000,
  cycle_award: 'own_side',
  feed_check: 'sow',
  leftover: 'own_row',
  first_player: 0,
});

// Option -> accepted values (a [min, max] range for integers).
const SUPPORTED = {
  houses: [2, 8],
  seeds: [1, 8],
  grand_slam: ['no_capture'],
  target: [0, 128],
  repetition: [0, 10],
  nocap_limit: [0, 2000],
  max_plies: [1, 2000],
  cycle_award: ['own_side', 'split_even', 'draw'],
  // With no_capture a grand slam never captures, so both readings of
  // "feeding" agree.
  feed_check: ['sow', 'after_capture'],
  leftover: ['own_row', 'none'],
  first_player: [0, 1],
};

// Parses the rule-options string stored in weight files and exported models
// ("houses=6 seeds=4 grand_slam=no_capture ..."); options not named keep the
// defaults. Throws an Error naming the first unsupported option or value.
export function parseRules(str = '') {
  const rules = { ...DEFAULT_RULES };
  for (const tok of str.split(/\s+/).filter(Boolean)) {
    const eq = tok.indexOf('=');
    if (eq <= 0) throw new Error(`bad rule setting '${tok}' (expected key=value)`);
    const key = tok.slice(0, eq);
    const val = tok.slice(eq + 1);
    const ok = SUPPORTED[key];
    if (!ok) throw new Error(`rule option '${key}' is not supported by this page`);
    if (typeof ok[0] === 'number') {
      const v = Number(val);
      if (!Number.isInteger(v) || v < ok[0] || v > ok[1])
        throw new Error(`rule option ${key}=${val} is not supported (an integer ${ok[0]}..${ok[1]})`);
      rules[key] = v;
    } else {
      if (!ok.includes(val))
        throw new Error(`rule option ${key}=${val} is not supported by this page (${ok.join(', ')})`);
      rules[key] = val;
    }
  }
  const total = 2 * rules.houses * rules.seeds;
  if (rules.target > total) throw new Error(`target ${rules.target} is more than the ${total} seeds in play`);
  return rules;
}

export function totalSeeds(rules) {
  return 2 * rules.houses * rules.seeds;
}

export function targetOf(rules) {
  return rules.target ? rules.target : totalSeeds(rules) / 2 + 1;
}

// The start position.
export function startPosition(rules) {
  const n = 2 * rules.houses;
  return {
    pits: new Array(n).fill(rules.seeds),
    store: [0, 0],
    mover: rules.first_player,
    ply: 0,
    nocap: 0,
    over: false,
    reason: '', // when over: target, famine, repetition, nocapture, maxplies
    final: [0, 0], // when over: final scores (halves in `half`)
    half: false,
    winner: -1, // when over: 0, 1, or 2 for a draw
  };
}

export function clonePosition(p) {
  return { ...p, pits: p.pits.slice(), store: p.store.slice(), final: p.final.slice() };
}

const rowOf = (h, pit) => (pit < h ? SOUTH : NORTH);
const rowSum = (p, side, h) => {
  let s = 0;
  for (let i = side * h; i < side * h + h; i++) s += p.pits[i];
  return s;
};

// Sows pit `from` on board b (n pits), skipping the origin; returns the
// last pit.
function sow(b, n, from) {
  let seeds = b[from];
  b[from] = 0;
  let i = from;
  while (seeds > 0) {
    i = (i + 1) % n;
    if (i === from) continue;
    b[i]++;
    seeds--;
  }
  return i;
}

// The capture chain ending at `last`: opponent pits holding 2 or 3, walking
// back from the last pit. Returns the pits (last first).
function chain(b, last, opp, h) {
  const out = [];
  for (let i = last; i >= 0 && rowOf(h, i) === opp && (b[i] === 2 || b[i] === 3); i--) out.push(i);
  return out;
}

// The legal mover-relative actions, lowest first (empty when the game is
// over or the mover cannot move).
export function legalActions(rules, p) {
  if (p.over) return [];
  const h = rules.houses;
  const me = p.mover;
  const mine = [];
  for (let a = 0; a < h; a++) if (p.pits[me * h + a] > 0) mine.push(a);
  if (rowSum(p, 1 - me, h) > 0) return mine;
  // The opponent's row is empty: only moves that reach it (feeding).
  return mine.filter((a) => p.pits[me * h + a] > h - 1 - a);
}

function finish(p, reason, f0, f1, winner) {
  p.over = true;
  p.reason = reason;
  p.final = [f0, f1];
  p.half = false;
  p.winner = winner >= 0 ? winner : f0 === f1 ? 2 : f0 > f1 ? SOUTH : NORTH;
}

// Each row's seeds to its owner (unless leftover=none).
function finishRows(rules, p, reason) {
  const h = rules.houses;
  let s0 = p.store[0];
  let s1 = p.store[1];
  if (rules.leftover === 'own_row') {
    s0 += rowSum(p, SOUTH, h);
    s1 += rowSum(p, NORTH, h);
  }
  finish(p, reason, s0, s1, -1);
}

// Cycles and caps: cycle_award decides who gets the board.
function endByAward(rules, p, reason) {
  const h = rules.houses;
  if (rules.cycle_award === 'split_even') {
    const rest = rowSum(p, SOUTH, h) + rowSum(p, NORTH, h);
    finish(p, reason, p.store[0] + Math.floor(rest / 2), p.store[1] + Math.floor(rest / 2), -1);
    p.half = rest % 2 === 1;
  } else if (rules.cycle_award === 'draw') {
    finish(p, reason, p.store[0], p.store[1], 2);
  } else {
    finishRows(rules, p, reason);
  }
}

// The checks after a move (docs/games/oware.md): target, famine, the caps.
function settle(rules, p) {
  const h = rules.houses;
  const me = p.mover;
  const target = targetOf(rules);
  if (p.store[0] >= target || p.store[1] >= target || p.store[0] + p.store[1] >= totalSeeds(rules)) {
    finishRows(rules, p, 'target');
    return;
  }
  if (rowSum(p, me, h) === 0 || (rowSum(p, 1 - me, h) === 0 && legalActions(rules, p).length === 0)) {
    finishRows(rules, p, 'famine');
    return;
  }
  if (rules.nocap_limit && p.nocap >= rules.nocap_limit) {
    endByAward(rules, p, 'nocapture');
    return;
  }
  if (p.ply >= rules.max_plies) endByAward(rules, p, 'maxplies');
}

// Plays a legal action on p in place, without the repetition rule.
// Returns {captured, grandSlam, pits} (the captured pits).
export function playMove(rules, p, action) {
  const h = rules.houses;
  const me = p.mover;
  const opp = 1 - me;
  const last = sow(p.pits, 2 * h, me * h + action);
  p.ply++;
  p.nocap++;
  const span = chain(p.pits, last, opp, h);
  let captured = 0;
  let grandSlam = false;
  if (span.length) {
    const oppLeft = rowSum(p, opp, h) - span.reduce((s, i) => s + p.pits[i], 0);
    grandSlam = oppLeft === 0;
    if (!grandSlam) {
      for (const i of span) {
        captured += p.pits[i];
        p.pits[i] = 0;
      }
      p.store[me] += captured;
      p.nocap = 0;
    }
  }
  p.mover = opp;
  settle(rules, p);
  return { captured, grandSlam, pits: captured ? span : [] };
}

// The repetition key: pits and side to move (stores change only with a
// capture, which clears the history).
export const positionKey = (p) => `${p.mover}:${p.pits.join(',')}`;

// A game: position, moves played, and the history of positions since the
// last capture for the repetition rule (docs/games/oware.md).
export class OwareGame {
  constructor(rules = DEFAULT_RULES) {
    this.rules = rules;
    this.reset();
  }

  reset() {
    this.pos = startPosition(this.rules);
    this.moves = [];
    this.history = new Map([[positionKey(this.pos), 1]]);
    this.histLen = 1;
  }

  legal() {
    return legalActions(this.rules, this.pos);
  }

  // Plays action a for the side to move; throws on an illegal action.
  play(a) {
    if (!this.legal().includes(a)) throw new Error(`illegal move ${a}`);
    const p = this.pos;
    const res = playMove(this.rules, p, a);
    this.moves.push(a);
    if (res.captured) {
      this.history.clear();
      this.histLen = 0;
    }
    if (p.over) return res;
    const key = positionKey(p);
    const seen = this.history.get(key) || 0;
    if (this.rules.repetition > 0 && seen >= this.rules.repetition) {
      endByAward(this.rules, p, 'repetition');
      return res;
    }
    if (this.histLen < 2048) {
      this.history.set(key, seen + 1);
      this.histLen++;
    } else {
      endByAward(this.rules, p, 'repetition');
    }
    return res;
  }

  // The position as the engine protocol's `state` prints it:
  // MOVER P0 .. Pn-1 STORE0 STORE1 LEGAL STATUS (over: the scores and the winner).
  stateLine() {
    const p = this.pos;
    const legal = this.legal();
    const fmt = (v) => (p.half ? `${v}.5` : `${v}`);
    const winner = p.winner === 2 ? 'draw' : `${p.winner}`;
    const status = p.over ? `over ${fmt(p.final[0])} ${fmt(p.final[1])} ${winner}` : 'ongoing';
    return [p.mover, ...p.pits, p.store[0], p.store[1], legal.length ? legal.join(',') : '-', status].join(' ');
  }
}

// The network input (encoding version 1 of game/oware.c), from the mover's
// view: per pit, the mover's row first, count/8 and four indicators; then
// both scores over the target and the two clocks. Float32 like the C code.
export function encode(rules, p, out = new Float32Array(10 * rules.houses + 4)) {
  const h = rules.houses;
  const n = 2 * h;
  const me = p.mover;
  const f32 = Math.fround;
  for (let k = 0; k < n; k++) {
    const c = p.pits[(me * h + k) % n];
    out[5 * k] = c * 0.125;
    out[5 * k + 1] = c === 0 ? 1 : 0;
    out[5 * k + 2] = c === 1 ? 1 : 0;
    out[5 * k + 3] = c === 2 ? 1 : 0;
    out[5 * k + 4] = c >= n - 1 ? 1 : 0;
  }
  const target = targetOf(rules);
  const lim = rules.nocap_limit ? rules.nocap_limit : 100;
  out[5 * n] = f32(p.store[me] / target);
  out[5 * n + 1] = f32(p.store[1 - me] / target);
  out[5 * n + 2] = p.nocap >= lim ? 1 : f32(p.nocap / lim);
  out[5 * n + 3] = f32(p.ply / rules.max_plies);
  return out;
}

export const featureCount = (rules) => 10 * rules.houses + 4;
