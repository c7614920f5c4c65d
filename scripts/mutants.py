#!/usr/bin/env python3
"""Mutation check: plants each mutation of tests/mutants.txt in a scratch copy
of the tree, builds the suites that should notice it, runs them, and reports
which mutations they caught.

    python3 scripts/mutants.py [--only ID,ID] [--subset] [--jobs N] [--keep]

tests/mutants.txt holds one block per mutation:

    == ID  FILE  SUITE[,SUITE...]  [subset]
    - exact text of the original (one line, or several lines with '- ')
    + the text that replaces it (any number of '+ ' lines; none deletes it)
    # why it matters (optional), or "equivalent: REASON" for a mutation
    # that no test can catch because it does not change behaviour

The original text must occur exactly once in FILE, so a list that drifts from
the code fails loudly instead of testing nothing. A mutation is caught when
one of its suites fails (or times out); one that does not build is an error
in the list, not a catch. The scratch copy is made once and every object is
rebuilt only when a mutation touches its source, so a mutation costs one
compile, one link per suite and the suites' own time.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "tests", "mutants.txt")


class Mutant:
    def __init__(self, ident, path, suites, subset, line):
        self.id, self.path, self.suites, self.subset, self.line = ident, path, suites, subset, line
        self.old, self.new, self.notes = [], [], []

    @property
    def equivalent(self):
        return any(n.startswith("equivalent:") for n in self.notes)


def parse(path):
    muts, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("== "):
                parts = line[3:].split()
                if len(parts) < 3:
                    sys.exit(f"{path}:{n}: expected '== ID FILE SUITES [subset]'")
                cur = Mutant(parts[0], parts[1], parts[2].split(","), "subset" in parts[3:], n)
                muts.append(cur)
            elif cur is None or not line.strip():
                continue
            elif line.startswith("- ") or line == "-":
                cur.old.append(line[2:])
            elif line.startswith("+ ") or line == "+":
                cur.new.append(line[2:])
            elif line.startswith("# ----"):
                continue  # a section heading, not a note
            elif line.startswith("# "):
                cur.notes.append(line[2:])
            elif line.startswith("#"):
                continue
            else:
                sys.exit(f"{path}:{n}: a line must start with '== ', '- ', '+ ' or '# '")
    ids = [m.id for m in muts]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"{path}: repeated mutation ids: {' '.join(sorted(dup))}")
    for m in muts:
        if not m.old:
            sys.exit(f"{path}:{m.line}: mutation {m.id} has no '- ' line")
    return muts


def run(cmd, cwd, timeout, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated mutation ids")
    ap.add_argument("--subset", action="store_true", help="only the mutations marked subset")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="make -j")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per suite run")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("--scratch", default=os.path.join(ROOT, "build", "mutants"))
    a = ap.parse_args()

    muts = parse(LIST)
    if a.only:
        want = set(a.only.split(","))
        muts = [m for m in muts if m.id in want]
    if a.subset:
        muts = [m for m in muts if m.subset]
    live = [m for m in muts if not m.equivalent]

    # The scratch copy: the tracked files as they are in the work tree.
    src = os.path.join(a.scratch, "src")
    shutil.rmtree(a.scratch, ignore_errors=True)
    os.makedirs(src)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           stdout=subprocess.PIPE).stdout.decode().split("\0")
    for f in filter(None, files):
        if f.startswith("web/") or f.startswith("tests/data/"):
            continue
        os.makedirs(os.path.join(src, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(src, f))
    os.symlink(os.path.join(ROOT, "tests", "data"), os.path.join(src, "tests", "data"))
    os.makedirs(os.path.join(src, "build"), exist_ok=True)
    stamp = os.path.join(ROOT, "build", ".deps-ok")
    if os.path.exists(stamp):
        shutil.copy2(stamp, os.path.join(src, "build", ".deps-ok"))

    suites = sorted({s for m in live for s in m.suites})
    targets = ["build/sowzero"] + [f"build/tests/{s}" for s in suites]
    rc, out = run(["make", f"-j{a.jobs}", "--no-print-directory"] + targets, src, 1800)
    if rc != 0:
        print(out[-4000:])
        sys.exit("mutants: the unmutated tree does not build")
    # A failing suite may leave its scratch files: they go under the scratch
    # copy, and with it.
    tmp = os.path.join(a.scratch, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, SOWZERO_BIN="build/sowzero", TMPDIR=tmp)
    for s in suites:  # the suites must pass before anything is planted
        rc, out = run([f"build/tests/{s}"], src, a.timeout, env)
        if rc != 0:
            print(out[-4000:])
            sys.exit(f"mutants: {s} fails on the unmutated tree")

    caught, missed, broken = [], [], []
    t0 = time.time()
    for m in live:
        path = os.path.join(src, m.path)
        with open(path, encoding="utf-8") as f:
            orig = f.read()
        old, new = "\n".join(m.old), "\n".join(m.new)
        count = orig.count(old)
        if count != 1:
            broken.append((m, f"original text found {count} times in {m.path}"))
            print(f"{m.id:6} ERROR  original text found {count} times in {m.path}", flush=True)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig.replace(old, new))
        try:
            targets = ["build/sowzero"] + [f"build/tests/{s}" for s in m.suites]
            rc, out = run(["make", f"-j{a.jobs}", "--no-print-directory"] + targets, src, 900)
            if rc != 0:
                broken.append((m, "does not build"))
                print(f"{m.id:6} ERROR  does not build", flush=True)
                continue
            verdict = None
            for s in m.suites:
                rc, _ = run([f"build/tests/{s}"], src, a.timeout, env)
                if rc != 0:
                    verdict = f"caught by {s}" + (" (timeout)" if rc == "timeout" else "")
                    break
            if verdict:
                caught.append(m)
            else:
                missed.append(m)
            print(f"{m.id:6} {'caught' if verdict else 'MISSED'}  {m.path}  "
                  f"{verdict or 'suites: ' + ','.join(m.suites)}", flush=True)
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)

    n = len(caught) + len(missed)
    rate = 100.0 * len(caught) / n if n else 0.0
    eq = len(muts) - len(live)
    print(f"\nmutants: {len(caught)} caught, {len(missed)} missed, {len(broken)} errors, "
          f"{eq} equivalent; kill rate {rate:.1f}% ({time.time() - t0:.0f} s)")
    for m in missed:
        print(f"  missed {m.id}: {m.path} {' '.join(m.notes)}")
    for m, why in broken:
        print(f"  error {m.id}: {why}")
    if not a.keep:
        shutil.rmtree(a.scratch, ignore_errors=True)
    sys.exit(1 if broken or missed else 0)


if __name__ == "__main__":
    main()
