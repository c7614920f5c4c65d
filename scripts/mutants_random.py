#!/usr/bin/env python3
"""Generated mutants: from a seed, draws single-line mutations of the
library's sources by standard operators, plants each in a scratch copy of
the tree (scripts/mutants.py's machinery), builds it and runs the suites
that cover its file, and reports which the suites caught.

    python3 scripts/mutants_random.py --seed S --n N [--jobs J] [--folders base,game]
    python3 scripts/mutants_random.py --recheck FILE   (a report's survivors, run again)

Operators, each on one line of code (comments, strings and preprocessor
lines are left alone):
    rel     a relational operator swapped (<, <=, >, >=, ==, !=)
    arith   an arithmetic operator swapped (+ -, * /)
    const   an integer constant +1 or -1
    index   an array index +1 or -1
    neg     an if/while condition negated
    del     a statement deleted (an expression statement or a return;)
    swap    two adjacent arguments of a call swapped (plain names or
            literals; the build, with -Werror, drops most swaps of
            arguments of different types)
Every candidate of every file is listed, the list shuffled with the seed,
and candidates taken in turn: one that does not build is discarded and the
next drawn, until N have built. A mutant is caught when a suite fails or
runs past its timeout (five times its unmutated time, at least 20 s). A
mutant that survives runs again on the sanitizers' build, as `make asan`
(part of CI's tests) builds and runs the suites, and, in a file that takes
locks or uses atomics, on ThreadSanitizer's as `make tsan` does: caught
there, it is reported "(asan)" or "(tsan)" (--no-sanitizers skips this
pass).

tests/mutants-equivalent.txt (tests/mutants.txt's format) lists survivors
that change no behaviour, each with "# equivalent: REASON": a drawn mutant
that matches one (file, the original line and the line before it, the same
mutated) is reported as equivalent and not run. The report prints each
survivor as such an entry, its reason to fill in. The report ends with every survivor's diff and a
table per folder: caught / survived / timed out / equivalent.
"""

import argparse
import collections
import difflib
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutants  # noqa: E402  (the scratch copy, the list format)

ROOT = mutants.ROOT
EQUIV = mutants.EQUIV
FOLDERS = ["base", "game", "egdb", "nn", "search", "arena", "trainer", "protocol"]

# The suites run first for each folder's files (where its mutants are most
# often caught); a file also gets the suite named after it
# (tests/test_<name>.c) and the suites the hand list (tests/mutants.txt)
# names for it. Then every other suite of `make test` runs too, but for the
# slow ones: a mutant counts as caught when anything `make test` runs
# catches it, and the folder lists only order the search.
FOLDER_SUITES = {
    "base": ["test_base", "test_kv", "test_config"],
    # The per-game suites too: the shared headers (sowing.h, game.h) serve
    # the relay games and Bao, whose suites alone play their rules.
    "game": ["test_game", "test_oware", "test_variants", "test_search", "test_namnam",
             "test_bao_laps", "test_kujifunza", "test_bao_kenya", "test_session"],
    "egdb": ["test_egdb", "test_egdb_play"],
    "nn": ["test_nn", "test_nn_file", "test_nn_bf16"],
    "search": ["test_search", "test_mcts_values", "test_agents", "test_alphabeta",
               "test_mcts_batch", "test_properties"],
    "arena": ["test_arena", "test_ratings", "test_record", "test_stats", "test_openings"],
    "trainer": ["test_selfplay", "test_replay", "test_gating", "test_determinism",
                "test_run_dir", "test_properties"],
    "protocol": ["test_protocol", "test_properties"],
}
# Suites too slow to run for every mutant: test_run (two minutes: run last,
# for the files of the training loop only, which nothing else drives through
# whole runs), test_mpi (under mpirun, run for the distributed files and
# train.c, the learner rank's way in, only)
# and the game suites that play thousands of games (run for game/ only).
SLOW = {"test_run"}
FILE_SUITES = {f"trainer/{f}": ["test_mpi"] for f in ("dist.c", "dist.h", "dist_learner.c",
                                                       "train_actor.c", "train.c")}
LAST_SUITES = {f"trainer/{f}": ["test_run"] for f in ("train.c", "train_loop.c", "rundir.c",
                                                       "metrics.c", "checkpoint.c")}
FOLDER_ONLY = {"test_mpi", "test_namnam", "test_bao_laps", "test_kujifunza", "test_oware"}


def tracked_suites():
    """The suites git knows (the scratch copy holds only tracked files)."""
    if not hasattr(tracked_suites, "cache"):
        out = subprocess.run(["git", "ls-files", "tests/test_*.c"], cwd=ROOT, check=True,
                             stdout=subprocess.PIPE).stdout.decode().split()
        tracked_suites.cache = sorted(os.path.basename(f)[:-2] for f in out)
    return tracked_suites.cache


def print_table(table, last):
    """The campaign's table per folder (Markdown), its last column `last`;
    returns the totals."""
    cols = ["caught", "timeout", "survived", last]
    print(f"\n| folder | caught | timed out | survived | {last} |\n|---|---|---|---|---|")
    tot = collections.Counter()
    for f, c in list(table.items()) + [("all", tot)]:
        if f != "all" and sum(c.values()):
            tot.update(c)
        if f == "all" or sum(c.values()):
            print(f"| {f} | " + " | ".join(str(c[k]) for k in cols) + " |")
    return tot

def covering(path, hand):
    """The suites that cover a file: its folder's, the one named after it
    and the ones the hand list names for it."""
    out = set(FOLDER_SUITES.get(path.split("/")[0], []))
    base = os.path.splitext(os.path.basename(path))[0]
    out.update(f"test_{n}" for n in (base, base.split("_")[0]))
    out.update(s for m in hand if m.path == path for s in m.suites)
    out.add("test_faults")  # every folder's allocation failures (leaks show under ASan)
    return out


def suites_for(path, hand):
    folder = path.split("/")[0]
    out = list(FOLDER_SUITES.get(folder, []))
    base = os.path.splitext(os.path.basename(path))[0]
    for name in (base, base.split("_")[0]):
        if os.path.exists(os.path.join(ROOT, "tests", f"test_{name}.c")):
            out.append(f"test_{name}")
    for m in hand:
        if m.path == path:
            out += m.suites
    out += FILE_SUITES.get(path, [])
    out += [t for t in tracked_suites() if t not in FOLDER_ONLY]
    out = [s for s in out if s not in SLOW] + LAST_SUITES.get(path, [])
    seen, res = set(), []
    for s in out:
        if s not in seen and s in tracked_suites():
            seen.add(s)
            res.append(s)
    return res


# ---- finding candidates ------------------------------------------------------

def code_mask(text):
    """For each character of a C file, whether it is code (not in a comment,
    a string or a character literal); and for each line whether it starts
    inside a comment."""
    mask = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            mask[i] = True
            i += 1
    return mask


REL = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="],
       "==": ["!="], "!=": ["=="]}
ARITH = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"]}
OP_RE = re.compile(r"<<=|>>=|<<|>>|->|\+\+|--|&&|\|\||[<>=!+\-*/%&|^]=|[<>+\-*/]")
CONST_RE = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
INDEX_RE = re.compile(r"\[([A-Za-z_]\w*)\]")
COND_RE = re.compile(r"\b(if|while)\s*\(")
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
SIMPLE_ARG = re.compile(r"^\s*(&?[A-Za-z_][\w.>-]*|-?\d+(\.\d*)?f?)\s*$")


def unary_context(line, i):
    """Whether the operator at i is unary (a sign or a dereference)."""
    j = i - 1
    while j >= 0 and line[j] == " ":
        j -= 1
    return j < 0 or line[j] in "(,=?:[{;!&|<>+-*/%^~" or line[max(0, j - 5):j + 1].endswith("return")


def matching(line, i):
    """The index of the parenthesis closing the one at i, or -1."""
    depth = 0
    for j in range(i, len(line)):
        if line[j] == "(":
            depth += 1
        elif line[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def line_candidates(line, codemask):
    """(operator, mutated line) for one line; codemask[i]: line[i] is code."""
    out = []

    def code(i, k=1):
        return all(codemask[i:i + k]) and i + k <= len(codemask)

    for m in OP_RE.finditer(line):
        op, i = m.group(), m.start()
        if not code(i, len(op)):
            continue
        if op in REL:
            # '<' and '>' of an #include or a cast are not on code lines here;
            # -> and shifts are separate tokens above.
            for r in REL[op]:
                out.append(("rel", line[:i] + r + line[i + len(op):]))
        elif op in ARITH and not unary_context(line, i):
            if op == "*" and re.match(r"\s*\w+\s*\*\s*\w", line[max(0, i - 20):]) and "=" not in line[:i]:
                continue  # a declaration's pointer star
            for r in ARITH[op]:
                out.append(("arith", line[:i] + r + line[i + len(op):]))
    for m in CONST_RE.finditer(line):
        i = m.start()
        if not code(i, len(m.group())) or line[:i].rstrip().endswith("case"):
            continue
        v = int(m.group(1))
        for d in (1, -1):
            if v + d >= 0:
                out.append(("const", line[:i] + str(v + d) + line[m.end():]))
    for m in INDEX_RE.finditer(line):
        if not code(m.start()):
            continue
        for d in (" + 1", " - 1"):
            out.append(("index", line[:m.end(1)] + d + line[m.end(1):]))
    for m in COND_RE.finditer(line):
        p = m.end() - 1
        if not code(p):
            continue
        q = matching(line, p)
        if q > 0:
            out.append(("neg", line[:p + 1] + "!(" + line[p + 1:q] + ")" + line[q:]))
    s = line.strip()
    if (s.endswith(";") and not s.startswith(("return ", "break", "continue", "case", "default"))
            and code(line.index(s[0])) and "=" in s or re.match(r"^[A-Za-z_][\w.>-]*\s*\(.*\);$", s)):
        if not re.match(r"^(const\s+)?(static\s+)?(unsigned\s+)?[A-Za-z_]\w*\s+\**[A-Za-z_]", s) or \
                re.match(r"^[A-Za-z_][\w.>\[\]-]*\s*([-+*/|&^]?=|\()", s):
            out.append(("del", None))
    if s == "return;":
        out.append(("del", None))
    for m in CALL_RE.finditer(line):
        p = m.end() - 1
        if not code(p) or m.group(1) in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        q = matching(line, p)
        if q < 0:
            continue
        args, depth, start = [], 0, p + 1
        for j in range(p + 1, q):
            if line[j] in "([":
                depth += 1
            elif line[j] in ")]":
                depth -= 1
            elif line[j] == "," and depth == 0:
                args.append((start, j))
                start = j + 1
        args.append((start, q))
        for k in range(len(args) - 1):
            (a0, a1), (b0, b1) = args[k], args[k + 1]
            x, y = line[a0:a1], line[b0:b1]
            if SIMPLE_ARG.match(x) and SIMPLE_ARG.match(y) and x.strip() != y.strip():
                out.append(("swap", line[:a0] + y.strip().join(x.split(x.strip()))
                            + "," + x.strip().join(y.split(y.strip())) + line[b1:]))
    return [(op, new) for op, new in out if new != line]


def candidates(rel):
    """Every (file, line number, operator, mutated line or None) of a file."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        text = f.read()
    mask = code_mask(text)
    out, pos = [], 0
    for no, line in enumerate(text.split("\n"), 1):
        lm = mask[pos:pos + len(line)]
        pos += len(line) + 1
        s = line.strip()
        if not s or s.startswith("#") or not any(lm) or "_Static_assert" in s or "static_assert" in s:
            continue
        if not line.startswith(" "):
            continue  # top level: declarations, signatures, tables
        for op, new in line_candidates(line, lm):
            out.append((rel, no, op, new))
    return out


def lib_files(folders):
    out = []
    for d in folders:
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith((".c", ".h")):
                out.append(f"{d}/{f}")
    return out


# ---- the campaign --------------------------------------------------------------

class Sanitized:
    """The second pass of a survivor: the same suites on the sanitizers'
    builds, as `make asan` and `make tsan` (which CI runs) build and run
    them. AddressSanitizer and UBSan for every file: an invalid read or
    write, a leak or undefined behaviour that changes no result fails
    there. ThreadSanitizer too for a file that takes locks or uses atomics:
    a lock or an ordering taken away changes no result in one run. The
    unmutated builds and their times, on first need."""

    THREADED = ("pthread_", "atomic_", "_Atomic", "__atomic")

    def __init__(self, sc, hand):
        self.sc, self.hand = sc, hand
        self.secs = {"asan": {}, "tsan": {}}
        self.bad = {"asan": set(), "tsan": set()}

    def trial(self, rel, orig, mutated, suites):
        # The covering suites only (the folder's, the file's, the hand
        # list's): a sanitizer reports where the code runs, and a build and
        # run of every suite under it takes minutes. make asan runs no mpirun,
        # and the slow suites stay out here too.
        suites = [s for s in suites
                  if s in covering(rel, self.hand) and s != "test_mpi" and s not in SLOW]
        modes = ["asan"] + (["tsan"] if any(w in orig for w in self.THREADED) else [])
        for mode in modes:
            secs, bad = self.secs[mode], self.bad[mode]
            missing = [s for s in suites if s not in secs and s not in bad]
            if missing:
                got = self.sc.baseline(missing, san=mode, fatal=False)
                bad.update(s for s in missing if s not in got)
                secs.update(got)
            run = [s for s in suites if s in secs]
            timeouts = {s: max(30, int(5 * secs[s]) + 1) for s in run}
            v = self.sc.trial(rel, orig, mutated, run, timeouts, san=mode)
            if v == "unbuilt":
                return None
            if v:
                return v
        return None


def context(lines, no, new):
    """The original and mutated text of line no with the line before it (so
    that an entry names one place, not every line alike)."""
    before = lines[no - 2:no - 1]
    return "\n".join(before + [lines[no - 1]]), "\n".join(before + ([] if new is None else [new]))


def entry(rel, lines, no, new, ident):
    """A survivor as a block of tests/mutants-equivalent.txt, reason to fill."""
    old, mut = context(lines, no, new)
    return (f"== {ident} {rel} -\n" + "".join(f"- {x}\n" for x in old.split("\n"))
            + "".join(f"+ {x}\n" for x in mut.split("\n") if mut) + "# equivalent: REASON\n")


def recheck(a):
    """Runs a campaign's survivors again, as the report printed them (the
    line before, the line and its mutation), on the suites as they are now:
    which a new test catches. Not a campaign's rate: these were chosen by
    having survived."""
    hand = mutants.parse(mutants.LIST)
    muts = mutants.parse(a.recheck)
    sc = mutants.Scratch(a.scratch, a.jobs, 300)
    secs = sc.baseline(sorted({s for m in muts for s in suites_for(m.path, hand)}))
    timeouts = {s: max(20, int(5 * t) + 1) for s, t in secs.items()}
    san = None if a.no_sanitizers else Sanitized(sc, hand)
    table = collections.OrderedDict((f, collections.Counter()) for f in FOLDERS)
    for m in muts:
        orig = sc.read(m.path)
        old, new = "\n".join(m.old), "\n".join(m.new)
        if old not in orig:
            print(f"{m.id:8} gone     {m.path}: its lines are no longer there", flush=True)
            table.setdefault(m.path.split("/")[0], collections.Counter())["gone"] += 1
            continue
        t1 = time.time()
        mutated = orig.replace(old, new, 1)
        verdict = sc.trial(m.path, orig, mutated, suites_for(m.path, hand), timeouts)
        if verdict is None and san:
            verdict = san.trial(m.path, orig, mutated, suites_for(m.path, hand))
        v = ("unbuilt" if verdict == "unbuilt" else "survived" if verdict is None
             else "timeout" if "timeout" in verdict else "caught")
        table.setdefault(m.path.split("/")[0], collections.Counter())[v] += 1
        print(f"{m.id:8} {v:8} {m.path} {verdict or ''} ({time.time() - t1:.0f} s)", flush=True)
    tot = print_table(table, "gone")
    sc.close(a.keep)
    sys.exit(1 if tot["survived"] or tot["unbuilt"] else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int)
    ap.add_argument("--n", type=int, help="mutants that build")
    ap.add_argument("--recheck", metavar="FILE",
                    help="run the mutations of FILE (a report's survivors as entries) again")
    ap.add_argument("--folders", default=",".join(FOLDERS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="make -j")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("--no-sanitizers", action="store_true",
                    help="no second pass of survivors on the sanitizers' build")
    ap.add_argument("--list", action="store_true", help="only print the drawn candidates")
    ap.add_argument("--scratch", default=os.path.join(ROOT, "build", "mutants-random"))
    a = ap.parse_args()
    if a.recheck:
        return recheck(a)
    if a.seed is None or a.n is None:
        ap.error("--seed and --n are needed (or --recheck FILE)")

    hand = mutants.parse(mutants.LIST)
    equiv = {}
    if os.path.exists(EQUIV):
        for m in mutants.parse(EQUIV):
            why = next((x for x in m.notes if x.startswith("equivalent:")), None)
            if not why:
                sys.exit(f"{EQUIV}:{m.line}: {m.id}: no '# equivalent: REASON'")
            equiv[(m.path, "\n".join(m.old), "\n".join(m.new))] = why

    cands = [c for f in lib_files(a.folders.split(",")) for c in candidates(f)]
    rng = random.Random(a.seed)
    rng.shuffle(cands)
    print(f"mutants-random: seed {a.seed}, {len(cands)} candidates in {a.folders}", flush=True)
    if a.list:
        for rel, no, op, new in cands[:a.n]:
            print(f"{rel}:{no} {op}: {new.strip() if new is not None else '(deleted)'}")
        return

    sc = mutants.Scratch(a.scratch, a.jobs, 300)
    allsuites = sorted({s for f in lib_files(a.folders.split(",")) for s in suites_for(f, hand)})
    secs = sc.baseline(allsuites)
    timeouts = {s: max(20, int(5 * t) + 1) for s, t in secs.items()}
    san = None if a.no_sanitizers else Sanitized(sc, hand)

    results = []  # (folder, verdict, rel, no, op, diff)
    built = unbuilt = 0
    t0 = time.time()
    for rel, no, op, new in cands:
        if built >= a.n:
            break
        orig = sc.read(rel)
        lines = orig.split("\n")
        old = lines[no - 1]
        mlines = lines[:no - 1] + ([] if new is None else [new]) + lines[no:]
        mutated = "\n".join(mlines)
        diff = "".join(difflib.unified_diff(orig.splitlines(True), mutated.splitlines(True),
                                            f"a/{rel}", f"b/{rel}", n=1))
        folder = rel.split("/")[0]
        k = (rel,) + context(lines, no, new)
        if k in equiv:
            built += 1
            results.append((folder, "equivalent", rel, no, op, diff, equiv[k]))
            print(f"{built:4} equivalent {rel}:{no} {op}", flush=True)
            continue
        suites = suites_for(rel, hand)
        t1 = time.time()
        verdict = sc.trial(rel, orig, mutated, suites, timeouts)
        if verdict is None and san:
            verdict = san.trial(rel, orig, mutated, suites)
        if verdict == "unbuilt":
            unbuilt += 1
            continue
        built += 1
        v = "survived" if verdict is None else "timeout" if "timeout" in verdict else "caught"
        results.append((folder, v, rel, no, op, diff,
                        verdict or entry(rel, lines, no, new, f"S{a.seed}-{built}")))
        print(f"{built:4} {v:8} {rel}:{no} {op} {verdict or ''} ({time.time() - t1:.0f} s)",
              flush=True)

    el = time.time() - t0
    print(f"\nmutants-random: seed {a.seed}: {built} mutants built ({unbuilt} more did not build "
          f"and were redrawn) in {el:.0f} s, {el / max(built, 1):.1f} s a mutant, make -j{a.jobs}")
    surv = [r for r in results if r[1] == "survived"]
    for r in surv:
        print(f"\n-- survived: {r[2]}:{r[3]} ({r[4]})\n{r[5]}", end="")
    if surv:
        print("\n-- the survivors as entries of tests/mutants-equivalent.txt, for those that "
              "change no behaviour:\n")
        print("\n".join(r[6] for r in surv))
    table = collections.OrderedDict((f, collections.Counter()) for f in FOLDERS)
    for r in results:
        table.setdefault(r[0], collections.Counter())[r[1]] += 1
    tot = print_table(table, "equivalent")
    live = tot["caught"] + tot["timeout"] + tot["survived"]
    print(f"\ncaught {tot['caught'] + tot['timeout']} of {live} not equivalent "
          f"({100.0 * (tot['caught'] + tot['timeout']) / max(live, 1):.1f}%)")
    sc.close(a.keep)
    sys.exit(1 if surv else 0)


if __name__ == "__main__":
    main()
