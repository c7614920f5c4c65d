#!/usr/bin/env python3
"""Measures agents against the Oware endgame database over the engine
protocol (BENCHMARKS.md, "The endgame database in play").

  moves   POSITIONS from random games with LO..HI seeds on the board (a fixed
          seed); for each AGENT, the share of its moves (analyze's best)
          that keep the database's result and that have its best value.
  games   from such positions, AGENT (first) against OTHER, both colours
          each; the first agent's score and its results against the
          database's verdict of the starting position.

The judging database is --judge DIR (it must hold HI seeds).
"""
import argparse
import random
import subprocess
import sys


class Engine:
    def __init__(self, exe, egdb=None):
        cmd = [exe, "engine"] + (["--egdb", egdb] if egdb else [])
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            s = self.p.stdout.readline()
            if s == "":
                raise RuntimeError("engine ended on: " + line)
            if s == "\n":
                break
            out.append(s.rstrip("\n"))
        if not out or out[0].startswith("?"):
            raise RuntimeError(line + ": " + " ".join(out))
        out[0] = out[0][2:] if out[0].startswith("= ") else out[0][1:]
        return out

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        self.p.wait()


def state(e):
    f = e.ask("state")[0].split()
    return f  # MOVER P0..P11 S0 S1 LEGAL STATUS...


def positions(judge, lo, hi, per_level, seed):
    """setboard arguments of ongoing positions, per_level per seed count."""
    rng = random.Random(seed)
    want = {n: per_level for n in range(lo, hi + 1)}
    got = []
    for _ in range(20000):
        if not any(want.values()):
            break
        judge.ask("game oware")
        taken = set()
        while True:
            f = state(judge)
            if f[15] == "-" or f[16] != "ongoing":
                break
            n = sum(int(x) for x in f[1:13])
            if lo <= n <= hi and want[n] and n not in taken:
                got.append(" ".join(f[:15]))
                want[n] -= 1
                taken.add(n)
            judge.ask("play " + rng.choice(f[15].split(",")))
    return got


def verdict(judge, pos):
    """{action: value} and the mover's store difference."""
    judge.ask("setboard " + pos)
    f = judge.ask("egdb")[0].split()
    vals = {int(a): int(v) for a, v in (t.split(":") for t in f[1:])}
    s = pos.split()
    me = int(s[0])
    diff = int(s[13 + me]) - int(s[14 - me])
    return vals, diff


def sign(x):
    return (x > 0) - (x < 0)


def moves(args):
    judge = Engine(args.exe, args.judge)
    pos = positions(judge, args.lo, args.hi, args.positions, args.seed)
    for spec in args.agents:
        e = Engine(args.exe, args.egdb)
        e.ask("agent " + spec)
        res = mar = 0
        per = {}
        for p in pos:
            vals, diff = verdict(judge, p)
            e.ask("setboard " + p)
            a = int(e.ask("analyze")[0].split()[1])
            best = max(vals.values())
            r = sign(diff + vals[a]) == sign(diff + best)
            m = vals[a] == best
            res += r
            mar += m
            n = sum(int(x) for x in p.split()[1:13])
            t = per.setdefault(n, [0, 0, 0])
            t[0] += 1
            t[1] += r
            t[2] += m
        e.close()
        levels = " ".join("%d:%.3f/%.3f" % (n, t[1] / t[0], t[2] / t[0]) for n, t in sorted(per.items()))
        print("%-60s positions %d  result-keeping %.3f  margin-optimal %.3f  (seeds:result/margin %s)"
              % (spec, len(pos), res / len(pos), mar / len(pos), levels))
        sys.stdout.flush()
    judge.close()


def games(args):
    judge = Engine(args.exe, args.judge)
    pos = positions(judge, args.lo, args.hi, args.positions, args.seed)
    a, b = Engine(args.exe, args.egdb), Engine(args.exe, args.egdb)
    a.ask("agent " + args.agents[0])
    b.ask("agent " + args.agents[1])
    score = games_n = 0
    below = above = 0  # first agent's results worse / better than the exact verdict
    for p in pos:
        vals, diff = verdict(judge, p)
        exact = sign(diff + max(vals.values()))  # for the mover
        mover = int(p.split()[0])
        for first_side in (0, 1):
            for e in (a, b):
                e.ask("setboard " + p)
            while True:
                f = state(a)
                if f[16] != "ongoing":
                    break
                mine = int(f[0]) == first_side
                mv = (a if mine else b).ask("genmove")[0].strip()
                (b if mine else a).ask("play " + mv)
            w = f[-1]
            r = 0.5 if w not in ("0", "1") else float(int(w) == first_side)
            want = exact if first_side == mover else -exact
            got = 1 if r == 1 else -1 if r == 0 else 0
            below += got < want
            above += got > want
            score += r
            games_n += 1
    print("%s vs %s: %d games from %d positions of %d..%d seeds, score %.3f; "
          "the first agent did worse than the database's verdict in %d, better in %d"
          % (args.agents[0], args.agents[1], games_n, len(pos), args.lo, args.hi,
             score / games_n, below, above))
    for e in (a, b, judge):
        e.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=["moves", "games"])
    ap.add_argument("agents", nargs="+")
    ap.add_argument("--exe", default="./build/sowzero")
    ap.add_argument("--judge", required=True, help="the database that judges (HI seeds or more)")
    ap.add_argument("--egdb", help="--egdb of the agents' engines (their egdb=on)")
    ap.add_argument("--lo", type=int, default=13)
    ap.add_argument("--hi", type=int, default=17)
    ap.add_argument("--positions", type=int, default=200, help="per seed count")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.mode == "games" and len(args.agents) != 2:
        ap.error("games takes two agents")
    (moves if args.mode == "moves" else games)(args)


if __name__ == "__main__":
    main()
