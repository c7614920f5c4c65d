// The page's Oware rules (web/js/oware.js) against the C engine: seeded
// random and capture-greedy games, the full `state` line compared after
// every move through `sowzero engine`, for the default rules and the other
// option values the page accepts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { OwareGame, parseRules, playMove, clonePosition } from '../js/oware.js';
import { Engine, rng } from './util.mjs';

const SETS = [
  { set: '', games: 300 },
  { set: 'houses=4 seeds=3', games: 150 },
  { set: 'houses=8 seeds=2 first_player=1', games: 60 },
  { set: 'nocap_limit=30 cycle_award=split_even', games: 100 },
  { set: 'repetition=3 leftover=none target=20', games: 100 },
  { set: 'max_plies=60 cycle_award=draw', games: 60 },
  { set: 'houses=3 seeds=2 feed_check=after_capture', games: 150 },
];

let engine;
before(() => {
  engine = new Engine();
});
after(async () => {
  await engine.close();
});

// Half the games pick the move capturing most (grand slams included) a
// third of the time, which reaches the rare endings more often.
function chooseMove(game, rand, greedy) {
  const legal = game.legal();
  if (greedy && rand() < 0.33) {
    let best = legal[0];
    let bestGain = -1;
    for (const a of legal) {
      const p = clonePosition(game.pos);
      const r = playMove(game.rules, p, a);
      const gain = r.grandSlam ? 100 : r.captured;
      if (gain > bestGain) [best, bestGain] = [a, gain];
    }
    return best;
  }
  return legal[Math.floor(rand() * legal.length)];
}

for (const { set, games } of SETS) {
  test(`JS rules match the C engine: oware ${set || '(defaults)'}`, async (t) => {
    const rules = parseRules(set);
    const opts = await engine.send(`game oware ${set}`.trim());
    assert.match(opts, /^oware /);
    const rand = rng(12345 + games);
    const reasons = {};
    let plies = 0;
    let grandSlams = 0;
    for (let gi = 0; gi < games; gi++) {
      const game = new OwareGame(rules);
      assert.equal(await engine.send('moves'), game.stateLine(), 'start position');
      while (!game.pos.over) {
        const a = chooseMove(game, rand, gi % 2 === 1);
        const r = game.play(a);
        if (r.grandSlam) grandSlams++;
        plies++;
        const c = await engine.send(`play ${a}`);
        if (c !== game.stateLine())
          assert.fail(`game ${gi} after moves ${game.moves.join(' ')}:\n  C:  ${c}\n  JS: ${game.stateLine()}`);
      }
      reasons[game.pos.reason] = (reasons[game.pos.reason] || 0) + 1;
      // The whole game again in one `moves` command, as the browser test does.
      assert.equal(await engine.replay(game.moves), game.stateLine(), `game ${gi} replayed`);
    }
    t.diagnostic(`${games} games, ${plies} plies, ${grandSlams} grand slams, endings ${JSON.stringify(reasons)}`);
    if (!set) {
      // The default rules must have met every way a game of them can end.
      for (const r of ['target', 'famine', 'repetition']) assert.ok(reasons[r] > 0, `no game ended by ${r}`);
      assert.ok(grandSlams > 0, 'no grand slam was played');
    }
  });
}

test('parseRules refuses what the page cannot play', () => {
  assert.throws(() => parseRules('grand_slam=capture_continue'), /grand_slam=capture_continue is not supported/);
  assert.throws(() => parseRules('houses=9'), /houses=9 is not supported/);
  assert.throws(() => parseRules('wind=north'), /'wind' is not supported/);
  assert.throws(() => parseRules('houses'), /bad rule setting/);
  assert.throws(() => parseRules('houses=2 seeds=1 target=5'), /more than the 4 seeds/);
  const d = parseRules('houses=6 seeds=4 grand_slam=no_capture target=0 repetition=1 nocap_limit=0 max_plies=1000 cycle_award=own_side feed_check=sow leftover=own_row first_player=0');
  assert.equal(d.houses, 6);
  assert.equal(d.grand_slam, 'no_capture');
});

test('illegal moves are refused', () => {
  const g = new OwareGame(parseRules(''));
  g.play(0);
  assert.throws(() => g.play(6), /illegal move 6/);
  g.play(0); // North's pit 6
  assert.throws(() => g.play(0), /illegal move 0/); // South's pit 0 is empty
});
