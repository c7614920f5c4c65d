#!/usr/bin/env python3
"""Random Oware games played from Python: through the sowzero package against
the same games through `sowzero engine` text commands (docs/PYTHON.md).

    PYTHONPATH=python python3 python/bench_random.py [--games 1000] [--json]

Both sides draw the same moves from Python's random.Random (same seed), so
they play the same games; the two are interleaved in rounds of 50 games so
that a busy machine slows both alike. Prints a table, or with --json one
JSON object per figure."""
import argparse
import json
import os
import random
import subprocess
import time

import sowzero


def play_package(game, rng, n):
    plies = 0
    for _ in range(n):
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            plies += 1
    return plies


class Engine:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "engine"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            r = self.p.stdout.readline()
            if r == "\n" or not r:
                return "".join(out)
            out.append(r)

    def close(self):
        self.ask("quit")
        self.p.wait()


def play_engine(eng, rng, n):
    """`moves` starts a game; each `play A` answers with the state, whose
    LEGAL field and status say what comes next."""
    plies = 0
    for _ in range(n):
        t = eng.ask("moves").split()
        while t[-1] == "ongoing":
            legal = [int(a) for a in t[-2].split(",")]
            t = eng.ask(f"play {rng.choice(legal)}").split()
            plies += 1
    return plies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--bin", default=os.environ.get("SOWZERO_BIN", "./sowzero"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    game = sowzero.Game("oware")
    eng = Engine(a.bin)
    rp, re_ = random.Random(1), random.Random(1)
    tp = te = 0.0
    plies_p = plies_e = 0
    left = a.games
    while left > 0:
        k = min(50, left)
        t0 = time.perf_counter()
        plies_p += play_package(game, rp, k)
        t1 = time.perf_counter()
        plies_e += play_engine(eng, re_, k)
        t2 = time.perf_counter()
        tp += t1 - t0
        te += t2 - t1
        left -= k
    eng.close()
    assert plies_p == plies_e, "the two sides played different games"
    figs = [("package_games_per_s", a.games / tp, "1/s"), ("engine_games_per_s", a.games / te, "1/s"),
            ("speedup", te / tp, "x")]
    if a.json:
        for name, v, unit in figs:
            print(json.dumps({"bench": "python random", "figure": name, "value": v, "unit": unit}))
        return
    print(f"{a.games} random Oware games ({plies_p} plies), the same games both ways")
    print(f"  {'sowzero package':<26} {tp:8.3f} s  {a.games / tp:10.0f} games/s")
    print(f"  {'sowzero engine (text)':<26} {te:8.3f} s  {a.games / te:10.0f} games/s")
    print(f"  {'speedup':<26} {te / tp:8.1f} x")


if __name__ == "__main__":
    main()
