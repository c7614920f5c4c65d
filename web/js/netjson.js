// A reference evaluator for the JSON export (docs/FORMATS.md, "JSON export"):
// the forward pass of nn/nn.h in plain loops with double accumulation.
// Slow and simple on purpose; the tests hold it equal to the C network.

// Checks the parsed JSON and returns a network object; throws an Error
// naming the problem.
export function loadNetwork(json) {
  if (json.format !== 'sowzero-network') throw new Error('not a SowZero network export (format field)');
  if (json.format_version !== 1) throw new Error(`JSON export version ${json.format_version} is not supported (this reader knows 1)`);
  const { n_in: nIn, hidden: H, blocks: B, n_actions: A } = json.config;
  const byName = new Map(json.tensors.map((t) => [t.name, t]));
  const get = (name, rows, cols) => {
    const t = byName.get(name);
    if (!t) throw new Error(`tensor ${name} is missing`);
    if (t.shape[0] !== rows || t.shape[1] !== cols || t.data.length !== rows * cols)
      throw new Error(`tensor ${name} has shape ${t.shape} (${t.data.length} numbers), expected ${rows}x${cols}`);
    return Float32Array.from(t.data);
  };
  const net = {
    meta: json,
    nIn,
    H,
    B,
    A,
    inW: get('in.w', nIn, H),
    inB: get('in.b', 1, H),
    blocks: [],
    headW: get('head.w', H, A + 2),
    headB: get('head.b', 1, A + 2),
  };
  for (let k = 0; k < B; k++)
    net.blocks.push({
      w1: get(`block${k}.fc1.w`, H, H),
      b1: get(`block${k}.fc1.b`, 1, H),
      w2: get(`block${k}.fc2.w`, H, H),
      b2: get(`block${k}.fc2.b`, 1, H),
    });
  return net;
}

// y = x W + b for a row vector x (W stored inputs x outputs, row-major).
function dense(x, W, b, nOut) {
  const y = new Float64Array(nOut);
  for (let j = 0; j < nOut; j++) y[j] = b[j];
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    if (xi === 0) continue;
    const row = i * nOut;
    for (let j = 0; j < nOut; j++) y[j] += xi * W[row + j];
  }
  return y;
}

const relu = (v) => v.map((z) => (z > 0 ? z : 0));

// One position: features (n_in numbers) -> {logits, value, score}; with a
// list of legal actions also the policy (softmax over the legal ones, 0
// elsewhere).
export function evaluate(net, features, legal = null) {
  if (features.length !== net.nIn) throw new Error(`expected ${net.nIn} features, got ${features.length}`);
  let a = relu(dense(features, net.inW, net.inB, net.H));
  for (const blk of net.blocks) {
    const u = relu(dense(a, blk.w1, blk.b1, net.H));
    const t = dense(u, blk.w2, blk.b2, net.H);
    for (let j = 0; j < net.H; j++) t[j] += a[j];
    a = relu(t);
  }
  const out = dense(a, net.headW, net.headB, net.A + 2);
  const logits = Array.from(out.slice(0, net.A));
  const res = { logits, value: Math.tanh(out[net.A]), score: out[net.A + 1] };
  if (legal) res.policy = maskedSoftmax(logits, legal);
  return res;
}

// Softmax over the legal actions; illegal ones get 0.
export function maskedSoftmax(logits, legal) {
  const p = new Array(logits.length).fill(0);
  if (!legal.length) return p;
  const m = Math.max(...legal.map((a) => logits[a]));
  let s = 0;
  for (const a of legal) {
    p[a] = Math.exp(logits[a] - m);
    s += p[a];
  }
  for (const a of legal) p[a] /= s;
  return p;
}
