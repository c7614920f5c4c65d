/* sowzero._core's agents, networks, endgame database and arena (the
 * module's other half: _core.c). */
#include "arena/arena.h"
#include "egdb/egdb.h"
#include "nn/nn.h"
#include "python/sowzero/_core.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"

/* ---- Agent ---------------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD GameObject *game;
  agent *a;
  int busy;
} AgentObject;

static int Agent_init(AgentObject *self, PyObject *args, PyObject *kw) {
  GameObject *g;
  const char *spec;
  unsigned long long seed = 1;
  static char *kwlist[] = {"game", "spec", "seed", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!s|K", kwlist, &sz_game_type, &g, &spec, &seed))
    return -1;
  char err[512];
  agent *a;
  Py_BEGIN_ALLOW_THREADS a = agent_create(&g->g, spec, seed, err, sizeof err);
  Py_END_ALLOW_THREADS if (!a) {
    PyErr_SetString(sz_error, err);
    return -1;
  }
  agent_free(self->a);
  Py_XDECREF(self->game);
  Py_INCREF(g);
  self->game = g;
  self->a = a;
  return 0;
}

static void Agent_dealloc(AgentObject *self) {
  agent_free(self->a);
  Py_XDECREF(self->game);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The agent, marked busy; NULL with the error set. */
static agent *agent_take(AgentObject *self) {
  if (!self->a) return (agent *)sz_fail("the agent was not made");
  if (self->busy) return (agent *)sz_fail("the agent is in use by another thread");
  self->busy = 1;
  return self->a;
}

static PyObject *Agent_choose(AgentObject *self, PyObject *st) {
  const StateObject *s = sz_state_arg(st, self->a ? &self->game->g : NULL);
  agent *a = s ? agent_take(self) : NULL;
  if (!a) return NULL;
  int act;
  Py_BEGIN_ALLOW_THREADS act = agent_choose(a, &s->pos, s->hist);
  Py_END_ALLOW_THREADS self->busy = 0;
  if (act < 0) return sz_fail(agent_error(a));
  return PyLong_FromLong(act);
}

static PyObject *Agent_analyze(AgentObject *self, PyObject *st) {
  const StateObject *s = sz_state_arg(st, self->a ? &self->game->g : NULL);
  agent *a = s ? agent_take(self) : NULL;
  if (!a) return NULL;
  agent_analysis an;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = agent_analyze(a, &s->pos, s->hist, &an);
  Py_END_ALLOW_THREADS self->busy = 0;
  if (rc) return sz_fail(agent_error(a));
  PyObject *moves = PyList_New(an.n);
  if (!moves) return NULL;
  for (int i = 0; i < an.n; i++) {
    PyObject *pv = PyList_New(an.pv_len[i]);
    for (int k = 0; pv && k < an.pv_len[i]; k++)
      PyList_SET_ITEM(pv, k, PyLong_FromLong(an.pv[i][k]));
    PyObject *margin = an.has_margin ? PyFloat_FromDouble(an.move_margin[i]) : Py_NewRef(Py_None);
    PyObject *d = pv ? Py_BuildValue("{s:i,s:i,s:d,s:d,s:N,s:N}", "action", an.action[i], "visits",
                                     an.visits[i], "prior", (double)an.prior[i], "value",
                                     (double)an.value[i], "margin", margin, "pv", pv)
                     : NULL;
    if (!d) {
      Py_DECREF(moves);
      return NULL;
    }
    PyList_SET_ITEM(moves, i, d);
  }
  PyObject *margin = an.has_margin ? PyFloat_FromDouble(an.margin) : Py_NewRef(Py_None);
  return Py_BuildValue("{s:i,s:d,s:N,s:N}", "best", an.best, "value", (double)an.root_value,
                       "margin", margin, "moves", moves);
}

static PyObject *Agent_reset(AgentObject *self, PyObject *noargs) {
  (void)noargs;
  agent *a = agent_take(self);
  if (!a) return NULL;
  agent_reset(a);
  self->busy = 0;
  Py_RETURN_NONE;
}

static PyObject *Agent_get_spec(AgentObject *self, void *closure) {
  (void)closure;
  return self->a ? PyUnicode_FromString(agent_spec(self->a)) : sz_fail("the agent was not made");
}

static PyMethodDef Agent_methods[] = {
    {"choose", (PyCFunction)Agent_choose, METH_O, "choose(state): the action the agent plays"},
    {"analyze", (PyCFunction)Agent_analyze, METH_O,
     "analyze(state): the agent's view of each legal move, as a dict"},
    {"reset", (PyCFunction)Agent_reset, METH_NOARGS, "a new game starts (drops search trees)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Agent_getset[] = {
    {"spec", (getter)Agent_get_spec, NULL, "the spec it was made from", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- Network ---------------------------------------------------------------------------- */

#define NET_BATCH 256

typedef struct {
  PyObject_HEAD nn_net *net;
  nn_ws *ws;
  GameObject *game; /* configured from the file: its game, rules and rule inputs */
  int busy;
} NetworkObject;

static int Network_init(NetworkObject *self, PyObject *args, PyObject *kw) {
  const char *path, *precision = "fp32";
  static char *kwlist[] = {"path", "precision", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s", kwlist, &path, &precision)) return -1;
  int prec = -1;
  for (int i = NN_PRECISION_AUTO; i <= NN_PRECISION_INT8; i++)
    if (!strcmp(precision, nn_precision_name((nn_precision)i))) prec = i;
  if (prec < 0) {
    PyErr_SetString(sz_error, "precision must be auto, fp32, bf16 or int8");
    return -1;
  }
  char err[1024];
  nn_meta meta;
  nn_net *probe = nn_load(path, NULL, &meta, err, sizeof err);
  if (!probe) {
    PyErr_SetString(sz_error, err);
    return -1;
  }
  nn_free(probe);
  /* The file's game with the rules of its first variant ("a | b": a). */
  char rules[NN_RULES_MAX], *set[GAME_MAX_OPTIONS * 2];
  int n = 0;
  snprintf(rules, sizeof rules, "%s", meta.rules);
  rules[strcspn(rules, "|")] = 0;
  char *save = NULL;
  for (char *t = strtok_r(rules, " ", &save); t && n < GAME_MAX_OPTIONS * 2;
       t = strtok_r(NULL, " ", &save))
    set[n++] = t;
  GameObject *g = (GameObject *)sz_game_class->tp_alloc(sz_game_class, 0);
  if (!g) return -1;
  if (game_configure(&g->g, meta.game, n, set, err, sizeof err) ||
      !(self->net = mcts_nn_load(&g->g, path, MCTS_NN_OWN_RULES, err, sizeof err)) ||
      nn_set_precision(self->net, (nn_precision)prec, err, sizeof err) ||
      !(self->ws = nn_ws_create(self->net, NET_BATCH, err, sizeof err))) {
    Py_DECREF(g);
    PyErr_SetString(sz_error, err);
    return -1;
  }
  self->game = g;
  return 0;
}

static void Network_dealloc(NetworkObject *self) {
  nn_ws_free(self->ws);
  nn_free(self->net);
  Py_XDECREF(self->game);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* evaluate(x, mask, policy, value, score): x float32 n x F, mask uint8 n x A
 * (nonzero: legal), outputs float32 n x A, n, n; all C-contiguous. */
static PyObject *Network_evaluate(NetworkObject *self, PyObject *args) {
  Py_buffer x, mask, pol, val, sc;
  if (!self->net) return sz_fail("the network was not loaded");
  if (!PyArg_ParseTuple(args, "y*y*w*w*w*", &x, &mask, &pol, &val, &sc)) return NULL;
  int F = self->game->g.n_features, A = self->game->g.n_actions, rc = 0;
  Py_ssize_t n = x.len / (Py_ssize_t)(F * sizeof(float));
  PyObject *ret = NULL;
  if (x.len != n * F * (Py_ssize_t)sizeof(float) || mask.len != n * A ||
      pol.len != n * A * (Py_ssize_t)sizeof(float) || val.len != n * (Py_ssize_t)sizeof(float) ||
      sc.len != n * (Py_ssize_t)sizeof(float)) {
    PyErr_SetString(PyExc_ValueError, "buffers of the wrong size");
    goto done;
  }
  if (self->busy) {
    PyErr_SetString(sz_error, "the network is in use by another thread");
    goto done;
  }
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS uint32_t legal[NET_BATCH];
  for (Py_ssize_t b = 0; b < n && rc == 0; b += NET_BATCH) {
    int k = n - b < NET_BATCH ? (int)(n - b) : NET_BATCH;
    for (int i = 0; i < k; i++) {
      legal[i] = 0;
      for (int a = 0; a < A; a++)
        if (((const uint8_t *)mask.buf)[(b + i) * A + a]) legal[i] |= 1u << a;
    }
    rc = nn_forward(self->net, self->ws, (const float *)x.buf + b * F, legal, k,
                    (float *)pol.buf + b * A, (float *)val.buf + b, (float *)sc.buf + b);
  }
  Py_END_ALLOW_THREADS self->busy = 0;
  if (rc)
    PyErr_SetString(sz_error, "the forward pass failed");
  else
    ret = Py_NewRef(Py_None);
done:
  PyBuffer_Release(&x);
  PyBuffer_Release(&mask);
  PyBuffer_Release(&pol);
  PyBuffer_Release(&val);
  PyBuffer_Release(&sc);
  return ret;
}

static PyObject *Network_get_game(NetworkObject *self, void *closure) {
  (void)closure;
  if (!self->game) return sz_fail("the network was not loaded");
  return Py_NewRef((PyObject *)self->game);
}

static PyMethodDef Network_methods[] = {
    {"_evaluate", (PyCFunction)Network_evaluate, METH_VARARGS,
     "_evaluate(x, mask, policy, value, score): fills the output buffers"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Network_getset[] = {
    {"game", (getter)Network_get_game, NULL, "the Game the network was trained for", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- Egdb --------------------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD egdb *db;
} EgdbObject;

static int Egdb_init(EgdbObject *self, PyObject *args, PyObject *kw) {
  const char *dir;
  static char *kwlist[] = {"dir", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s", kwlist, &dir)) return -1;
  char err[1024];
  egdb *db;
  Py_BEGIN_ALLOW_THREADS db = egdb_open(dir, err, sizeof err);
  Py_END_ALLOW_THREADS if (!db) {
    PyErr_SetString(sz_error, err);
    return -1;
  }
  egdb_close(self->db);
  self->db = db;
  return 0;
}

static void Egdb_dealloc(EgdbObject *self) {
  egdb_close(self->db);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* probe(state): (value, {action: value}) for the mover, or None outside it. */
static PyObject *Egdb_probe(EgdbObject *self, PyObject *st) {
  const StateObject *s = sz_state_arg(st, NULL);
  if (!s) return NULL;
  if (!self->db) return sz_fail("the database was not opened");
  int v = egdb_probe(self->db, &s->game->g, &s->pos), vals[GAME_MAX_ACTIONS];
  if (v == EGDB_NONE) Py_RETURN_NONE;
  PyObject *d = PyDict_New();
  for (game_moves m = egdb_probe_moves(self->db, &s->game->g, &s->pos, vals); d && m; m &= m - 1) {
    PyObject *k = PyLong_FromLong(__builtin_ctz(m)), *x = PyLong_FromLong(vals[__builtin_ctz(m)]);
    if (!k || !x || PyDict_SetItem(d, k, x)) Py_CLEAR(d);
    Py_XDECREF(k);
    Py_XDECREF(x);
  }
  return d ? Py_BuildValue("(iN)", v, d) : NULL;
}

static PyObject *Egdb_get_max_seeds(EgdbObject *self, void *closure) {
  (void)closure;
  return self->db ? PyLong_FromLong(egdb_max_seeds(self->db)) : sz_fail("not opened");
}

static PyMethodDef Egdb_methods[] = {
    {"probe", (PyCFunction)Egdb_probe, METH_O,
     "probe(state): (value, {action: value}) for the mover, or None"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Egdb_getset[] = {
    {"max_seeds", (getter)Egdb_get_max_seeds, NULL, "the most seeds it holds", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- Arena ----------------------------------------------------------------------------------- */

/* arena(game, specs, games=2, threads=1, openings=0, seed=1, anchor=0): a
 * match as a dict of the result table. */
PyObject *sz_arena(PyObject *mod, PyObject *args, PyObject *kw) {
  (void)mod;
  GameObject *g;
  PyObject *specs;
  arena_params p = arena_defaults();
  unsigned long long seed = p.seed;
  static char *kwlist[] = {"game", "specs", "games", "threads", "openings", "seed", "anchor", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O|iiiKi", kwlist, &sz_game_type, &g, &specs,
                                   &p.games, &p.threads, &p.openings, &seed, &p.anchor))
    return NULL;
  p.seed = seed;
  PyObject *seq = PySequence_Fast(specs, "specs must be a sequence of spec strings");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char *sp[ARENA_MAX_AGENTS];
  if (n < 2 || n > ARENA_MAX_AGENTS) {
    Py_DECREF(seq);
    return sz_fail("an arena needs 2 or more agents");
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(sp[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)))) {
      Py_DECREF(seq);
      return NULL;
    }
  arena_result *r = PyMem_Malloc(sizeof *r);
  char err[1024];
  int rc = -1;
  if (r) {
    Py_BEGIN_ALLOW_THREADS rc = arena_run(&g->g, (int)n, sp, &p, NULL, NULL, r, err, sizeof err);
    Py_END_ALLOW_THREADS
  }
  Py_DECREF(seq);
  if (!r) return PyErr_NoMemory();
  if (rc) {
    PyMem_Free(r);
    return sz_fail(err);
  }
  PyObject *agents = PyList_New(r->n_agents), *pairs = PyList_New(r->n_pairings);
  for (int i = 0; agents && i < r->n_agents; i++)
    PyList_SET_ITEM(agents, i,
                    Py_BuildValue("{s:s,s:d,s:d}", "spec", r->specs[i], "elo", r->elo[i], "elo_se",
                                  r->elo_se[i]));
  for (int i = 0; pairs && i < r->n_pairings; i++) {
    const arena_pairing *q = &r->pairings[i];
    PyList_SET_ITEM(
        pairs, i,
        Py_BuildValue("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "a", q->a, "b", q->b, "wins", q->wins,
                      "draws", q->draws, "losses", q->losses, "a_south_wins", q->a_south_wins,
                      "a_south_draws", q->a_south_draws, "a_south_losses", q->a_south_losses));
  }
  PyObject *d =
      agents && pairs
          ? Py_BuildValue("{s:N,s:N,s:i,s:i,s:i,s:i,s:i,s:i,s:d}", "agents", agents, "pairings",
                          pairs, "anchor", r->anchor, "games", r->games, "distinct_games",
                          r->distinct_games, "south_wins", r->south_wins, "draws", r->draws,
                          "north_wins", r->north_wins, "seconds", r->seconds)
          : NULL;
  PyMem_Free(r);
  return d;
}

PyObject *sz_set_game_class(PyObject *mod, PyObject *cls) {
  (void)mod;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &sz_game_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a subclass of Game");
    return NULL;
  }
  Py_INCREF(cls);
  sz_game_class = (PyTypeObject *)cls;
  Py_RETURN_NONE;
}

PyTypeObject sz_agent_type = {PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sowzero._core.Agent",
                              .tp_basicsize = sizeof(AgentObject),
                              .tp_dealloc = (destructor)Agent_dealloc,
                              .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                              .tp_doc = "Agent(game, spec, seed=1): an agent from a spec string",
                              .tp_new = PyType_GenericNew,
                              .tp_init = (initproc)Agent_init,
                              .tp_methods = Agent_methods,
                              .tp_getset = Agent_getset};

PyTypeObject sz_network_type = {PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sowzero._core.Network",
                                .tp_basicsize = sizeof(NetworkObject),
                                .tp_dealloc = (destructor)Network_dealloc,
                                .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                .tp_doc = "Network(path): a weight file, ready to evaluate",
                                .tp_new = PyType_GenericNew,
                                .tp_init = (initproc)Network_init,
                                .tp_methods = Network_methods,
                                .tp_getset = Network_getset};

PyTypeObject sz_egdb_type = {PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sowzero._core.Egdb",
                             .tp_basicsize = sizeof(EgdbObject),
                             .tp_dealloc = (destructor)Egdb_dealloc,
                             .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                             .tp_doc = "Egdb(dir): the Oware endgame database of a folder",
                             .tp_new = PyType_GenericNew,
                             .tp_init = (initproc)Egdb_init,
                             .tp_methods = Egdb_methods,
                             .tp_getset = Egdb_getset};
