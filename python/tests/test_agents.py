"""Encodings, networks, agents, arena and the analysis engine, each against
the C library's own tools (dump_cases, `sowzero engine`, `sowzero analysis`)."""
import json
import subprocess
import threading

import numpy as np
import pytest

import sowzero


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory, dump_cases):
    p = tmp_path_factory.mktemp("net") / "oware.weights"
    subprocess.run([dump_cases, "--make-net", str(p), "--hidden", "16", "--blocks", "1",
                    "--seed", "5"], check=True)
    return p


def test_encoding_and_network_equal_dump_cases(tiny_net, dump_cases, tmp_path):
    out = tmp_path / "cases.json"
    subprocess.run([dump_cases, str(tiny_net), str(out), "--random", "300", "--seed", "3"],
                   check=True, capture_output=True)
    cases = json.loads(out.read_text())["positions"]
    net = sowzero.Network(tiny_net)
    g = net.game
    states = [g.state_from_board([str(c["mover"])] + [str(x) for x in c["pits"] + c["store"]],
                                 ply=c["ply"], nocap=c["nocap"]) for c in cases]
    x, mask = g.encode(states)
    # The encoding is the C library's, float for float.
    np.testing.assert_array_equal(x, np.array([c["features"] for c in cases], np.float32))
    want_mask = np.array([[c["legal"] >> a & 1 for a in range(g.num_actions)] for c in cases], bool)
    np.testing.assert_array_equal(mask, want_mask)
    policy, value, margin = net.evaluate(x, mask)
    np.testing.assert_allclose(policy, [c["policy"] for c in cases], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value, [c["value"] for c in cases], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(margin / net.score_scale, [c["score"] for c in cases],
                               rtol=1e-5, atol=1e-6)
    # States straight in, one at a time: the same numbers.
    p1, v1, _ = net.evaluate(states[7])
    np.testing.assert_allclose(p1[0], policy[7], rtol=1e-5, atol=1e-6)


def engine(sowzero_bin, lines):
    r = subprocess.run([sowzero_bin, "engine"], input="\n".join(lines) + "\nquit\n",
                       capture_output=True, text=True, check=True)
    return [b for b in r.stdout.split("\n\n") if b.strip()]


def test_network_equals_sowzero_engine(tiny_net, sowzero_bin):
    net = sowzero.Network(tiny_net)
    s = net.game.new_initial_state()
    for a in (2, 0, 4):
        s.apply(a)
    answers = engine(sowzero_bin, [f"agent net weights={tiny_net} precision=fp32", "moves 2 0 4",
                                  "analyze"])
    head, *moves = answers[-2].lstrip("= ").split("\n")
    policy, value, margin = net.evaluate(s)
    assert abs(float(head.split()[3]) - value[0]) < 1e-4
    assert abs(float(head.split()[5]) - margin[0]) < 1e-2
    for m in moves:
        t = m.split()
        assert abs(float(t[5]) - policy[0, int(t[1])]) < 1e-4
    # The Python agent of the same spec sees the same.
    an = sowzero.Agent(net.game, f"net weights={tiny_net} precision=fp32").analyze(s)
    assert abs(an["value"] - value[0]) < 1e-6
    assert {m["action"]: round(m["prior"], 4) for m in an["moves"]} == \
        {int(m.split()[1]): float(m.split()[5]) for m in moves}


def test_agents_choose_and_analyze(tiny_net):
    g = sowzero.Game("oware")
    s = g.new_initial_state()
    for spec in ("random", "greedy", "alphabeta depth=3", "mcts sims=64",
                 f"zero weights={tiny_net} sims=32"):
        a = sowzero.Agent(g, spec, seed=3)
        assert a.spec == spec
        assert a.choose(s) in s.legal_actions()
    # Made for the game of the state it is given.
    assert sowzero.Agent("alphabeta depth=2").choose(s) in s.legal_actions()
    k = sowzero.Game("kujifunza").new_initial_state()
    lazy = sowzero.Agent("mcts sims=16")
    assert lazy.choose(s) in s.legal_actions() and lazy.choose(k) in k.legal_actions()
    an = sowzero.Agent(g, f"zero weights={tiny_net} sims=64").analyze(s)
    assert sorted(m["action"] for m in an["moves"]) == s.legal_actions()
    assert sum(m["visits"] for m in an["moves"]) >= 60
    best = max(an["moves"], key=lambda m: m["visits"])
    assert best["pv"][0] == best["action"] and len(best["pv"]) >= 2
    assert an["margin"] is not None and all(m["margin"] is not None for m in an["moves"])
    # The shipped Oware network is made for 6 houses.
    with pytest.raises(sowzero.Error, match="6 actions but this game has 5"):
        sowzero.Agent(sowzero.Game("oware", houses=5), "zero sims=10")
    with pytest.raises(sowzero.Error, match="does not analyze"):
        sowzero.Agent(g, "random").analyze(s)


def test_search_releases_the_gil():
    g = sowzero.Game("oware")
    a = sowzero.Agent(g, "mcts sims=20000")
    s = g.new_initial_state()
    started = threading.Event()

    def run():
        started.set()
        a.choose(s)

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    spins = 0
    while t.is_alive():
        spins += 1
    t.join()
    assert spins > 1000  # this thread ran while the search did


def test_arena_result_table():
    g = sowzero.Game("oware")
    r = sowzero.arena(g, ["random", "greedy"], games=20, threads=2, seed=5)
    assert r["games"] == 20 and len(r["agents"]) == 2 and r["agents"][0]["spec"] == "random"
    p = r["pairings"][0]
    assert p["wins"] + p["draws"] + p["losses"] == 20
    assert r["south_wins"] + r["draws"] + r["north_wins"] == 20
    assert r["agents"][1]["elo"] > r["agents"][0]["elo"]  # greedy beats random
    with pytest.raises(sowzero.Error, match="unknown agent"):
        sowzero.arena(g, ["random", "nosuchagent"])


def validate(v, schema, path="$"):
    """The part of JSON Schema that docs/analysis.schema.json uses."""
    if "oneOf" in schema:
        errs = []
        for s in schema["oneOf"]:
            try:
                validate(v, s, path)
                return
            except AssertionError as e:
                errs.append(str(e))
        raise AssertionError(f"{path}: matches no alternative: {errs}")
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        ok = {"string": isinstance(v, str), "null": v is None, "array": isinstance(v, list),
              "object": isinstance(v, dict), "boolean": isinstance(v, bool),
              "integer": isinstance(v, int) and not isinstance(v, bool),
              "number": isinstance(v, (int, float)) and not isinstance(v, bool)}
        assert any(ok[t] for t in types), f"{path}: {v!r} is not {types}"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        assert v >= schema.get("minimum", v) and v <= schema.get("maximum", v), f"{path}: {v}"
    if isinstance(v, dict):
        for k in schema.get("required", []):
            assert k in v, f"{path}: no {k}"
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            assert set(v) <= set(props), f"{path}: extra {set(v) - set(props)}"
        for k, x in v.items():
            if k in props:
                validate(x, props[k], f"{path}.{k}")
    if isinstance(v, list):
        assert len(v) >= schema.get("minItems", 0), f"{path}: too few items"
        for i, x in enumerate(v):
            validate(x, schema.get("items", {}), f"{path}[{i}]")


def test_analysis_engine_answers_every_game(sowzero_bin, root, tiny_net):
    schema = json.loads((root / "docs/analysis.schema.json").read_text())
    games, _ = sowzero.rules()
    queries = []
    for name in sorted(games):
        s = sowzero.Game(name).new_initial_state()
        moves = []
        for _ in range(3):
            moves.append(s.legal_actions()[0])
            s.apply(moves[-1])
        queries.append({"id": name, "game": name, "moves": moves, "turns": [0, 3],
                        "agent": "mcts sims=40"})
    queries.append({"id": 7, "game": "oware", "network": str(tiny_net), "sims": 30,
                    "moves": ["2", "3"]})
    # No agent: zero, with Oware's shipped network (models/).
    queries.append({"id": "z", "sims": 16, "moves": [2]})
    queries.append({"id": 8, "game": "oware", "rules": {"grand_slam": "capture_end"},
                    "agent": "mcts sims=30", "moves": [2]})
    bad = [("b1", {"id": "b1", "moves": [9]}, "moves"),
           ("b2", {"id": "b2", "game": "chess"}, "game"),
           ("b3", {"id": "b3", "rules": {"seeds": "many"}}, "rules"),
           ("b4", {"id": "b4", "turns": [5]}, "turns"),
           ("b5", {"id": "b5", "agent": "mcts sims=8", "colour": 1}, "colour"),
           ("b6", {"id": "b6", "rules": {"houses": 5}}, "network"),
           ("b7", {"id": "b7", "agent": "random"}, "agent"),
           (None, "{not json", None)]
    lines = [json.dumps(q) for q in queries] + \
        [q if isinstance(q, str) else json.dumps(q) for _, q, _ in bad]
    r = subprocess.run([sowzero_bin, "analysis", "--threads", "2"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=True, timeout=120)
    answers = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(answers) == len(lines)
    for a in answers:
        validate(a, schema)
    by_id = {a["id"]: a for a in answers}
    for q in queries:
        a = by_id[q["id"]]
        assert "error" not in a, a
        assert [t["turn"] for t in a["turns"]] == q.get("turns", [len(q["moves"])])
        for t in a["turns"]:
            assert sum(m["visits"] for m in t["moves"]) == t["visits"] > 0
            assert t["best"] in [m["move"] for m in t["moves"]]
    assert by_id[7]["turns"][0]["margin"] is not None
    assert by_id["z"]["agent"] == "zero sims=16" and by_id["z"]["turns"][0]["margin"] is not None
    assert "grand_slam=capture_end" in by_id[8]["rules"]
    for id_, _, field in bad:
        assert "error" in by_id[id_] and by_id[id_]["field"] == field, by_id[id_]


def test_egdb_probe_equals_sowzero_engine(sowzero_bin, tmp_path):
    db = tmp_path / "egdb"
    subprocess.run([sowzero_bin, "egdb", "build", "--seeds", "5", "--dir", str(db), "--threads", "1"],
                   check=True, capture_output=True)
    e = sowzero.Egdb(db)
    assert e.max_seeds == 5
    g = sowzero.Game("oware")
    tokens = "0 1 0 2 0 0 0 0 1 0 0 1 0 20 23"
    s = g.state_from_board(tokens.split())
    value, moves = e.probe(s)
    answer = engine_egdb(sowzero_bin, db, tokens)
    assert answer[0] == str(value)
    assert {int(t.split(":")[0]): int(t.split(":")[1]) for t in answer[1:]} == moves
    assert e.probe(g.new_initial_state()) is None  # 48 seeds: outside it
    with pytest.raises(sowzero.Error):
        sowzero.Egdb(tmp_path / "nothing")


def engine_egdb(sowzero_bin, db, tokens):
    r = subprocess.run([sowzero_bin, "engine", "--egdb", str(db)],
                       input=f"setboard {tokens}\negdb\nquit\n", capture_output=True, text=True,
                       check=True)
    blocks = [b for b in r.stdout.split("\n\n") if b.strip()]
    return blocks[1].lstrip("= ").split()
