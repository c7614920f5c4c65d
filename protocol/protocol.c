/* The engine protocol: parsing, the game record behind undo, responses. */
#include "protocol/protocol.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "game/session.h"
#include "search/agent.h"

#define MAX_TOKENS (GAME_MAX_PLIES_CAP + 8) /* `moves` takes a whole game */

struct proto {
  game g;
  session *game;             /* the game from its start or setboard, for undo */
  agent *agent;              /* plays genmove, answers analyze */
  char line[PROTO_MAX_LINE]; /* the command being parsed */
  char *argv[MAX_TOKENS];    /* its tokens */
  char agent_spec[256];
  uint64_t seed;
  const egdb *egdb;    /* the endgame database, or NULL; owned by the caller */
  char egdb_dir[1024]; /* where agents' egdb=on looks ("": the default) */
  /* The game clock (time_settings, time_left): main > 0 a clock per side
   * with inc added after each move, main 0 inc seconds a move; off: none. */
  int clock_on;
  double clock_main, clock_inc, clock_left[2];
};

/* Response builder: "=id " or "?id " then text, then the empty line. The
 * text never takes the last two bytes, so the empty line that ends every
 * response always fits (a long text is cut, never the framing). */
typedef struct {
  char *buf;
  size_t len, cap;
} out_buf;

static void put(out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out_buf *o, const char *fmt, ...) {
  size_t room = o->cap > 3 ? o->cap - 3 : 0; /* "\n\n" and the NUL */
  if (o->len >= room) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->buf + o->len, room + 1 - o->len, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n < room - o->len ? (size_t)n : room - o->len;
  o->buf[o->len] = 0;
}

/* Ends the response with its empty line. */
static void finish(out_buf *o) {
  memcpy(o->buf + o->len, "\n\n", 3);
  o->len += 2;
}

static int new_agent(proto *s, const char *spec, char *err, size_t errlen) {
  agent *a = agent_make(&s->g, spec, &(agent_params){s->seed, s->egdb_dir}, err, errlen);
  if (!a) return -1;
  agent_free(s->agent);
  s->agent = a;
  snprintf(s->agent_spec, sizeof s->agent_spec, "%s", spec);
  return 0;
}

/* A new game of s->g from p (NULL: the start). */
static void reset_to(proto *s, const game_pos *p) {
  session_reset(s->game, &s->g, p);
  if (s->agent) agent_reset(s->agent);
}

proto *proto_create(uint64_t seed) {
  proto *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->seed = seed;
  char err[256];
  if (game_configure(&s->g, "oware", 0, NULL, err, sizeof err) != 0 ||
      !(s->game = session_create(&s->g, NULL)) || new_agent(s, "random", err, sizeof err) != 0) {
    session_free(s->game);
    free(s);
    return NULL;
  }
  return s;
}

void proto_set_egdb(proto *s, const egdb *db) { s->egdb = db; }

void proto_set_egdb_dir(proto *s, const char *dir) {
  snprintf(s->egdb_dir, sizeof s->egdb_dir, "%s", dir ? dir : "");
}

void proto_free(proto *s) {
  if (!s) return;
  agent_free(s->agent);
  session_free(s->game);
  free(s);
}

static void write_state(const proto *s, out_buf *o) {
  char board[512], legal[128];
  const game_pos *p = session_pos(s->game);
  s->g.rules->board_tokens(&s->g, p, board, sizeof board);
  session_legal_text(s->game, 0, ",", legal, sizeof legal);
  put(o, "%d %s %s ", p->mover, board, legal[0] ? legal : "-");
  if (p->status == GAME_ONGOING) {
    put(o, "ongoing");
    return;
  }
  if (p->half)
    put(o, "over %d.5 %d.5", p->final[0], p->final[1]);
  else
    put(o, "over %d %d", p->final[0], p->final[1]);
  /* The winner is the rules' verdict, which the scores alone do not always
   * give (a Kujifunza front row emptied, an Oware grand slam that loses). */
  if (p->winner == GAME_DRAW)
    put(o, " draw");
  else
    put(o, " %d", p->winner);
}

/* ---- Commands ---------------------------------------------------------------
 * Each returns 0 with its result written to o, or -1 with a message in err. */

typedef int (*command_fn)(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen);

static int cmd_game(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  if (argc < 1) {
    errf(err, errlen, "usage: game NAME [key=value ...]");
    return -1;
  }
  game g;
  if (game_configure(&g, argv[0], argc - 1, argv + 1, err, errlen) != 0) return -1;
  agent *a = agent_make(&g, s->agent_spec, &(agent_params){s->seed, s->egdb_dir}, err, errlen);
  if (!a) return -1;
  agent_free(s->agent);
  s->agent = a;
  s->g = g;
  reset_to(s, NULL);
  char opts[512];
  game_options_string(&s->g, opts, sizeof opts);
  put(o, "%s %s", s->g.rules->name, opts);
  return 0;
}

static int cmd_moves(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  session *t = session_create(&s->g, NULL); /* a new game: a bad move changes nothing */
  if (!t) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  for (int i = 0; i < argc; i++) {
    char e[200];
    if (session_play_text(t, argv[i], e, sizeof e) != 0) {
      errf(err, errlen, "move %d: %s", i + 1, e);
      session_free(t);
      return -1;
    }
  }
  session_free(s->game);
  s->game = t;
  if (s->agent) agent_reset(s->agent);
  write_state(s, o);
  return 0;
}

static int cmd_setboard(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  game_pos p;
  if (s->g.rules->setboard(&s->g, &p, argc, argv, err, errlen) != 0) return -1;
  reset_to(s, &p);
  write_state(s, o);
  return 0;
}

static int cmd_play(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  if (argc != 1) {
    errf(err, errlen, "usage: play ACTION");
    return -1;
  }
  if (session_play_text(s->game, argv[0], err, errlen) != 0) return -1;
  write_state(s, o);
  return 0;
}

static int cmd_undo(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  if (session_undo(s->game, 1) != 0) {
    errf(err, errlen, "nothing to undo");
    return -1;
  }
  write_state(s, o);
  return 0;
}

static int cmd_state(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  write_state(s, o);
  return 0;
}

static int cmd_legal(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  char legal[128];
  session_legal_text(s->game, 0, " ", legal, sizeof legal);
  put(o, "%s", legal);
  return 0;
}

/* The legal actions with the names a person reads on the board drawing
 * (game_move_label): "A:LABEL ..." in the order of `legal`. */
static int cmd_labels(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  const char *sep = "";
  const game_pos *p = session_pos(s->game);
  for (game_moves m = game_legal(&s->g, p); m; m &= m - 1) {
    int a = __builtin_ctz(m);
    char label[32];
    if (game_move_label(&s->g, p->mover, a, label, sizeof label))
      snprintf(label, sizeof label, "%d", a);
    put(o, "%s%d:%s", sep, a, label);
    sep = " ";
  }
  return 0;
}

static int cmd_show(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  char board[2048];
  game_render(&s->g, session_pos(s->game), board, sizeof board);
  size_t n = strlen(board);
  if (n && board[n - 1] == '\n') board[n - 1] = 0;
  put(o, "\n%s", board);
  return 0;
}

static int cmd_agent(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  if (argc < 1) {
    put(o, "%s", s->agent_spec);
    return 0;
  }
  char spec[256];
  size_t k = 0;
  spec[0] = 0;
  for (int i = 0; i < argc && k < sizeof spec; i++)
    k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%s", i ? " " : "", argv[i]);
  if (k >= sizeof spec) {
    errf(err, errlen, "agent spec too long (at most %zu characters)", sizeof spec - 1);
    return -1;
  }
  if (new_agent(s, spec, err, errlen) != 0) return -1;
  put(o, "%s", s->agent_spec);
  return 0;
}

static int cmd_genmove(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  if (session_pos(s->game)->status != GAME_ONGOING) {
    errf(err, errlen, "the game is over");
    return -1;
  }
  int mover = session_pos(s->game)->mover;
  agent_time t = {0, 0, 0};
  if (s->clock_on && s->clock_main > 0) t = (agent_time){0, s->clock_left[mover], s->clock_inc};
  if (s->clock_on && s->clock_main == 0) t.per_move = s->clock_inc;
  agent_set_time(s->agent, &t);
  double t0 = clock_wall();
  int a = agent_choose(s->agent, session_pos(s->game), session_hist(s->game));
  if (a < 0) {
    errf(err, errlen, "%s", agent_error(s->agent));
    return -1;
  }
  /* The engine's own clock runs on its moves; time_left corrects it. */
  if (s->clock_on && s->clock_main > 0) s->clock_left[mover] += s->clock_inc - (clock_wall() - t0);
  if (session_play(s->game, a, err, errlen) != 0) return -1;
  put(o, "%d", a);
  return 0;
}

/* Seconds from text: a finite number, 0..1e6. */
static int parse_seconds(const char *what, const char *text, double *out, char *err,
                         size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end || errno || !(v >= 0 && v <= 1e6)) {
    errf(err, errlen, "bad %s '%.40s' (seconds, 0..1e6)", what, text);
    return -1;
  }
  *out = v;
  return 0;
}

static int cmd_time_settings(proto *s, int argc, char **argv, out_buf *o, char *err,
                             size_t errlen) {
  (void)o;
  if (argc == 1 && strcmp(argv[0], "off") == 0) {
    s->clock_on = 0;
    return 0;
  }
  double main_s, inc;
  if (argc != 2) {
    errf(err, errlen, "usage: time_settings MAIN INC | time_settings off");
    return -1;
  }
  if (parse_seconds("main time", argv[0], &main_s, err, errlen) ||
      parse_seconds("increment", argv[1], &inc, err, errlen))
    return -1;
  if (main_s == 0 && inc == 0) {
    errf(err, errlen, "time_settings 0 0 leaves no time to move (time_settings off: no clock)");
    return -1;
  }
  s->clock_on = 1;
  s->clock_main = main_s;
  s->clock_inc = inc;
  s->clock_left[0] = s->clock_left[1] = main_s;
  return 0;
}

static int cmd_time_left(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  if (argc == 0) {
    if (!s->clock_on) {
      put(o, "off");
    } else if (s->clock_main == 0) {
      put(o, "per_move %.3f", s->clock_inc);
    } else {
      put(o, "south %.3f north %.3f", s->clock_left[GAME_SOUTH], s->clock_left[GAME_NORTH]);
    }
    return 0;
  }
  int side = argc == 2 && strcmp(argv[0], "south") == 0   ? GAME_SOUTH
             : argc == 2 && strcmp(argv[0], "north") == 0 ? GAME_NORTH
                                                          : -1;
  if (side < 0) {
    errf(err, errlen, "usage: time_left [south|north SECONDS]");
    return -1;
  }
  if (!s->clock_on || s->clock_main == 0) {
    errf(err, errlen, "no game clock (time_settings MAIN INC with MAIN > 0 sets one)");
    return -1;
  }
  return parse_seconds("time left", argv[1], &s->clock_left[side], err, errlen);
}

static int cmd_analyze(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  agent_analysis an;
  if (agent_analyze(s->agent, session_pos(s->game), session_hist(s->game), &an) != 0) {
    errf(err, errlen, "%s", agent_error(s->agent));
    return -1;
  }
  put(o, "best %d value %.4f", an.best, an.root_value);
  if (an.has_margin) put(o, " margin %.2f", an.margin);
  for (int i = 0; i < an.n; i++)
    put(o, "\nmove %d visits %d prior %.4f value %.4f", an.action[i], an.visits[i], an.prior[i],
        an.value[i]);
  return 0;
}

/* The endgame database's values: the position's, then each legal move's. */
static int cmd_egdb(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv;
  if (!s->egdb) {
    errf(err, errlen, "no endgame database loaded (sowzero engine --egdb DIR; docs/EGDB.md)");
    return -1;
  }
  const game_pos *p = session_pos(s->game);
  int v = egdb_probe(s->egdb, &s->g, p), vals[GAME_MAX_ACTIONS];
  if (v == EGDB_NONE) {
    int n = 0;
    for (int i = 0; i < s->g.n_pits; i++) n += p->pits[i];
    if (!egdb_serves(s->egdb, &s->g))
      errf(err, errlen, "not in the endgame database: it is for oware %s", egdb_rules(s->egdb));
    else if (p->status != GAME_ONGOING)
      errf(err, errlen, "not in the endgame database: the game is over");
    else
      errf(err, errlen, "not in the endgame database: %d seeds on the board, it holds 0..%d", n,
           egdb_max_seeds(s->egdb));
    return -1;
  }
  put(o, "%d", v);
  for (game_moves m = egdb_probe_moves(s->egdb, &s->g, p, vals); m; m &= m - 1)
    put(o, " %d:%d", __builtin_ctz(m), vals[__builtin_ctz(m)]);
  return 0;
}

static int cmd_options(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)argc, (void)argv, (void)err, (void)errlen;
  char opts[512];
  game_options_string(&s->g, opts, sizeof opts);
  put(o, "%s %s", s->g.rules->name, opts);
  return 0;
}

static int cmd_name(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)s, (void)argc, (void)argv, (void)err, (void)errlen;
  put(o, "SowZero");
  return 0;
}

static int cmd_version(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)s, (void)argc, (void)argv, (void)err, (void)errlen;
  put(o, "1");
  return 0;
}

static int cmd_help(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen);

static int cmd_quit(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)s, (void)argc, (void)argv, (void)o, (void)err, (void)errlen;
  return 0;
}

static const struct {
  const char *name;
  command_fn fn;
  int takes_args; /* 0: any argument is a usage error */
  const char *usage;
} commands[] = {
    {"game", cmd_game, 1, "game NAME [key=value ...]   choose a game or preset; new game"},
    {"moves", cmd_moves, 1, "moves A1 A2 ...             new game, then play these actions"},
    {"setboard", cmd_setboard, 1,
     "setboard MOVER BOARD...     the game's board tokens (Oware: pits, stores)"},
    {"play", cmd_play, 1, "play A                      play action A for the side to move"},
    {"undo", cmd_undo, 0, "undo                        take back the last move"},
    {"state", cmd_state, 0, "state                       MOVER PITS.. STORES LEGAL STATUS"},
    {"legal", cmd_legal, 0, "legal                       the legal actions"},
    {"labels", cmd_labels, 0,
     "labels                      the legal actions as A:NAME (board names)"},
    {"show", cmd_show, 0, "show                        draw the board"},
    {"agent", cmd_agent, 1, "agent [SPEC]                set (or tell) the agent of genmove"},
    {"genmove", cmd_genmove, 0, "genmove                     the agent chooses and plays a move"},
    {"analyze", cmd_analyze, 0, "analyze                     the agent's view of each move"},
    {"time_settings", cmd_time_settings, 1,
     "time_settings MAIN INC|off  a game clock: MAIN s a side, INC s added a move (MAIN 0: INC a "
     "move)"},
    {"time_left", cmd_time_left, 1,
     "time_left [south|north S]   tell (or set) the time left on a side's clock"},
    {"egdb", cmd_egdb, 0, "egdb                        endgame database: VALUE A:VALUE ..."},
    {"options", cmd_options, 0, "options                     the game's rule options"},
    {"name", cmd_name, 0, "name                        the engine's name"},
    {"version", cmd_version, 0, "version                     protocol version"},
    {"help", cmd_help, 0, "help                        this list"},
    {"quit", cmd_quit, 0, "quit                        end the session"},
};
#define N_COMMANDS (int)(sizeof commands / sizeof commands[0])

static int cmd_help(proto *s, int argc, char **argv, out_buf *o, char *err, size_t errlen) {
  (void)s, (void)argc, (void)argv, (void)err, (void)errlen;
  for (int i = 0; i < N_COMMANDS; i++) put(o, "\n%s", commands[i].usage);
  return 0;
}

/* Tokenises the line into s->argv; -1 with a message when it cannot be. */
static int tokenize(proto *s, const char *line, size_t len, int *argc, char *err, size_t errlen) {
  char *buf = s->line, *save = NULL;
  *argc = 0;
  if (len >= PROTO_MAX_LINE) {
    errf(err, errlen, "command line too long (at most %d characters)", PROTO_MAX_LINE - 1);
    return -1;
  }
  memcpy(buf, line, len);
  buf[len] = 0;
  const char *nul = memchr(line, 0, len);
  /* The id still comes back: the line is read up to the NUL for it. */
  /* A comment starts at a '#' that begins a token (docs/PROTOCOL.md): one
   * inside a token, as in a path, is part of it. */
  for (char *h = buf; (h = strchr(h, '#')); h++)
    if (h == buf || strchr(" \t\r\n", h[-1])) {
      *h = 0;
      break;
    }
  for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (*argc == MAX_TOKENS) {
      errf(err, errlen, "too many arguments (at most %d)", MAX_TOKENS - 1);
      return -1;
    }
    s->argv[(*argc)++] = t;
  }
  if (nul) {
    errf(err, errlen, "the line holds a NUL byte (at byte %zu)", (size_t)(nul - line) + 1);
    return -1;
  }
  return 0;
}

/* A numeric id in front of the command: its text in id, and 1. */
static int take_id(char *const *argv, int argc, char *id, size_t len) {
  id[0] = 0;
  if (argc < 1 || !isdigit((unsigned char)argv[0][0])) return 0;
  char *end;
  errno = 0;
  long v = strtol(argv[0], &end, 10);
  if (*end || v < 0 || errno) return 0;
  snprintf(id, len, "%ld", v);
  return 1;
}

int proto_handle_bytes(proto *s, const char *line, size_t len, char *out, size_t outlen) {
  out_buf o = {out, 0, outlen};
  out[0] = 0;
  char err[512] = "", id[24] = "";
  int argc = 0;
  int bad = tokenize(s, line, len, &argc, err, sizeof err);
  int first = take_id(s->argv, argc, id, sizeof id);
  char **argv = s->argv + first;
  argc -= first;
  if (!bad && argc + first == 0) return 0; /* blank line or comment */
  int quit = 0;
  if (!bad && argc == 0) {
    errf(err, sizeof err, "missing command");
    bad = 1;
  }
  int i = 0;
  while (!bad && i < N_COMMANDS && strcmp(argv[0], commands[i].name) != 0) i++;
  if (!bad && i == N_COMMANDS) {
    /* Quote at most a little of what was sent: the answer stays short. */
    errf(err, sizeof err, "unknown command '%.40s%s' (try help)", argv[0],
         strlen(argv[0]) > 40 ? "..." : "");
    bad = 1;
  }
  if (!bad && argc > 1 && !commands[i].takes_args) {
    errf(err, sizeof err, "usage: %.*s (no arguments)", (int)strcspn(commands[i].usage, " "),
         commands[i].usage);
    bad = 1;
  }
  if (!bad) {
    put(&o, "=%s ", id);
    size_t start = o.len;
    if (commands[i].fn(s, argc - 1, argv + 1, &o, err, sizeof err) != 0) {
      bad = 1;
    } else {
      /* "= " with nothing after it loses the trailing space. */
      if (o.len == start) o.buf[--o.len] = 0;
      quit = commands[i].fn == cmd_quit;
    }
  }
  if (bad) {
    o.len = 0;
    char safe[4 * sizeof err]; /* the message may quote the line: escaped */
    put(&o, "?%s %s", id, err[0] ? text_escape(safe, sizeof safe, err, strlen(err)) : "failed");
  }
  finish(&o);
  return quit;
}

int proto_handle(proto *s, const char *line, char *out, size_t outlen) {
  return proto_handle_bytes(s, line, strlen(line), out, outlen);
}
