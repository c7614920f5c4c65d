"""SowZero from Python: the C engine's games, agents, networks, endgame
database and arena, with numpy arrays for encodings (docs/PYTHON.md).

    import sowzero
    game = sowzero.Game("oware", grand_slam="capture_end")
    state = game.new_initial_state()
    state.apply(sowzero.Agent(game, "mcts sims=200").choose(state))

Errors of the C library are raised as sowzero.Error (a ValueError) with
its message. Search, forward passes and matches release the GIL.
"""
import os

import numpy as np

from . import _core
from ._core import Error, State

__all__ = ["Game", "State", "Agent", "Network", "Egdb", "Error", "arena", "rules", "SowingEnv"]


class Game(_core.Game):
    """A game or preset with rule options: Game("oware", grand_slam="capture_end")."""

    def __init__(self, name="oware", **options):
        super().__init__(name, [f"{k}={_text(v)}" for k, v in options.items()])

    def __repr__(self):
        return f"Game({self.name!r}: {self.options})"


    def encode(self, states):
        """The network inputs of a batch of states: (x, mask), x float32
        (n, num_features) from each mover's view, mask bool (n, num_actions)."""
        states = list(states)
        x = np.empty((len(states), self.num_features), dtype=np.float32)
        mask = np.empty((len(states), self.num_actions), dtype=np.uint8)
        _core.encode(self, states, x, mask)
        return x, mask.astype(bool)


_core.set_game_class(Game)


def _text(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


class Agent:
    """An agent from a spec string (docs/SEARCH.md): Agent(game, "zero sims=400"),
    or Agent("zero sims=400"), made for the game of the first state it sees
    (and made again for a state of other rules). choose(state) gives an
    action; analyze(state) a dict with each legal move's visits, prior, value,
    margin and principal variation."""

    def __init__(self, game_or_spec, spec=None, seed=1):
        if isinstance(game_or_spec, str):
            if spec is not None:
                raise TypeError("Agent(spec) or Agent(game, spec)")
            game, spec = None, game_or_spec
        else:
            game = game_or_spec
        self.spec, self.seed = spec, seed
        self._agent = self._key = None
        if game is not None:
            self._make(game)

    def _make(self, game):
        self._agent = _core.Agent(game, self.spec, self.seed)
        self._key = (game.name, game.options, game.num_features)

    def _for(self, state):
        g = state.game
        if self._agent is None or self._key != (g.name, g.options, g.num_features):
            self._make(g)
        return self._agent

    def choose(self, state):
        return self._for(state).choose(state)

    def analyze(self, state):
        return self._for(state).analyze(state)

    def reset(self):
        """A new game starts: the search drops its tree."""
        if self._agent is not None:
            self._agent.reset()

    def __repr__(self):
        return f"Agent({self.spec!r})"


class Network(_core.Network):
    """A weight file: Network(path).evaluate(x, mask) -> (policy, value, margin).
    precision: fp32 (the default), bf16 (CPUs with AVX512_BF16), int8 or auto,
    as the agents' precision= setting."""

    def __init__(self, path, score_scale=10.0, precision="fp32"):
        super().__init__(os.fspath(path), precision)
        self.score_scale = score_scale

    def evaluate(self, x, mask=None):
        """x: float32 (n, num_features) (a State or a list of States is encoded
        first); mask: bool (n, num_actions), None for all legal. Returns policy
        (n, num_actions, 0 on illegal moves), value (n,) for the mover, and
        margin (n,): the predicted final seed margin for the mover (the score
        output times score_scale, the training's)."""
        g = self.game
        if isinstance(x, State):
            x = [x]
        if isinstance(x, (list, tuple)) and x and isinstance(x[0], State):
            x, m = g.encode(x)
            mask = m if mask is None else mask
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        n = x.shape[0]
        if x.shape[1] != g.num_features:
            raise Error(f"x has {x.shape[1]} features, the network takes {g.num_features}")
        mask = np.ones((n, g.num_actions), np.uint8) if mask is None else mask
        mask = np.ascontiguousarray(np.reshape(mask, (n, g.num_actions)), dtype=np.uint8)
        policy = np.empty((n, g.num_actions), np.float32)
        value = np.empty(n, np.float32)
        score = np.empty(n, np.float32)
        if n:
            self._evaluate(x, mask, policy, value, score)
        return policy, value, score * np.float32(self.score_scale)


class Egdb(_core.Egdb):
    """The Oware endgame database of a folder: probe(state) -> (value,
    {action: value}) for the side to move, or None outside it."""

    def __init__(self, dir):
        super().__init__(os.fspath(dir))


def arena(game, specs, games=2, threads=1, openings=0, seed=1, anchor=0):
    """A round robin between agents (both colours per opening); the result
    table as a dict: agents (spec, elo, elo_se), pairings (wins, draws,
    losses of a against b), totals."""
    return _core.arena(game, list(specs), games, threads, openings, seed, anchor)


def rules():
    """{game: {"summary", "options": {key: {"values" or "range", "default", "help"}}}},
    and the presets {name: (game, settings)}."""
    games, presets = _core.rules()
    out = {}
    for name, summary, opts in games:
        o = {}
        for key, vals, default, help_ in opts:
            if isinstance(vals, list):
                o[key] = {"values": vals, "default": vals[default], "help": help_}
            else:
                o[key] = {"range": vals, "default": default, "help": help_}
        out[name] = {"summary": summary, "options": o}
    return out, {n: (g, s) for n, g, s in presets}


from .env import SowingEnv  # noqa: E402
