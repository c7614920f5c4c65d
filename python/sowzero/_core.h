/* What the two files of sowzero._core share (python/sowzero/): the Game
 * and State objects, the error, the type objects and the functions of
 * _agents.c that the module's table names. */
#ifndef SOWZERO_PY_CORE_H
#define SOWZERO_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "game/game.h"

typedef struct {
  PyObject_HEAD game g;
} GameObject;

/* A position with its repetition history (owned, 16 KiB). */
typedef struct {
  PyObject_HEAD GameObject *game;
  game_pos pos;
  game_hist *hist;
} StateObject;

extern PyObject *sz_error; /* sowzero.Error, a ValueError */
extern PyTypeObject sz_game_type, sz_state_type, sz_agent_type, sz_network_type, sz_egdb_type;
/* The class of the games Network makes: sowzero.Game once the package set it. */
extern PyTypeObject *sz_game_class;

/* Raises sowzero.Error with msg; returns NULL. */
PyObject *sz_fail(const char *msg);
/* The State o, of game g (NULL: any game); NULL with the error set. */
const StateObject *sz_state_arg(PyObject *o, const game *g);

/* _agents.c: arena(...) and set_game_class(cls). */
PyObject *sz_arena(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *sz_set_game_class(PyObject *mod, PyObject *cls);

#endif
