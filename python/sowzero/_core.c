/* sowzero._core: the C library seen from Python (CPython's C API).
 *
 * Types: Game (a configured game), State (a position with its repetition
 * history), Agent (a spec string's agent), Network (a weight file and a
 * workspace), Egdb (an opened endgame database); functions: encode (a batch
 * of states into caller-made buffers), arena (a match as a dict), rules.
 * numpy stays in the Python layer: buffers come in through the buffer
 * protocol, so these files need only Python.h. This file: games, states,
 * the encoding, the rules and the module; _agents.c: agents, networks, the
 * endgame database and the arena.
 *
 * Every C failure becomes sowzero.Error with the library's message. Calls
 * that run long (search, forward passes, matches) release the GIL; an
 * Agent or Network used by two threads at once refuses the second. */
#include "python/sowzero/_core.h"

PyObject *sz_error;
PyTypeObject *sz_game_class = &sz_game_type;

PyObject *sz_fail(const char *msg) {
  PyErr_SetString(sz_error, msg);
  return NULL;
}

/* ---- Game ---------------------------------------------------------------------- */

/* Game(name, settings): settings a sequence of "key=value" strings. */
static int Game_init(GameObject *self, PyObject *args, PyObject *kw) {
  const char *name;
  PyObject *settings = NULL;
  static char *kwlist[] = {"name", "settings", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O", kwlist, &name, &settings)) return -1;
  char *set[GAME_MAX_OPTIONS * 2];
  int n = 0;
  PyObject *seq = settings ? PySequence_Fast(settings, "settings must be a sequence") : NULL;
  if (settings && !seq) return -1;
  Py_ssize_t len = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
  if (len > GAME_MAX_OPTIONS * 2) {
    Py_XDECREF(seq);
    PyErr_SetString(sz_error, "too many rule settings");
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    const char *s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    if (!s) {
      Py_DECREF(seq);
      return -1;
    }
    set[n++] = (char *)s;
  }
  char err[512];
  int rc = game_configure(&self->g, name, n, set, err, sizeof err);
  Py_XDECREF(seq);
  if (rc) {
    PyErr_SetString(sz_error, err);
    return -1;
  }
  return 0;
}

static PyObject *Game_get(GameObject *self, void *what) {
  const game *g = &self->g;
  const char *w = what;
  if (!strcmp(w, "name")) return PyUnicode_FromString(g->rules->name);
  if (!strcmp(w, "preset")) return PyUnicode_FromString(g->preset);
  if (!strcmp(w, "num_actions")) return PyLong_FromLong(g->n_actions);
  if (!strcmp(w, "num_features")) return PyLong_FromLong(g->n_features);
  if (!strcmp(w, "num_pits")) return PyLong_FromLong(g->n_pits);
  char buf[1024];
  game_options_string(g, buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

static PyGetSetDef Game_getset[] = {
    {"name", (getter)Game_get, NULL, "the game's name", "name"},
    {"preset", (getter)Game_get, NULL, "the preset or game name it came from", "preset"},
    {"num_actions", (getter)Game_get, NULL, "size of the action space", "num_actions"},
    {"num_features", (getter)Game_get, NULL, "length of the network encoding", "num_features"},
    {"num_pits", (getter)Game_get, NULL, "pits on the board", "num_pits"},
    {"options", (getter)Game_get, NULL, "every option as 'key=value ...'", "options"},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- State ----------------------------------------------------------------------- */

static StateObject *state_new(GameObject *g) {
  StateObject *s = PyObject_New(StateObject, &sz_state_type);
  if (!s) return NULL;
  s->hist = PyMem_Malloc(sizeof *s->hist);
  if (!s->hist) {
    s->game = NULL;
    Py_DECREF(s);
    return (StateObject *)PyErr_NoMemory();
  }
  Py_INCREF(g);
  s->game = g;
  return s;
}

static void State_dealloc(StateObject *s) {
  PyMem_Free(s->hist);
  Py_XDECREF(s->game);
  PyObject_Free(s);
}

static PyObject *Game_new_initial_state(GameObject *self, PyObject *noargs) {
  (void)noargs;
  StateObject *s = state_new(self);
  if (!s) return NULL;
  game_start(&self->g, &s->pos);
  game_hist_reset(s->hist, &s->pos);
  return (PyObject *)s;
}

/* A state from the game's board tokens (as `setboard` takes them), with the
 * move counters the encoding reads. */
static PyObject *Game_state_from_board(GameObject *self, PyObject *args, PyObject *kw) {
  PyObject *tokens;
  int ply = 0, nocap = 0;
  static char *kwlist[] = {"tokens", "ply", "nocap", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ii", kwlist, &tokens, &ply, &nocap)) return NULL;
  PyObject *seq = PySequence_Fast(tokens, "tokens must be a sequence of strings");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  char *argv[GAME_MAX_PITS * 3 + 8];
  if (n > (Py_ssize_t)(sizeof argv / sizeof *argv)) {
    Py_DECREF(seq);
    return sz_fail("too many board tokens");
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    const char *t = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    if (!t) {
      Py_DECREF(seq);
      return NULL;
    }
    argv[i] = (char *)t;
  }
  StateObject *s = state_new(self);
  char err[512];
  if (s && self->g.rules->setboard(&self->g, &s->pos, (int)n, argv, err, sizeof err)) {
    Py_DECREF(s);
    s = (StateObject *)sz_fail(err);
  }
  Py_DECREF(seq);
  if (!s) return NULL;
  if (ply < 0 || ply > 65535 || nocap < 0 || nocap > 65535) {
    Py_DECREF(s);
    return sz_fail("ply and nocap must be 0..65535");
  }
  s->pos.ply = (uint16_t)ply;
  s->pos.nocap = (uint16_t)nocap;
  game_hist_reset(s->hist, &s->pos);
  return (PyObject *)s;
}

static PyMethodDef Game_methods[] = {
    {"new_initial_state", (PyCFunction)Game_new_initial_state, METH_NOARGS, "the start position"},
    {"state_from_board", (PyCFunction)(void (*)(void))Game_state_from_board,
     METH_VARARGS | METH_KEYWORDS,
     "state_from_board(tokens, ply=0, nocap=0): a position from the game's board tokens"},
    {NULL, NULL, 0, NULL}};

static PyObject *State_legal_actions(StateObject *s, PyObject *noargs) {
  (void)noargs;
  game_moves m = game_legal(&s->game->g, &s->pos);
  PyObject *l = PyList_New(game_count(m));
  if (!l) return NULL;
  for (int i = 0; m; m &= m - 1, i++) PyList_SET_ITEM(l, i, PyLong_FromLong(__builtin_ctz(m)));
  return l;
}

static PyObject *State_legal_mask(StateObject *s, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromUnsignedLong(game_legal(&s->game->g, &s->pos));
}

/* The action of a Python int or a move name; -1 with the error set. */
static int action_of(StateObject *s, PyObject *a) {
  const game *g = &s->game->g;
  char err[256];
  int act;
  if (PyLong_Check(a)) {
    long v = PyLong_AsLong(a);
    if (v == -1 && PyErr_Occurred()) return -1;
    act = v >= 0 && v < g->n_actions ? (int)v : -1;
    if (act < 0) snprintf(err, sizeof err, "bad action %ld (0..%d)", v, g->n_actions - 1);
  } else {
    const char *t = PyUnicode_AsUTF8(a);
    if (!t) return -1;
    act = game_parse_action(g, t, err, sizeof err);
  }
  if (act < 0) {
    PyErr_SetString(sz_error, err);
    return -1;
  }
  if (!(game_legal(g, &s->pos) >> act & 1)) {
    snprintf(err, sizeof err, "illegal move %d%s", act,
             s->pos.status != GAME_ONGOING ? ": the game is over" : "");
    PyErr_SetString(sz_error, err);
    return -1;
  }
  return act;
}

static PyObject *State_apply(StateObject *s, PyObject *a) {
  int act = action_of(s, a);
  if (act < 0) return NULL;
  game_step(&s->game->g, &s->pos, s->hist, act);
  Py_RETURN_NONE;
}

static PyObject *State_clone(StateObject *s, PyObject *noargs) {
  (void)noargs;
  StateObject *c = state_new(s->game);
  if (!c) return NULL;
  c->pos = s->pos;
  game_hist_copy(c->hist, s->hist);
  return (PyObject *)c;
}

static PyObject *State_is_terminal(StateObject *s, PyObject *noargs) {
  (void)noargs;
  return PyBool_FromLong(s->pos.status != GAME_ONGOING);
}

static PyObject *State_current_player(StateObject *s, PyObject *noargs) {
  (void)noargs;
  return PyLong_FromLong(s->pos.mover);
}

/* [+1/0/-1 for South, for North] when over; [0, 0] before. */
static PyObject *State_returns(StateObject *s, PyObject *noargs) {
  (void)noargs;
  int over = s->pos.status != GAME_ONGOING;
  return Py_BuildValue("[dd]", over ? (double)game_outcome(&s->pos, 0) : 0.0,
                       over ? (double)game_outcome(&s->pos, 1) : 0.0);
}

static PyObject *State_move_label(StateObject *s, PyObject *a) {
  long v = PyLong_AsLong(a);
  if (v == -1 && PyErr_Occurred()) return NULL;
  char buf[64];
  if (v < 0 || v >= s->game->g.n_actions ||
      game_move_label(&s->game->g, s->pos.mover, (int)v, buf, sizeof buf))
    return sz_fail("bad action");
  return PyUnicode_FromString(buf);
}

static PyObject *State_board_tokens(StateObject *s, PyObject *noargs) {
  (void)noargs;
  char buf[1024];
  if (s->game->g.rules->board_tokens(&s->game->g, &s->pos, buf, sizeof buf) < 0)
    return sz_fail("board too large");
  return PyUnicode_FromFormat("%d %s", s->pos.mover, buf);
}

static PyObject *State_str(StateObject *s) {
  char buf[4096];
  game_render(&s->game->g, &s->pos, buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

static PyObject *State_get(StateObject *s, void *what) {
  const game_pos *p = &s->pos;
  const char *w = what;
  if (!strcmp(w, "pits")) {
    PyObject *t = PyTuple_New(s->game->g.n_pits);
    for (int i = 0; t && i < s->game->g.n_pits; i++)
      PyTuple_SET_ITEM(t, i, PyLong_FromLong(p->pits[i]));
    return t;
  }
  if (!strcmp(w, "stores")) return Py_BuildValue("(ii)", p->store[0], p->store[1]);
  if (!strcmp(w, "ply")) return PyLong_FromLong(p->ply);
  if (!strcmp(w, "nocap")) return PyLong_FromLong(p->nocap);
  if (!strcmp(w, "game")) {
    Py_INCREF(s->game);
    return (PyObject *)s->game;
  }
  if (p->status == GAME_ONGOING) Py_RETURN_NONE;
  if (!strcmp(w, "final_scores"))
    return Py_BuildValue("(dd)", p->final[0] + 0.5 * p->half, p->final[1] + 0.5 * p->half);
  if (!strcmp(w, "winner")) {
    if (p->winner == GAME_DRAW) Py_RETURN_NONE;
    return PyLong_FromLong(p->winner);
  }
  return PyUnicode_FromString(game_end_name(p->end_reason));
}

static PyGetSetDef State_getset[] = {
    {"pits", (getter)State_get, NULL, "seeds in each pit, absolute order", "pits"},
    {"stores", (getter)State_get, NULL, "seeds captured by South and North", "stores"},
    {"ply", (getter)State_get, NULL, "moves since the start", "ply"},
    {"nocap", (getter)State_get, NULL, "moves since the last capture", "nocap"},
    {"game", (getter)State_get, NULL, "the Game", "game"},
    {"final_scores", (getter)State_get, NULL, "final scores when over, else None", "final_scores"},
    {"winner", (getter)State_get, NULL, "0 or 1 when over and won, else None", "winner"},
    {"end_reason", (getter)State_get, NULL, "why the game ended, else None", "end_reason"},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef State_methods[] = {
    {"legal_actions", (PyCFunction)State_legal_actions, METH_NOARGS,
     "the legal actions (mover-relative numbers)"},
    {"legal_mask", (PyCFunction)State_legal_mask, METH_NOARGS, "the legal actions as a bitmask"},
    {"apply", (PyCFunction)State_apply, METH_O,
     "apply(action): plays an action (number or name), repetition rule included"},
    {"clone", (PyCFunction)State_clone, METH_NOARGS, "an independent copy"},
    {"is_terminal", (PyCFunction)State_is_terminal, METH_NOARGS, "whether the game is over"},
    {"current_player", (PyCFunction)State_current_player, METH_NOARGS, "0 South, 1 North"},
    {"returns", (PyCFunction)State_returns, METH_NOARGS, "[South, North]: +1 win, 0, -1 loss"},
    {"move_label", (PyCFunction)State_move_label, METH_O,
     "the board's name of an action for the side to move"},
    {"board_tokens", (PyCFunction)State_board_tokens, METH_NOARGS,
     "'MOVER BOARD...' as the protocol's setboard takes it"},
    {NULL, NULL, 0, NULL}};

/* The game_pos of a State of game g; NULL with the error set. */
const StateObject *sz_state_arg(PyObject *o, const game *g) {
  if (!PyObject_TypeCheck(o, &sz_state_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a sowzero State");
    return NULL;
  }
  const StateObject *s = (const StateObject *)o;
  if (g && (s->game->g.rules != g->rules || s->game->g.n_features != g->n_features)) {
    PyErr_SetString(sz_error, "the state belongs to another game");
    return NULL;
  }
  return s;
}

/* ---- Batched encoding -------------------------------------------------------------- */

/* encode(game, states, x, mask): x a writable float32 buffer of n x
 * num_features, mask a writable uint8 buffer of n x num_actions. */
static PyObject *py_encode(PyObject *mod, PyObject *args) {
  (void)mod;
  GameObject *g;
  PyObject *states;
  Py_buffer x, mask;
  if (!PyArg_ParseTuple(args, "O!Ow*w*", &sz_game_type, &g, &states, &x, &mask)) return NULL;
  PyObject *seq = PySequence_Fast(states, "states must be a sequence");
  PyObject *ret = NULL;
  Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
  int F = g->g.n_features, A = g->g.n_actions;
  if (!seq) goto done;
  if (x.len != n * F * (Py_ssize_t)sizeof(float) || mask.len != n * A) {
    PyErr_SetString(PyExc_ValueError, "buffers of the wrong size");
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    const StateObject *s = sz_state_arg(PySequence_Fast_GET_ITEM(seq, i), &g->g);
    if (!s) goto done;
    game_encode(&g->g, &s->pos, (float *)x.buf + i * F);
    game_moves m = game_legal(&g->g, &s->pos);
    for (int a = 0; a < A; a++) ((uint8_t *)mask.buf)[i * A + a] = m >> a & 1;
  }
  ret = Py_None;
  Py_INCREF(ret);
done:
  Py_XDECREF(seq);
  PyBuffer_Release(&x);
  PyBuffer_Release(&mask);
  return ret;
}

/* rules(): [(game, summary, [(option, values or (min, max), default, help)])],
 * and the presets [(name, game, settings)]. */
static PyObject *py_rules(PyObject *mod, PyObject *noargs) {
  (void)mod, (void)noargs;
  PyObject *games = PyList_New(0), *presets = PyList_New(0);
  for (int i = 0; games && game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    PyObject *opts = PyList_New(0);
    for (const game_option *o = r->options; opts && o->key; o++) {
      PyObject *vals;
      if (o->values) {
        vals = PyList_New(0);
        for (int k = 0; vals && o->values[k]; k++) {
          PyObject *s = PyUnicode_FromString(o->values[k]);
          PyList_Append(vals, s);
          Py_XDECREF(s);
        }
      } else {
        vals = Py_BuildValue("(ii)", o->min, o->max);
      }
      PyObject *e = Py_BuildValue("(sNis)", o->key, vals, o->def, o->help);
      if (!e || PyList_Append(opts, e)) Py_CLEAR(opts);
      Py_XDECREF(e);
    }
    PyObject *e = opts ? Py_BuildValue("(ssN)", r->name, r->summary, opts) : NULL;
    if (!e || PyList_Append(games, e)) Py_CLEAR(games);
    Py_XDECREF(e);
  }
  const char *gname, *settings, *name;
  for (int i = 0; presets && (name = game_preset_at(i, &gname, &settings)); i++) {
    PyObject *e = Py_BuildValue("(sss)", name, gname, settings ? settings : "");
    if (!e || PyList_Append(presets, e)) Py_CLEAR(presets);
    Py_XDECREF(e);
  }
  if (!games || !presets) {
    Py_XDECREF(games);
    Py_XDECREF(presets);
    return NULL;
  }
  return Py_BuildValue("(NN)", games, presets);
}

/* ---- Module --------------------------------------------------------------------------------- */

PyTypeObject sz_game_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sowzero._core.Game",
    .tp_basicsize = sizeof(GameObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Game(name, settings=()): a game or preset with 'key=value' rule settings",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Game_init,
    .tp_methods = Game_methods,
    .tp_getset = Game_getset};

PyTypeObject sz_state_type = {PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sowzero._core.State",
                              .tp_basicsize = sizeof(StateObject),
                              .tp_dealloc = (destructor)State_dealloc,
                              .tp_flags = Py_TPFLAGS_DEFAULT,
                              .tp_doc = "a position and its repetition history",
                              .tp_str = (reprfunc)State_str,
                              .tp_methods = State_methods,
                              .tp_getset = State_getset};

static PyMethodDef module_methods[] = {
    {"set_game_class", sz_set_game_class, METH_O, "the class of the games Network makes"},
    {"encode", py_encode, METH_VARARGS, "encode(game, states, x, mask): fills the buffers"},
    {"arena", (PyCFunction)(void (*)(void))sz_arena, METH_VARARGS | METH_KEYWORDS,
     "arena(game, specs, games=2, threads=1, openings=0, seed=1, anchor=0): a match"},
    {"rules", py_rules, METH_NOARGS, "the games with their options, and the presets"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_core",
                                    "SowZero's C library (docs/PYTHON.md)",
                                    -1,
                                    module_methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__core(void) {
  PyTypeObject *types[] = {&sz_game_type, &sz_state_type, &sz_agent_type, &sz_network_type,
                           &sz_egdb_type};
  const char *names[] = {"Game", "State", "Agent", "Network", "Egdb"};
  for (int i = 0; i < 5; i++)
    if (PyType_Ready(types[i]) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  sz_error = PyErr_NewExceptionWithDoc("sowzero.Error",
                                       "a failure of SowZero's C library, with its message",
                                       PyExc_ValueError, NULL);
  if (!sz_error || PyModule_AddObject(m, "Error", Py_NewRef(sz_error))) return NULL;
  for (int i = 0; i < 5; i++)
    if (PyModule_AddObject(m, names[i], Py_NewRef((PyObject *)types[i]))) return NULL;
  return m;
}
