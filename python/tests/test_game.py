"""Games through Python: the OpenSpiel reference traces, rules, errors, the
environment class."""
import random

import numpy as np
import pytest

import sowzero

REASONS = {"score": "target", "repetition": "repetition", "nomoves": "famine", "maxlen": "maxplies"}


def replay(path):
    """Replays every game of a reference trace (tests/data/README.md),
    checking the side to move, pits, scores, legal moves and the end."""
    game = sowzero.Game("oware")
    games = 0
    state = pending = None
    cur = -1
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0] == "#" or line.startswith("#"):
                continue
            if t[0] == "S":
                g, ply, player = int(t[1]), int(t[2]), int(t[3])
                pits, scores = [int(x) for x in t[4:16]], (int(t[16]), int(t[17]))
                legal, terminal, action = t[18], t[19] == "1", int(t[20])
                if g != cur:
                    assert ply == 0
                    cur, state = g, game.new_initial_state()
                else:
                    state.apply(pending)
                assert state.ply == ply
                assert state.is_terminal() == terminal, line
                if terminal:
                    assert state.final_scores == scores, line
                    assert state.legal_actions() == []
                    continue
                assert state.current_player() == player, line
                assert list(state.pits) == pits, line
                assert state.stores == scores, line
                assert "".join(map(str, state.legal_actions())) == legal, line
                pending = action
            elif t[0] == "E":
                final, ret, reason = (int(t[3]), int(t[4])), [float(t[5]), float(t[6])], t[7]
                assert state.final_scores == final
                assert state.returns() == ret
                assert state.end_reason == REASONS[reason], line
                games += 1
    return games


def test_reference_traces_replayed(root):
    files = sorted((root / "tests/data/reference").glob("*.txt"))
    assert files
    for p in files:
        assert replay(p) > 0


def test_options_and_errors():
    g = sowzero.Game("oware", grand_slam="capture_end")
    assert "grand_slam=capture_end" in g.options
    with pytest.raises(sowzero.Error, match="bogus"):
        sowzero.Game("oware", bogus=1)
    with pytest.raises(sowzero.Error, match="nosuchgame"):
        sowzero.Game("nosuchgame")
    s = g.new_initial_state()
    with pytest.raises(sowzero.Error, match="bad action"):
        s.apply(17)
    games, presets = sowzero.rules()
    assert "oware" in games and "warri" in presets


def test_state_clone_is_independent():
    g = sowzero.Game("oware")
    s = g.new_initial_state()
    c = s.clone()
    c.apply(3)
    assert s.ply == 0 and c.ply == 1 and s.pits != c.pits
    assert s.board_tokens().split()[0] == "0" and c.board_tokens().split()[0] == "1"
    # North's action 0 is the pit the board labels 6.
    assert c.move_label(0) == "6"
    assert "captured" in str(c)


def all_games():
    games, _ = sowzero.rules()
    return sorted(games)


@pytest.mark.parametrize("name", all_games())
def test_env_plays_full_games(name):
    env = sowzero.SowingEnv(name)
    rng = random.Random(7)
    for episode in range(3):
        env.reset(seed=episode)
        steps = 0
        while env.agents:
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert obs["observation"].shape == (env.game.num_features,)
            legal = np.flatnonzero(mask)
            assert len(legal) > 0
            for other in env.possible_agents:
                if other != env.agent_selection:
                    assert not env.observe(other)["action_mask"].any()
            env.step(int(rng.choice(legal)))
            steps += 1
        assert steps > 0
        r = env.state.returns()
        assert sorted(r) in ([-1.0, 1.0], [0.0, 0.0])
        assert env.rewards["player_0"] == r[0] and env.rewards["player_1"] == r[1]
