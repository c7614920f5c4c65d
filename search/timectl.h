/* timectl: clocks and time management of the searching agents.
 *
 * A clock is read through timectl_clock so that tests can drive time by
 * hand (an injected clock) instead of waiting for it. Time management turns
 * what a caller knows of the game clock (a fixed time per move, or the
 * seconds left on the mover's clock and its increment) into a budget for
 * one move: a soft limit the search stops at when it is sure of its move,
 * and a hard limit it never passes (docs/SEARCH.md, "Time"). */
#ifndef SOWZERO_TIMECTL_H
#define SOWZERO_TIMECTL_H

typedef struct {
  double (*now)(void *ctx); /* seconds, never decreasing; called from search threads */
  void *ctx;
} timectl_clock;

/* The wall clock (base's clock_wall). */
timectl_clock timectl_wall(void);
/* c's time; NULL reads the wall clock. */
double timectl_now(const timectl_clock *c);

/* What the mover's side knows of its time for this move. */
typedef struct {
  double per_move;  /* > 0: seconds for this move, none banked (a per-move limit) */
  double remaining; /* > 0 with per_move 0: seconds left on the mover's clock */
  double increment; /* seconds added to that clock after each move */
  double cap;       /* > 0: never more than this per move (an agent's own time=) */
  int ply;          /* plies played so far (the expected moves left depend on it) */
} timectl_state;

typedef struct {
  double soft; /* seconds: stop from here on when the search is sure (0: no limit) */
  double hard; /* seconds: never search past this */
  int banked;  /* 1: time saved now is spent later (a game clock), so stopping early pays */
} timectl_budget;

/* Seconds kept back from every limit for what is not search (moves passed
 * to and fro, thread start): a move must end before the clock does. */
#define TIMECTL_LAG 0.01

/* The mover's expected moves still to play at ply (a rule of thumb: 40 at
 * the start, one fewer every 4 plies, never under 12). */
int timectl_moves_left(int ply);
/* The budget of one move; all zero when t sets no limit at all. With a
 * clock: soft is the remaining time plus the increments to come shared
 * over the expected moves left, hard at most three times that and never
 * more than half of what is left (so one move cannot lose the game on
 * time). With a per-move limit both are that limit less TIMECTL_LAG (less
 * a tenth of it when that is smaller).
 * cap bounds both. */
timectl_budget timectl_plan(const timectl_state *t);

/* What a search knows when it looks at the clock, and the decision. */
typedef struct {
  double elapsed, soft, hard; /* seconds */
  int changes;                /* times the most visited move changed */
  double changed_at;          /* seconds: when it last changed */
  int disagree;    /* another move with a quarter of the best's visits has a better mean */
  int early;       /* early stopping applies */
  double lead;     /* visits of the best move over the runner-up's */
  double rate;     /* simulations per second so far (0: unknown yet) */
  double cap_left; /* simulations the cap still allows */
} timectl_view;

enum { TIMECTL_GO = 0, TIMECTL_SOFT, TIMECTL_HARD, TIMECTL_EARLY };

/* TIMECTL_HARD at the hard limit. From soft on: TIMECTL_SOFT when sure,
 * but an unsure search (its best move changed in the last quarter of the
 * time spent, or v->disagree) goes on to twice soft, never past hard
 * (TIMECTL_HARD). Before that, with v->early: TIMECTL_EARLY once the lead
 * is more than the simulations left until the limit at v->rate (and the
 * cap). Else TIMECTL_GO. */
int timectl_decide(const timectl_view *v);

#endif
