/* Clocks and the budget of one move. */
#include "search/timectl.h"

#include "base/base.h"

static double wall_now(void *ctx) {
  (void)ctx;
  return clock_wall();
}

timectl_clock timectl_wall(void) {
  timectl_clock c = {wall_now, NULL};
  return c;
}

double timectl_now(const timectl_clock *c) { return c ? c->now(c->ctx) : clock_wall(); }

int timectl_moves_left(int ply) {
  int m = 40 - ply / 4;
  return m > 12 ? m : 12;
}

static double at_least(double x, double lo) { return x > lo ? x : lo; }
static double at_most(double x, double hi) { return x < hi ? x : hi; }

int timectl_decide(const timectl_view *v) {
  double hard = v->hard > v->soft ? v->hard : v->soft;
  if (v->elapsed >= hard) return TIMECTL_HARD;
  int unsure = (v->changes > 0 && v->elapsed - v->changed_at < v->elapsed / 4) || v->disagree;
  double limit = unsure ? at_most(2 * v->soft, hard) : v->soft;
  if (v->elapsed >= limit) return unsure ? TIMECTL_HARD : TIMECTL_SOFT;
  if (v->early && v->rate > 0) {
    double left = at_most(v->rate * (limit - v->elapsed), v->cap_left);
    if (v->lead > left) return TIMECTL_EARLY;
  }
  return TIMECTL_GO;
}

timectl_budget timectl_plan(const timectl_state *t) {
  timectl_budget b = {0, 0, 0};
  /* Something is always searched: a tenth of the lag at least. */
  const double floor = TIMECTL_LAG / 10;
  if (t->per_move > 0) {
    /* A short limit keeps a tenth back, not the whole lag: at 0.01 s a move
     * the fixed lag would leave nothing to search. */
    b.soft = b.hard = at_least(t->per_move - at_most(TIMECTL_LAG, t->per_move / 10), floor);
  } else if (t->remaining > 0) {
    double usable = at_least(t->remaining - TIMECTL_LAG, 0);
    int n = timectl_moves_left(t->ply);
    b.soft = (usable + t->increment * (n - 1)) / n;
    b.hard = at_most(3 * b.soft, usable / 2);
    b.soft = at_least(at_most(b.soft, b.hard), floor);
    b.hard = at_least(b.hard, b.soft);
    b.banked = 1;
  } else if (t->cap > 0) {
    b.soft = b.hard = t->cap;
    return b;
  } else {
    return b;
  }
  if (t->cap > 0) {
    b.soft = at_most(b.soft, t->cap);
    b.hard = at_most(b.hard, t->cap);
  }
  return b;
}
