/* config: turning INI files into the settings of a run.
 *
 * A training config has sections [game] [network] [search] [selfplay]
 * [replay] [learner] [gating] [eval] [egdb] [run]; every key is listed with its
 * meaning and default by config_describe (and in docs/CONFIG.md). Unknown
 * sections and keys, and values of the wrong type or out of range, are
 * errors naming file, line and key. */
#ifndef SOWZERO_CONFIG_H
#define SOWZERO_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ini.h"
#include "game/game.h"
#include "search/mcts.h"

/* Configures g from the [game] section: `name` (a game or preset, default
 * oware) and every other key as a rule option. Errors name file, line and
 * key: "configs/x.ini:3: game.grand_slam: bad value 'y' ...". With
 * `variants = V; V; ...` (each a game or preset and its own settings, on
 * top of the section's other keys) and `variant_weights = W W ...`, a run
 * trains one network on all of them (docs/VARIANTS.md); g is the first. */
int config_game(ini *f, game *g, char *err, size_t errlen);

enum { GATE_OFF = 0, GATE_THRESHOLD = 1, GATE_SPRT = 2 };

typedef struct {
  game g;         /* the game, or the first of the variants */
  int n_variants; /* 1, or [game] variants: each self-play game draws one */
  game variant[GAME_MAX_VARIANTS];
  float variant_weight[GAME_MAX_VARIANTS];
  /* [network] */
  int hidden, blocks;
  int precision; /* nn_precision of self-play, gating and evaluation */
  /* [search]: self-play search (noise is always on in self-play) */
  mcts_params search;
  /* [selfplay] */
  int threads;          /* self-play worker threads; KV_AUTO: machine_threads (machine.h) decides */
  int learner_plays;    /* 1: the learner's thread hosts one more worker */
  int games_per_thread; /* games each worker advances at once */
  int cap_sims;         /* fast-move budget of playout-cap randomisation; 0: off */
  float full_frac;      /* share of moves searched with the full budget */
  int random_plies;     /* games start after 0..N uniformly random plies */
  int record_every;     /* keep every N-th self-play game in games/; 0: none */
  int actor_outbox_mb;  /* a distributed run's actor: MiB queued or unacknowledged before pausing */
  /* [replay] */
  int window;      /* samples the buffer holds */
  int min_samples; /* samples before learning starts */
  /* [learner] */
  int batch;
  int learner_threads; /* threads of each training step (nn_trainer_set_threads) */
  float lr, lr_final;  /* cosine from lr to lr_final over the budget */
  int warmup_steps;    /* linear warm-up of the learning rate */
  float weight_decay, clip_norm;
  float policy_w, value_w, score_w;
  float score_scale;  /* score target = margin / score_scale */
  float train_ratio;  /* samples trained per new self-play sample */
  int steps_per_iter; /* training steps between candidates */
  /* [gating] */
  int gating;           /* GATE_* */
  int gate_games;       /* games (pairs x 2) at most */
  float gate_threshold; /* score that promotes */
  int gate_sims;        /* simulations per move in gating games */
  float sprt_elo1, sprt_alpha, sprt_beta;
  /* [eval] */
  int eval_every;    /* promotions between anchor evaluations; 0: off */
  char anchors[256]; /* anchor agent specs separated by ';' */
  int eval_games;    /* games against each anchor */
  int eval_sims;     /* simulations of the best in those games */
  /* [egdb]: the Oware endgame database (docs/TRAINING.md) */
  int egdb_enabled;     /* self-play searches use it and exact targets replace results */
  char egdb_dir[256];   /* "": the default location (egdb_default_dir); also egdb=on's */
  int egdb_max_seeds;   /* use it for positions of at most this many seeds; 0: all */
  int egdb_eval_n;      /* positions per seed count in the accuracy check; 0: none */
  int egdb_eval_levels; /* the top seed counts checked */
  /* [run] */
  uint64_t seed;
  double minutes;       /* training budget, wall minutes over all resumes */
  int iterations;       /* stop after this many iterations; 0: no limit */
  int checkpoint_every; /* iterations between replay buffer saves */
  int deterministic;    /* 1: fixed self-play/learner schedule (docs/TRAINING.md) */
} train_config;

/* Defaults for every key (the game: default Oware). */
void config_defaults(train_config *c);
/* Reads a config file, then applies overrides "section.key=value"
 * (n_over of them). Errors name file, line and key, or the override. The
 * agent specs of eval.anchors are checked here (each makes an agent of the
 * game), so that a bad one fails before a run starts. 0, or -1 with the
 * message. */
int config_load(train_config *c, const char *path, int n_over, char *const *over, char *err,
                size_t errlen);
/* The same from INI text (config_write's, as a distributed run's actors
 * get it); errors name `name` where config_load names the file. */
int config_parse(train_config *c, const char *name, const char *text, char *err, size_t errlen);
/* Writes the resolved configuration (every key) as INI text. */
int config_write(const train_config *c, FILE *out);
/* Every key with its default and meaning, as INI comments. */
void config_describe(FILE *out);

/* The anchors of eval.anchors, in order: split at ';', leading spaces
 * dropped, empty ones skipped. The names point into text. */
typedef struct {
  int n;
  const char *name[128];
  char text[256];
} config_anchor_list;
void config_anchors(const train_config *c, config_anchor_list *out);

/* Resuming a run: 1 if "section.key" may differ between a run's own
 * config and the one a resume asks for (the budget, run.minutes and
 * run.iterations, selfplay.threads, selfplay.learner_plays, selfplay.actor_outbox_mb,
 * network.precision and egdb.dir); any other difference makes a different
 * run. */
int config_resumable(const char *key);

typedef struct {
  char key[80];        /* "network.hidden", "game.grand_slam" */
  char a[512], b[512]; /* its value in each config, as config_write writes it */
} config_diff;
/* Compares two resolved configs key by key, in config_write's order,
 * leaving out the resumable keys: 0 if they agree, else 1 with the first
 * key that differs and both values in *d. */
int config_compare(const train_config *a, const train_config *b, config_diff *d);

#endif
