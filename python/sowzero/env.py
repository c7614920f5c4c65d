"""A two-player environment with the conventions of PettingZoo's classic
games (AEC: reset, step, observe, last, agent_selection, rewards,
terminations, truncations, infos, action masks), without depending on
PettingZoo.

The observation is the network encoding from the side to move's view
(Game.encode); an agent that is not to move sees the same board with an
all-zero action mask. Some games give a side several moves in a row (Bao
captures, Nam Nam): agent_selection follows the game, not strict turns.
Rewards are the game's returns (+1, 0, -1) on the move that ends it.
"""
import numpy as np


class SowingEnv:
    metadata = {"name": "sowzero_v0", "is_parallelizable": False}

    def __init__(self, game):
        from . import Game

        self.game = game if not isinstance(game, str) else Game(game)
        self.possible_agents = ["player_0", "player_1"]
        self.action_spaces = {a: self.game.num_actions for a in self.possible_agents}
        self.state = None

    def action_space(self, agent):
        """The number of actions (actions are 0 .. n-1)."""
        return self.action_spaces[agent]

    def observation_shape(self, agent):
        return (self.game.num_features,)

    def reset(self, seed=None, options=None):
        self.state = self.game.new_initial_state()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent):
        x, mask = self.game.encode([self.state])
        m = mask[0].astype(np.int8)
        if self.state.is_terminal() or agent != self.agent_selection:
            m[:] = 0
        return {"observation": x[0], "action_mask": m}

    def last(self, observe=True):
        a = self.agent_selection
        obs = self.observe(a) if observe else None
        return obs, self._cumulative_rewards[a], self.terminations[a], self.truncations[a], self.infos[a]

    def step(self, action):
        a = self.agent_selection
        if self.terminations[a] or self.truncations[a]:
            # PettingZoo's dead step: the finished agent leaves.
            if action is not None:
                raise ValueError("after the end, step(None) removes the agent")
            self.agents.remove(a)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self._cumulative_rewards[a] = 0.0
        self.state.apply(int(action))
        self.rewards = {x: 0.0 for x in self.possible_agents}
        if self.state.is_terminal():
            r = self.state.returns()
            for i, x in enumerate(self.possible_agents):
                self.rewards[x] = float(r[i])
                self.terminations[x] = True
                self.infos[x] = {"end_reason": self.state.end_reason}
        else:
            self.agent_selection = self.possible_agents[self.state.current_player()]
        for x in self.agents:
            self._cumulative_rewards[x] += self.rewards[x]

    def render(self):
        return str(self.state)

    def close(self):
        pass
