/* evaluator_nn: the network as a search evaluator (mcts_eval), and loading
 * a weight file checked against a configured game.
 *
 * An mcts_nn evaluator encodes positions with game_encode into a feature
 * buffer made once (max_batch rows), runs nn_forward with the legal masks
 * and hands back masked policies and values for the mover. It borrows the
 * net (read-only; many evaluators may share one net across threads) and
 * owns its workspace: one evaluator per thread. */
#ifndef SOWZERO_EVALUATOR_NN_H
#define SOWZERO_EVALUATOR_NN_H

#include <stddef.h>

#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"

/* The metadata a weight file for g must carry (game name, rule options
 * string, encoding version, feature and action counts). */
int mcts_nn_meta(const game *g, nn_meta *out, char *err, size_t errlen);
/* Which rules a loaded network may play. OWN: a network without rule
 * inputs plays exactly the rules it was trained on, one with them every
 * variant of its set. ANY: every rule set of its game (a network trained
 * on one variant playing another, for cross-play), the shapes still
 * checked. */
typedef enum { MCTS_NN_OWN_RULES, MCTS_NN_ANY_RULES } mcts_nn_rules;
/* Loads a net for game g from path, refusing files made for another game,
 * encoding or shape, or (OWN) for other rules; the message names the file
 * and the mismatch. g is the caller's copy, made to match the network: its
 * rule inputs are turned on for a network that reads them. */
nn_net *mcts_nn_load(game *g, const char *path, mcts_nn_rules rules, char *err, size_t errlen);

typedef struct mcts_nn mcts_nn;

mcts_nn *mcts_nn_create(const game *g, const nn_net *net, int max_batch, char *err, size_t errlen);
void mcts_nn_free(mcts_nn *e);
/* The evaluator table (ctx = e, max_batch as made); evaluate fails (-1)
 * only for a batch outside 1..max_batch. */
mcts_eval mcts_nn_eval(mcts_nn *e);
/* The network's score output for one position: the predicted final seed
 * margin for the mover, in units of the training's score_scale. */
int mcts_nn_score(mcts_nn *e, const game_pos *p, float *score);
/* Evaluates with another net of the same config (weights swapped in by a
 * trainer); -1 if the config differs. */
int mcts_nn_set_net(mcts_nn *e, const nn_net *net);

#endif
