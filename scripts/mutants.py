#!/usr/bin/env python3
"""Mutation check: plants each mutation of tests/mutants.txt in a scratch copy
of the tree, builds the suites that should notice it, runs them, and reports
which mutations they caught.

    python3 scripts/mutants.py [--only ID,ID] [--subset] [--jobs N] [--keep]
    python3 scripts/mutants.py --check     (each original text occurs once; each
                                            line of tests/mutants-equivalent.txt occurs)

tests/mutants.txt holds one block per mutation:

    == ID  FILE  SUITE[,SUITE...]  [subset]  [cpu=FLAG]
    - exact text of the original (one line, or several lines with '- ')
    + the text that replaces it (any number of '+ ' lines; none deletes it)
    # why it matters (optional), or "equivalent: REASON" for a mutation
    # that no test can catch because it does not change behaviour

The original text must occur exactly once in FILE, so a list that drifts from
the code fails loudly instead of testing nothing. A mutation is caught when
one of its suites fails (or times out); one that does not build is an error
in the list, not a catch. cpu=FLAG (a /proc/cpuinfo flag) marks code that
runs only on CPUs with FLAG: elsewhere the mutation is reported as not
applicable, neither caught nor missed (SOWZERO_MUTANTS_CPU="flag flag ..."
stands in for the CPU's flags, to test that logic). The scratch copy is made
once and every object is rebuilt only when a mutation touches its source, so
a mutation costs one compile, one link per suite and the suites' own time.
scripts/mutants_random.py draws mutations instead of reading them, and shares
this machinery.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "tests", "mutants.txt")
EQUIV = os.path.join(ROOT, "tests", "mutants-equivalent.txt")  # scripts/mutants_random.py's


class Mutant:
    def __init__(self, ident, path, suites, subset, line, cpu=None):
        self.id, self.path, self.suites, self.subset, self.line = ident, path, suites, subset, line
        self.cpu = cpu
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
                    sys.exit(f"{path}:{n}: expected '== ID FILE SUITES [subset] [cpu=FLAG]'")
                cpu = [p[4:] for p in parts[3:] if p.startswith("cpu=")]
                cur = Mutant(parts[0], parts[1], parts[2].split(","), "subset" in parts[3:], n,
                             cpu[0] if cpu else None)
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


def check(muts, root, listname, at_least_once=False):
    """Each original text occurs exactly once (at_least_once: at least once)
    in its file: the messages of those that do not (empty: all do)."""
    bad = []
    for m in muts:
        try:
            with open(os.path.join(root, m.path), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            bad.append(f"{listname}:{m.line}: {m.id}: {m.path}: {e.strerror}")
            continue
        count = text.count("\n".join(m.old))
        if count != 1 and not (at_least_once and count > 1):
            bad.append(f"{listname}:{m.line}: {m.id}: original text found {count} times in {m.path}")
    return bad


def cpu_flags():
    """The CPU's flags (/proc/cpuinfo), or SOWZERO_MUTANTS_CPU's."""
    fake = os.environ.get("SOWZERO_MUTANTS_CPU")
    if fake is not None:
        return set(fake.split())
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def kill_session(sid):
    """SIGKILL to every process of session sid (Check puts each forked test
    in a process group of its own, but it stays in the session)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                os.kill(int(d), signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            pass


def run(cmd, cwd, timeout, env=None):
    """cmd's status and output, or "timeout". A suite forks a child per
    test, which a timeout must not leave running (nor holding the output
    pipe): each command runs in a session of its own, killed whole."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        kill_session(p.pid)
        p.kill()
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        return "timeout", ""


class Scratch:
    """A scratch copy of the tracked files (as they are in the work tree)
    where mutations are planted, built and tested one at a time."""

    def __init__(self, path, jobs, timeout):
        self.path, self.jobs, self.timeout = path, jobs, timeout
        self.src = os.path.join(path, "src")
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(self.src)
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                               stdout=subprocess.PIPE).stdout.decode().split("\0")
        for f in filter(None, files):
            if f.startswith("web/") or f.startswith("tests/data/") or not os.path.exists(
                    os.path.join(ROOT, f)):
                continue
            os.makedirs(os.path.join(self.src, os.path.dirname(f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(self.src, f))
        os.symlink(os.path.join(ROOT, "tests", "data"), os.path.join(self.src, "tests", "data"))
        os.makedirs(os.path.join(self.src, "build"), exist_ok=True)
        stamp = os.path.join(ROOT, "build", ".deps-ok")
        if os.path.exists(stamp):
            shutil.copy2(stamp, os.path.join(self.src, "build", ".deps-ok"))
        # A failing suite may leave its scratch files: they go to a folder
        # of their own (short: suites keep paths in small buffers), removed
        # with the scratch copy.
        self.tmp = tempfile.mkdtemp(prefix="sowzero-mut-")
        self.env = dict(os.environ, SOWZERO_BIN="build/sowzero", TMPDIR=self.tmp)
        # The sanitizers' builds, as `make asan` and `make tsan` make and
        # run them: folder, make flags and environment of each.
        scaled = dict(self.env, SOWZERO_TEST_SCALE="0.1", CK_TIMEOUT_MULTIPLIER="3")
        self.modes = {
            None: ("build", [], self.env),
            "asan": ("build/asan", ["OPT=-O1 -g -fno-omit-frame-pointer",
                                    "SAN=-fsanitize=address,undefined -fno-sanitize-recover=all"],
                     dict(scaled, SOWZERO_BIN="build/asan/sowzero")),
            "tsan": ("build/tsan", ["OPT=-O1 -g", "SAN=-fsanitize=thread"],
                     dict(scaled, SOWZERO_BIN="build/tsan/sowzero", SOWZERO_TSAN="1")),
        }

    def mode(self, san):
        """(folder, make flags, environment) of a build: san None, True
        (the AddressSanitizer's), "asan" or "tsan"."""
        return self.modes["asan" if san is True else san or None]

    def build(self, suites, timeout=900, san=None):
        b, flags, _ = self.mode(san)
        flags = ([f"BUILD={b}"] if san else []) + flags
        targets = [f"{b}/sowzero"] + [f"{b}/tests/{s}" for s in suites]
        return run(["make", f"-j{self.jobs}", "--no-print-directory"] + flags + targets, self.src,
                   timeout)

    def baseline(self, suites, san=None, fatal=True):
        """Builds the unmutated tree (san: the sanitizers' build) and runs
        suites, which must pass; the seconds each took. Not fatal: a suite
        that fails is left out of the answer (said on stdout)."""
        rc, out = self.build(suites, 3600, san)
        if rc != 0:
            print(out[-4000:])
            sys.exit("mutants: the unmutated tree does not build")
        secs = {}
        for s in suites:
            t0 = time.time()
            b, _, env = self.mode(san)
            rc, out = run([f"{b}/tests/{s}"], self.src, self.timeout, env)
            secs[s] = time.time() - t0
            if rc != 0:
                print(out[-4000:])
                msg = (f"mutants: {s} fails on the unmutated tree"
                       + (f" under {self.mode(san)[0]}" if san else ""))
                if fatal:
                    sys.exit(msg)
                print(msg + ": left out of that pass", flush=True)
                del secs[s]
        return secs

    def read(self, rel):
        with open(os.path.join(self.src, rel), encoding="utf-8") as f:
            return f.read()

    def write(self, rel, text):
        with open(os.path.join(self.src, rel), "w", encoding="utf-8") as f:
            f.write(text)

    def trial(self, rel, orig, mutated, suites, timeouts=None, san=None):
        """Plants mutated as rel's text, builds and runs suites (stopping at
        the first that fails; san: a sanitizers' build, "asan" or "tsan",
        as `make asan` and `make tsan` run them), restores orig. "unbuilt", "caught by S", "caught by S
        (timeout)" (with " (asan)" or " (tsan)" under san) or None (survived)."""
        self.write(rel, mutated)
        try:
            rc, _ = self.build(suites, san=san)
            if rc != 0:
                return "unbuilt"
            for s in suites:
                t = (timeouts or {}).get(s, self.timeout)
                b, _, env = self.mode(san)
                rc, _ = run([f"{b}/tests/{s}"], self.src, t, env)
                if rc != 0:
                    return (f"caught by {s}" + (f" ({b[6:]})" if san else "")
                            + (" (timeout)" if rc == "timeout" else ""))
            return None
        finally:
            self.write(rel, orig)

    def close(self, keep):
        shutil.rmtree(self.tmp, ignore_errors=True)
        if not keep:
            shutil.rmtree(self.path, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated mutation ids")
    ap.add_argument("--subset", action="store_true", help="only the mutations marked subset")
    ap.add_argument("--check", action="store_true",
                    help="only check that each original text occurs once in its file")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="make -j")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per suite run")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("--scratch", default=os.path.join(ROOT, "build", "mutants"))
    a = ap.parse_args()

    muts = parse(LIST)
    if a.check:
        bad = check(muts, ROOT, os.path.relpath(LIST, ROOT))
        print(f"mutants: {len(muts) - len(bad)} of {len(muts)} original texts occur once")
        if os.path.exists(EQUIV):  # generated mutations: their lines may recur
            eq = parse(EQUIV)
            more = check(eq, ROOT, os.path.relpath(EQUIV, ROOT), at_least_once=True)
            print(f"mutants: {len(eq) - len(more)} of {len(eq)} equivalent mutations' lines occur")
            bad += more
        for b in bad:
            print(b)
        sys.exit(1 if bad else 0)
    if a.only:
        want = set(a.only.split(","))
        muts = [m for m in muts if m.id in want]
    if a.subset:
        muts = [m for m in muts if m.subset]
    flags = cpu_flags()
    na = [m for m in muts if not m.equivalent and m.cpu and m.cpu not in flags]
    live = [m for m in muts if not m.equivalent and m not in na]

    sc = Scratch(a.scratch, a.jobs, a.timeout)
    sc.baseline(sorted({s for m in live for s in m.suites}))

    caught, missed, broken = [], [], []
    t0 = time.time()
    for m in na:
        print(f"{m.id:6} n/a    {m.path}  runs only on a CPU with {m.cpu}", flush=True)
    for m in live:
        orig = sc.read(m.path)
        old, new = "\n".join(m.old), "\n".join(m.new)
        count = orig.count(old)
        if count != 1:
            broken.append((m, f"original text found {count} times in {m.path}"))
            print(f"{m.id:6} ERROR  original text found {count} times in {m.path}", flush=True)
            continue
        verdict = sc.trial(m.path, orig, orig.replace(old, new), m.suites)
        if verdict == "unbuilt":
            broken.append((m, "does not build"))
            print(f"{m.id:6} ERROR  does not build", flush=True)
            continue
        (caught if verdict else missed).append(m)
        print(f"{m.id:6} {'caught' if verdict else 'MISSED'}  {m.path}  "
              f"{verdict or 'suites: ' + ','.join(m.suites)}", flush=True)

    n = len(caught) + len(missed)
    rate = 100.0 * len(caught) / n if n else 0.0
    eq = sum(m.equivalent for m in muts)
    print(f"\nmutants: {len(caught)} caught, {len(missed)} missed, {len(broken)} errors, "
          f"{eq} equivalent, {len(na)} not applicable on this CPU; kill rate {rate:.1f}% "
          f"({time.time() - t0:.0f} s)")
    for m in missed:
        print(f"  missed {m.id}: {m.path} {' '.join(m.notes)}")
    for m, why in broken:
        print(f"  error {m.id}: {why}")
    sc.close(a.keep)
    sys.exit(1 if broken or missed else 0)


if __name__ == "__main__":
    main()
