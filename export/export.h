/* export: a network written for other runtimes — an ONNX model and a
 * JSON file with the architecture and every weight. Formats in
 * docs/FORMATS.md ("ONNX export", "JSON export").
 *
 * Like nn, this knows nothing of games: the caller passes the
 * weight file's metadata (nn_meta) and two one-line texts that tell a front
 * end how to build the input and read the policy; they are stored verbatim.
 *
 * Both exporters only read the net (any thread may export while others
 * evaluate it), write the whole file atomically (temporary, fsync, rename),
 * and refuse a net holding a NaN or an infinity: neither format could carry
 * it faithfully (JSON has no such numbers) and no front end could use it. */
#ifndef SOWZERO_EXPORT_H
#define SOWZERO_EXPORT_H

#include <stddef.h>

#include "nn/nn.h"

#define EXPORT_FORMAT_VERSION 1  /* of the JSON layout and the ONNX metadata keys */
#define EXPORT_ONNX_OPSET     17 /* default-domain operator set of the graph */
#define EXPORT_ONNX_IR        8  /* ONNX IR version (ONNX 1.12+) */

/* What goes into the file beside the weights. Pointers are borrowed for the
 * call only. */
typedef struct {
  const nn_meta *meta;  /* game, rule options, encoding version, sizes */
  const char *encoding; /* how a position becomes the features (one line) */
  const char *actions;  /* how actions are numbered, e.g. "mover-relative:
                               action a = ..." (one line) */
  const char *producer; /* the program and version that wrote the file */
} export_info;

/* The ONNX model: input "features" [batch, n_in] float; outputs
 * "policy_logits" [batch, n_actions] (raw, before masking and softmax),
 * "value" [batch, 1] (tanh applied) and "score" [batch, 1]; the metadata as
 * metadata_props. Returns 0, or -1 with a message naming path. */
int export_onnx(const nn_net *n, const export_info *info, const char *path, char *err,
                size_t errlen);

/* The JSON file: metadata, the forward pass written out, and every tensor
 * as a row-major array of numbers that read back to the same float32. */
int export_json(const nn_net *n, const export_info *info, const char *path, char *err,
                size_t errlen);

#endif
