// The WebAssembly build (make web) against the native one: the same rules,
// the same search, the same protocol. Signatures of the engine and search
// benchmarks must be equal, and a long protocol session with random moves,
// undos, set-up positions, agents (rollout MCTS, alpha-beta, a network
// searched by `zero`) and malformed lines must get byte-identical answers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { loadSowZero } from '../js/wasm-node.mjs';
import { REPO_DIR, SOWZERO_BIN, requireFile, rng } from './util.mjs';

const DUMP = path.resolve(REPO_DIR, process.env.SOWZERO_DUMP || 'build/tests/export/dump_cases');
const GAMES = ['oware', 'warri', 'namnam', 'bao-kenya', 'bao-laps', 'kujifunza'];
let tmp;

before(() => {
  requireFile(SOWZERO_BIN, 'build it with make (or set SOWZERO_BIN)');
  requireFile(DUMP, 'make build/tests/export/dump_cases');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sowzero-wasm-'));
});
after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

// `bench ARGS --json` in WebAssembly: the figures as objects.
async function wasmBench(args) {
  const lines = [];
  const M = await loadSowZero({ print: (l) => lines.push(l), printErr: (l) => lines.push(l) });
  const rc = M.callMain(['bench', ...args, '--json']);
  assert.equal(rc, 0, `wasm bench ${args.join(' ')}: ${lines.join('\n')}`);
  return lines.map((l) => JSON.parse(l));
}

function nativeBench(args) {
  const r = spawnSync(SOWZERO_BIN, ['bench', ...args, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `sowzero bench ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

const figure = (figs, name) => {
  const f = figs.find((x) => x.figure === name);
  assert.ok(f, `no figure ${name}`);
  return f.value;
};

test('engine signatures equal the native build\'s, every game', async () => {
  for (const g of GAMES) {
    const args = ['engine', '--game', g, '--seconds', '0.01', '--reps', '1'];
    const w = figure(await wasmBench(args), 'signature_plies');
    const n = figure(nativeBench(args), 'signature_plies');
    assert.equal(w, n, `${g}: WebAssembly ${w} plies, native ${n}`);
  }
});

test('search signature equals the native build\'s', async () => {
  const args = ['search', '--reps', '1', '--nn-sims', '1', '--moves', '1'];
  const w = figure(await wasmBench(args), 'mcts_signature');
  const n = figure(nativeBench(args), 'mcts_signature');
  assert.equal(w, n);
});

// The lines of a session: per game a few rule options, random legal moves
// (read from the native answers as it goes would couple the two; instead
// both get the same lines, drawn from the action range, so some are
// illegal), undos, a set-up of the current position, agents and bad lines.
function sessionLines(seed) {
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const lines = [];
  const games = [['oware'], ['oware', 'grand_slam=loses'], ['warri'], ['namnam'],
    ['bao-kenya'], ['bao-laps', 'seeds=3'], ['kujifunza'], ['oware', 'houses=4', 'seeds=3']];
  for (const g of games) {
    const name = g[0];
    const actions = name === 'kujifunza' ? 32 : name.startsWith('bao') ? 8 : 6;
    lines.push(`game ${g.join(' ')}`, 'state', 'labels');
    lines.push(pick(['agent mcts sims=40', 'agent alphabeta depth=2', `agent zero weights=${name}.weights sims=24 precision=fp32`]));
    for (let i = 0; i < 60; i++) {
      const x = r();
      if (x < 0.6) lines.push(`play ${Math.floor(r() * actions)}`);
      else if (x < 0.7) lines.push('undo');
      else if (x < 0.8) lines.push('genmove');
      else if (x < 0.85) lines.push('analyze');
      else if (x < 0.9) lines.push('labels', 'legal');
      else if (x < 0.93) lines.push('show');
      else lines.push(pick(['state', 'options', 'play', 'play x', 'undo 3', 'nosuch', 'setboard 0 1 2', '# note', '']));
    }
  }
  lines.push('quit');
  return lines;
}

test('a protocol session answers byte for byte as the native engine', async () => {
  // One network per game family, at the same relative path on both sides.
  const nets = { oware: 'oware', warri: 'oware', namnam: 'namnam', 'bao-kenya': 'bao-kenya',
    'bao-laps': 'bao-laps', kujifunza: 'kujifunza' };
  const M = await loadSowZero();
  for (const [file, game] of Object.entries(nets)) {
    const out = path.join(tmp, `${file}.weights`);
    const r = spawnSync(DUMP, ['--make-net', out, '--game', game, '--hidden', '16', '--blocks', '1', '--seed', '7']);
    assert.equal(r.status, 0, `dump_cases --make-net ${game}: ${r.stderr}`);
    M.FS.writeFile(`/${file}.weights`, readFileSync(out));
  }
  for (const seed of [1, 2]) {
    const lines = sessionLines(seed);
    const native = spawnSync(SOWZERO_BIN, ['engine', '--seed', '5'], { cwd: tmp, input: `${lines.join('\n')}\n`, encoding: 'utf8' });
    assert.equal(native.status, 0, native.stderr);
    const s = M._sz_session_new(5);
    let wasm = '';
    for (const line of lines) {
      const n = M.lengthBytesUTF8(line) + 1;
      const p = M._malloc(n);
      M.stringToUTF8(line, p, n);
      wasm += M.UTF8ToString(M._sz_command(s, p));
      M._free(p);
    }
    M._sz_session_free(s);
    const a = native.stdout.split('\n\n'), b = wasm.split('\n\n');
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      assert.equal(b[i], a[i], `session ${seed}, answer ${i}: WebAssembly and native differ`);
    assert.ok(a.length > 300, `only ${a.length} answers`);
  }
});
