/* The JSON analysis engine: a query in, the agent's view of each asked
 * turn out (docs/ANALYSIS.md). */
#include "protocol/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "search/agent.h"

#define MAX_MOVES GAME_MAX_PLIES_CAP

/* What a query asks, read from its JSON. */
typedef struct {
  json_doc *doc;
  int id; /* the id's value in doc, or -1: none usable */
  game g;
  game_pos start;
  int n_moves;
  uint8_t moves[MAX_MOVES];
  int n_turns;
  int turns[MAX_MOVES + 1];
  char spec[512];
  uint64_t seed;
  int egdb;                /* 1: give the database's values */
  const char *agent_field; /* the field an agent's error names */
} query;

/* The query's id as its answer carries it: the string or number, or null. */
static void put_id(json_writer *w, const query *q) {
  if (q->id < 0)
    json_put_null(w, "id");
  else if (json_type_of(q->doc, q->id) == JSON_STRING)
    json_put_string(w, "id", json_string(q->doc, q->id));
  else
    json_put_real(w, "id", json_number(q->doc, q->id), 17);
}

/* The error answer: the query's id, the message and the field at fault. */
static void error_answer(json_writer *w, const query *q, const char *field, const char *msg) {
  json_begin_object(w, NULL);
  put_id(w, q);
  json_put_string(w, "error", msg);
  if (field)
    json_put_string(w, "field", field);
  else
    json_put_null(w, "field");
  json_end_object(w);
}

/* A member that must be a whole number in lo..hi; 1 when absent. */
static int get_int(const json_doc *d, const char *key, double lo, double hi, double *out, char *err,
                   size_t errlen) {
  int v = json_get(d, 0, key);
  if (v < 0) return 1;
  double x = json_number(d, v);
  if (json_type_of(d, v) != JSON_NUMBER || x != floor(x) || x < lo || x > hi) {
    errf(err, errlen, "%s must be a whole number from %.0f to %.0f", key, lo, hi);
    return -1;
  }
  *out = x;
  return 0;
}

/* The rules: an object of option values, or a string "key=value ...". */
static int read_rules(query *q, const char *name, char *err, size_t errlen) {
  const json_doc *d = q->doc;
  int r = json_get(d, 0, "rules");
  char buf[1024], *set[GAME_MAX_OPTIONS * 2];
  int n = 0;
  size_t k = 0;
  if (r >= 0 && json_type_of(d, r) == JSON_STRING) {
    snprintf(buf, sizeof buf, "%s", json_string(d, r));
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
      if (n == GAME_MAX_OPTIONS * 2) {
        errf(err, errlen, "too many rule settings");
        return -1;
      }
      set[n++] = t;
    }
  } else if (r >= 0 && json_type_of(d, r) == JSON_OBJECT) {
    for (int c = json_first(d, r); c >= 0; c = json_next(d, c)) {
      char val[64];
      json_type ty = json_type_of(d, c);
      if (ty == JSON_STRING)
        snprintf(val, sizeof val, "%s", json_string(d, c));
      else if (ty == JSON_NUMBER && fabs(json_number(d, c)) < 1e9)
        snprintf(val, sizeof val, "%.15g", json_number(d, c));
      else {
        errf(err, errlen, "rule %s: a value must be a string or a number", json_key(d, c));
        return -1;
      }
      int w = snprintf(buf + k, sizeof buf - k, "%s=%s", json_key(d, c), val);
      if (w < 0 || (size_t)w >= sizeof buf - k || n == GAME_MAX_OPTIONS * 2) {
        errf(err, errlen, "too many rule settings");
        return -1;
      }
      set[n++] = buf + k;
      k += (size_t)w + 1;
    }
  } else if (r >= 0) {
    errf(err, errlen, "rules must be an object of option values or a string of key=value");
    return -1;
  }
  return game_configure(&q->g, name, n, set, err, errlen);
}

/* The start: the game's, or a position of setboard tokens. */
static int read_position(query *q, char *err, size_t errlen) {
  const json_doc *d = q->doc;
  int v = json_get(d, 0, "position");
  if (v < 0) {
    game_start(&q->g, &q->start);
    return 0;
  }
  char buf[1024], *argv[GAME_MAX_PITS * 3 + 8];
  int argc = 0;
  size_t k = 0;
  if (json_type_of(d, v) == JSON_STRING) {
    snprintf(buf, sizeof buf, "%s", json_string(d, v));
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t && argc < (int)(sizeof argv / sizeof *argv);
         t = strtok_r(NULL, " \t", &save))
      argv[argc++] = t;
  } else if (json_type_of(d, v) == JSON_ARRAY) {
    for (int c = json_first(d, v); c >= 0; c = json_next(d, c)) {
      int w = -1;
      if (json_type_of(d, c) == JSON_NUMBER && fabs(json_number(d, c)) < 1e9)
        w = snprintf(buf + k, sizeof buf - k, "%.15g", json_number(d, c));
      else if (json_type_of(d, c) == JSON_STRING)
        w = snprintf(buf + k, sizeof buf - k, "%s", json_string(d, c));
      if (w < 0 || (size_t)w >= sizeof buf - k || argc == (int)(sizeof argv / sizeof *argv)) {
        errf(err, errlen, "position: each token must be a number or a string, and few");
        return -1;
      }
      argv[argc++] = buf + k;
      k += (size_t)w + 1;
    }
  } else {
    errf(err, errlen, "position must be a string or an array of the game's board tokens");
    return -1;
  }
  return q->g.rules->setboard(&q->g, &q->start, argc, argv, err, errlen);
}

static int read_move(query *q, const json_doc *d, int c, game_pos *p, game_hist *h, char *err,
                     size_t errlen);

/* The moves, checked by playing them; the positions are replayed later. */
static int read_moves(query *q, char *err, size_t errlen) {
  const json_doc *d = q->doc;
  int v = json_get(d, 0, "moves");
  if (v < 0) return 0;
  if (json_type_of(d, v) != JSON_ARRAY) {
    errf(err, errlen, "moves must be an array of moves (numbers or names)");
    return -1;
  }
  /* Played as analyse will play them, the repetition rule included. */
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  game_pos p = q->start;
  game_hist_reset(h, &p);
  int rc = 0;
  for (int c = json_first(d, v); c >= 0 && rc == 0; c = json_next(d, c)) {
    rc = read_move(q, d, c, &p, h, err, errlen);
  }
  free(h);
  return rc;
}

/* Move c of the list: checked, played on p, recorded. */
/* Move c of the list: checked, played on p with its history, recorded. */
static int read_move(query *q, const json_doc *d, int c, game_pos *p, game_hist *h, char *err,
                     size_t errlen) {
  char t[64], e[200];
  int i = q->n_moves + 1;
  if (json_type_of(d, c) == JSON_NUMBER && fabs(json_number(d, c)) < 1e9)
    snprintf(t, sizeof t, "%.15g", json_number(d, c));
  else if (json_type_of(d, c) == JSON_STRING)
    snprintf(t, sizeof t, "%s", json_string(d, c));
  else {
    errf(err, errlen, "move %d: a number or a name", i);
    return -1;
  }
  if (q->n_moves == MAX_MOVES) {
    errf(err, errlen, "more than %d moves", MAX_MOVES);
    return -1;
  }
  int a = game_parse_action(&q->g, t, e, sizeof e);
  if (a < 0) {
    errf(err, errlen, "move %d: %s", i, e);
    return -1;
  }
  if (!(game_legal(&q->g, p) >> a & 1)) {
    errf(err, errlen, "move %d: %s is illegal%s", i, t,
         p->status != GAME_ONGOING ? " (the game is over)" : "");
    return -1;
  }
  game_step(&q->g, p, h, a);
  q->moves[q->n_moves++] = (uint8_t)a;
  return 0;
}

static int read_turns(query *q, char *err, size_t errlen) {
  const json_doc *d = q->doc;
  int v = json_get(d, 0, "turns");
  if (v < 0) {
    q->turns[q->n_turns++] = q->n_moves;
    return 0;
  }
  if (json_type_of(d, v) != JSON_ARRAY || json_first(d, v) < 0) {
    errf(err, errlen, "turns must be a non-empty array of turn numbers (0 .. moves)");
    return -1;
  }
  for (int c = json_first(d, v); c >= 0; c = json_next(d, c)) {
    double x = json_number(d, c);
    if (json_type_of(d, c) != JSON_NUMBER || x != floor(x) || x < 0 || x > q->n_moves) {
      errf(err, errlen, "turn numbers are whole, from 0 to %d (the moves given)", q->n_moves);
      return -1;
    }
    if (q->n_turns == MAX_MOVES + 1) {
      errf(err, errlen, "more than %d turns", MAX_MOVES + 1);
      return -1;
    }
    q->turns[q->n_turns++] = (int)x;
  }
  return 0;
}

/* The agent: a spec, with sims, time and network added as settings. */
static int read_agent(query *q, const analysis_opts *o, const char **field, char *err,
                      size_t errlen) {
  const json_doc *d = q->doc;
  int v = json_get(d, 0, "agent");
  char spec[512];
  if (v >= 0 && json_type_of(d, v) != JSON_STRING) {
    errf(err, errlen, "agent must be a spec string such as \"zero weights=FILE sims=400\"");
    return -1;
  }
  size_t k = (size_t)snprintf(spec, sizeof spec, "%s", v >= 0 ? json_string(d, v) : "zero");
  double sims;
  int r = get_int(d, "sims", 1, 1e7, &sims, err, errlen);
  if (r < 0) return -1;
  *field = "time";
  if (r == 0 && k < sizeof spec)
    k += (size_t)snprintf(spec + k, sizeof spec - k, " sims=%.0f", sims);
  int t = json_get(d, 0, "time");
  if (t >= 0) {
    double x = json_number(d, t);
    if (json_type_of(d, t) != JSON_NUMBER || !(x > 0 && x <= 1e6)) {
      errf(err, errlen, "time must be a number of seconds above 0");
      return -1;
    }
    if (k < sizeof spec) k += (size_t)snprintf(spec + k, sizeof spec - k, " time=%g", x);
  }
  int w = json_get(d, 0, "network");
  *field = "network";
  if (w >= 0) {
    if (json_type_of(d, w) != JSON_STRING || !json_string(d, w)[0] ||
        strpbrk(json_string(d, w), " \t")) {
      errf(err, errlen, "network must be a weight file's path (without blanks)");
      return -1;
    }
    if (k < sizeof spec)
      k += (size_t)snprintf(spec + k, sizeof spec - k, " weights=%s", json_string(d, w));
  }
  if (k >= sizeof spec) {
    *field = "agent";
    errf(err, errlen, "agent spec too long (at most %zu characters with its settings)",
         sizeof spec - 1);
    return -1;
  }
  if (o->spec_filter)
    o->spec_filter(spec, q->spec, sizeof q->spec);
  else
    snprintf(q->spec, sizeof q->spec, "%s", spec);
  return 0;
}

/* Reads the whole query; on a fault, the field and the message. */
static int read_query(query *q, const analysis_opts *o, const char **field, char *err,
                      size_t errlen) {
  const json_doc *d = q->doc;
  *field = NULL;
  if (json_type_of(d, 0) != JSON_OBJECT) {
    errf(err, errlen, "a query is a JSON object");
    return -1;
  }
  static const char *const known[] = {"id",    "game", "rules", "position", "moves", "turns",
                                      "agent", "sims", "time",  "network",  "seed",  "egdb"};
  for (int c = json_first(d, 0); c >= 0; c = json_next(d, c)) {
    size_t i = 0;
    while (i < sizeof known / sizeof *known && strcmp(known[i], json_key(d, c))) i++;
    if (i == sizeof known / sizeof *known) {
      *field = json_key(d, c);
      errf(err, errlen,
           "unknown field (known: id game rules position moves turns agent sims "
           "time network seed egdb)");
      return -1;
    }
  }
  int v = json_get(d, 0, "id");
  if (v < 0 || (json_type_of(d, v) != JSON_STRING && json_type_of(d, v) != JSON_NUMBER)) {
    *field = "id";
    errf(err, errlen, "every query needs an id, a string or a number");
    return -1;
  }
  if (json_type_of(d, v) == JSON_NUMBER && !isfinite(json_number(d, v))) {
    *field = "id";
    errf(err, errlen, "id is a number too large to echo");
    return -1;
  }
  const char *name = "oware";
  if ((*field = "game", v = json_get(d, 0, "game")) >= 0) {
    if (json_type_of(d, v) != JSON_STRING) {
      errf(err, errlen, "game must be a game or preset name");
      return -1;
    }
    name = json_string(d, v);
  }
  if (game_configure(&q->g, name, 0, NULL, err, errlen)) return -1;
  if ((*field = "rules", read_rules(q, name, err, errlen))) return -1;
  if ((*field = "position", read_position(q, err, errlen))) return -1;
  if ((*field = "moves", read_moves(q, err, errlen))) return -1;
  if ((*field = "turns", read_turns(q, err, errlen))) return -1;
  double seed = 1;
  if ((*field = "seed", get_int(d, "seed", 0, 9007199254740991.0, &seed, err, errlen) < 0))
    return -1;
  q->seed = (uint64_t)seed;
  q->egdb = 1;
  if ((v = json_get(d, 0, "egdb")) >= 0) {
    *field = "egdb";
    if (json_type_of(d, v) != JSON_BOOL) {
      errf(err, errlen, "egdb must be true or false");
      return -1;
    }
    q->egdb = json_number(d, v) != 0;
  }
  /* Without an agent, the default's complaints (no weights) are the network's. */
  q->agent_field = json_get(d, 0, "agent") >= 0 ? "agent" : "network";
  *field = json_get(d, 0, "agent") >= 0 ? "agent" : "sims";
  if (read_agent(q, o, field, err, errlen)) return -1;
  return 0;
}

/* The board's label of action a for the mover of p. */
static void label(const game *g, const game_pos *p, int a, char *buf, size_t len) {
  if (game_move_label(g, p->mover, a, buf, len)) snprintf(buf, len, "%d", a);
}

/* The database's value v, or null (none, not asked, not in it). */
static void put_egdb(json_writer *w, const analysis_opts *o, const query *q, int v) {
  if (!o->egdb || !q->egdb || v == EGDB_NONE)
    json_put_null(w, "egdb");
  else
    json_put_int(w, "egdb", v);
}

/* A margin, or null when the agent predicts none. */
static void put_margin(json_writer *w, int has, float v) {
  if (has)
    json_put_fixed(w, "margin", v, 2);
  else
    json_put_null(w, "margin");
}

/* One turn's analysis: the position, the root's figures and every move. */
static int put_turn(json_writer *w, const analysis_opts *o, const query *q, agent *ag, int turn,
                    const game_pos *p, const game_hist *h, char *err, size_t errlen) {
  agent_analysis an;
  agent_reseed(ag, q->seed, (uint64_t)turn);
  agent_reset(ag);
  if (agent_analyze(ag, p, h, &an)) {
    errf(err, errlen, "turn %d: %s", turn, agent_error(ag));
    return -1;
  }
  int ev[GAME_MAX_ACTIONS], root_ev = EGDB_NONE;
  game_moves em = 0;
  if (o->egdb && q->egdb) {
    root_ev = egdb_probe(o->egdb, &q->g, p);
    if (root_ev != EGDB_NONE) em = egdb_probe_moves(o->egdb, &q->g, p, ev);
  }
  char lb[64];
  int total = 0;
  for (int i = 0; i < an.n; i++) total += an.visits[i];
  json_begin_object(w, NULL);
  json_put_int(w, "turn", turn);
  json_put_int(w, "mover", p->mover);
  json_put_int(w, "visits", total);
  json_put_fixed(w, "value", an.root_value, 4);
  put_margin(w, an.has_margin, an.margin);
  put_egdb(w, o, q, root_ev);
  label(&q->g, p, an.best, lb, sizeof lb);
  json_put_string(w, "best", lb);
  json_put_int(w, "best_action", an.best);
  json_begin_array(w, "moves");
  for (int i = 0; i < an.n; i++) {
    int a = an.action[i];
    json_begin_object(w, NULL);
    label(&q->g, p, a, lb, sizeof lb);
    json_put_string(w, "move", lb);
    json_put_int(w, "action", a);
    json_put_int(w, "visits", an.visits[i]);
    json_put_fixed(w, "prior", an.prior[i], 4);
    json_put_fixed(w, "value", an.value[i], 4);
    put_margin(w, an.has_margin, an.move_margin[i]);
    put_egdb(w, o, q, em >> a & 1 ? ev[a] : EGDB_NONE);
    /* The line in the game's notation, each move labelled for its mover;
     * a move the search never tried is its line alone. */
    json_begin_array(w, "pv");
    game_pos c = *p;
    int len = an.pv_len[i] ? an.pv_len[i] : 1;
    for (int k = 0; k < len && c.status == GAME_ONGOING; k++) {
      int b = an.pv_len[i] ? an.pv[i][k] : a;
      if (!(game_legal(&q->g, &c) >> b & 1)) break;
      label(&q->g, &c, b, lb, sizeof lb);
      json_put_string(w, NULL, lb);
      game_play(&q->g, &c, b);
    }
    json_end_array(w);
    json_end_object(w);
  }
  json_end_array(w);
  json_end_object(w);
  return 0;
}

/* Plays the moves in order and analyses each asked turn on the way. */
static int analyse(json_writer *w, const analysis_opts *o, query *q, const char **field, char *err,
                   size_t errlen) {
  *field = q->agent_field;
  agent *ag = agent_make(&q->g, q->spec, &(agent_params){q->seed, o->egdb_dir}, err, errlen);
  if (!ag) return -1;
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    agent_free(ag);
    errf(err, errlen, "out of memory");
    return -1;
  }
  char opts[512];
  game_options_string(&q->g, opts, sizeof opts);
  json_begin_object(w, NULL);
  put_id(w, q);
  json_put_string(w, "game", q->g.rules->name);
  json_put_string(w, "rules", opts);
  json_put_string(w, "agent", q->spec);
  json_begin_array(w, "turns");
  game_pos p = q->start;
  game_hist_reset(h, &p);
  int rc = 0;
  for (int m = 0; m <= q->n_moves && rc == 0; m++) {
    for (int i = 0; i < q->n_turns && rc == 0; i++) {
      if (q->turns[i] != m) continue;
      if (p.status != GAME_ONGOING) {
        *field = "turns";
        errf(err, errlen, "turn %d: the game is over", m);
        rc = -1;
        break;
      }
      rc = put_turn(w, o, q, ag, m, &p, h, err, errlen);
    }
    if (m < q->n_moves) game_step(&q->g, &p, h, q->moves[m]);
  }
  json_end_array(w);
  json_end_object(w);
  free(h);
  agent_free(ag);
  return rc;
}

/* The answer as a line: the writer's text into a growing buffer. */
typedef struct {
  FILE *f;
  char *buf;
  size_t size;
  json_writer w;
} answer;

static int answer_open(answer *a) {
  a->buf = NULL;
  a->size = 0;
  a->f = open_memstream(&a->buf, &a->size);
  if (!a->f) return -1;
  json_writer_init_file(&a->w, a->f);
  return 0;
}

/* Ends the line; 0 and the text in a->buf, or -1 (freed). */
static int answer_close(answer *a) {
  fputc('\n', a->f);
  int bad = json_writer_done(&a->w) != 0 || ferror(a->f);
  if (fclose(a->f) || bad) {
    free(a->buf);
    a->buf = NULL;
    return -1;
  }
  return 0;
}

int analysis_answer(const analysis_opts *o, const char *line, size_t len, char **out) {
  *out = NULL;
  size_t i = 0;
  while (i < len && line[i] && strchr(" \t\r\n", line[i])) i++;
  if (i == len) return 2;
  char err[512] = "";
  const char *field = NULL;
  query *q = calloc(1, sizeof *q);
  if (!q) return -1;
  q->id = -1;
  if (len >= ANALYSIS_MAX_LINE) {
    errf(err, sizeof err, "query longer than %d bytes", ANALYSIS_MAX_LINE - 1);
  } else if (memchr(line, 0, len)) {
    errf(err, sizeof err, "the query holds a NUL byte (at byte %zu)",
         (size_t)((const char *)memchr(line, 0, len) - line) + 1);
  } else {
    char *copy = malloc(len + 1), e[256];
    if (!copy) {
      free(q);
      return -1;
    }
    memcpy(copy, line, len);
    copy[len] = 0;
    q->doc = json_parse(copy, e, sizeof e);
    free(copy);
    if (!q->doc) errf(err, sizeof err, "not JSON: %s", e);
  }
  if (q->doc) {
    /* An id echoes when it is a string or number of reasonable length. */
    int v = json_type_of(q->doc, 0) == JSON_OBJECT ? json_get(q->doc, 0, "id") : -1;
    json_type ty = v >= 0 ? json_type_of(q->doc, v) : JSON_NULL;
    if ((ty == JSON_STRING && strlen(json_string(q->doc, v)) <= ANALYSIS_MAX_ID) ||
        (ty == JSON_NUMBER && isfinite(json_number(q->doc, v))))
      q->id = v;
  }
  answer a;
  int rc = 1;
  if (answer_open(&a)) rc = -1;
  if (rc == 1 && q->doc && read_query(q, o, &field, err, sizeof err) == 0) {
    if (analyse(&a.w, o, q, &field, err, sizeof err) == 0) {
      rc = 0;
    } else { /* the answer starts again: the error, not a half-written analysis */
      fclose(a.f);
      free(a.buf);
      if (answer_open(&a)) rc = -1;
    }
  }
  if (rc == 1) error_answer(&a.w, q, field, err[0] ? err : "failed");
  if (rc >= 0 && answer_close(&a)) rc = -1;
  json_free(q->doc);
  free(q);
  *out = rc >= 0 ? a.buf : NULL;
  return rc;
}
