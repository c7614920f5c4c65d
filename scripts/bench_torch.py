#!/usr/bin/env python3
"""The SowZero network in PyTorch, timed like `sowzero bench nn`.

Same architecture as nn/nn.h: input layer (ReLU), residual blocks of two
dense layers, one head layer giving n_actions policy logits, a value (tanh)
and a score. Same losses: masked-softmax cross-entropy, value MSE, Huber
(delta 1) on the score; AdamW. One thread (torch.set_num_threads(1)), as the
C workers use one BLAS thread each.

Figures (medians of --reps repetitions, CPU time of the calling thread and
wall time):
  forward_pos_per_s, forward_pos_per_s_wall   per --batches size
  train_samples_per_s, train_samples_per_s_wall  at --train-batch
Human table by default; --json prints one JSON object per line with
"bench": "torch".

Debian's python3-torch installs into the system interpreter; when the
`python3` on PATH lacks torch this script re-runs itself under
/usr/bin/python3.
"""
import argparse
import json
import os
import statistics
import sys
import time

# One thread everywhere: torch.set_num_threads covers ATen's own pool, but
# the BLAS underneath (OpenBLAS on Debian) reads its thread count from the
# environment when it loads, so it must be set before the import.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    if os.path.exists("/usr/bin/python3") and \
            os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.stderr.write("bench_torch: PyTorch is not installed "
                     "(apt-get install python3-torch)\n")
    sys.exit(1)


class Net(torch.nn.Module):
    def __init__(self, n_in, hidden, blocks, n_actions):
        super().__init__()
        self.n_actions = n_actions
        self.inp = torch.nn.Linear(n_in, hidden)
        self.fc1 = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(blocks))
        self.fc2 = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(blocks))
        self.head = torch.nn.Linear(hidden, n_actions + 2)

    def forward(self, x, legal):
        a = F.relu(self.inp(x))
        for l1, l2 in zip(self.fc1, self.fc2):
            a = F.relu(l2(F.relu(l1(a))) + a)
        out = self.head(a)
        logits = out[:, :self.n_actions].masked_fill(~legal, float("-inf"))
        return logits, torch.tanh(out[:, self.n_actions]), out[:, self.n_actions + 1]


def timed(fn, units, seconds, reps):
    """Medians of units/s over reps runs of about seconds/reps each (thread
    CPU time and wall time)."""
    fn()  # warm-up
    t0 = time.thread_time()
    fn()
    once = max(time.thread_time() - t0, 1e-6)
    iters = max(1, int(seconds / reps / once))
    cpu, wall = [], []
    for _ in range(reps):
        c0, w0 = time.thread_time(), time.perf_counter()
        for _ in range(iters):
            fn()
        c1, w1 = time.thread_time(), time.perf_counter()
        cpu.append(units * iters / max(c1 - c0, 1e-9))
        wall.append(units * iters / max(w1 - w0, 1e-9))
    return statistics.median(cpu), statistics.median(wall)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inputs", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--actions", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="time budget per figure")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--batches", default="1,8,32,64,256,1024")
    ap.add_argument("--train-batch", type=int, default=256)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(1)
    net = Net(args.inputs, args.hidden, args.blocks, args.actions)
    A = args.actions
    flops = 2.0 * (args.inputs * args.hidden + 2 * args.blocks * args.hidden ** 2
                   + args.hidden * (A + 2))

    def figure(name, value, unit, batch=None):
        if args.json:
            obj = {"bench": "torch", "figure": name, "value": round(value, 3), "unit": unit}
            if batch is not None:
                obj["batch"] = batch
            print(json.dumps(obj), flush=True)
        else:
            b = "" if batch is None else "batch %d" % batch
            print("%-28s %-11s %14.1f %s" % (name, b, value, unit), flush=True)

    if not args.json:
        print("PyTorch %s, %d thread(s), network %d-%dx%d-%d"
              % (torch.__version__, torch.get_num_threads(), args.inputs,
                 args.hidden, args.blocks, A))

    def data(batch):
        x = torch.rand(batch, args.inputs)
        legal = torch.rand(batch, A) < 0.7
        legal[:, 0] = True
        return x, legal

    net.eval()
    for batch in [int(b) for b in args.batches.split(",")]:
        x, legal = data(batch)

        def fwd():
            with torch.inference_mode():
                logits, v, s = net(x, legal)
                torch.softmax(logits, dim=1)
        cpu, wall = timed(fwd, batch, args.seconds, args.reps)
        figure("forward_pos_per_s", cpu, "1/s", batch)
        figure("forward_pos_per_s_wall", wall, "1/s", batch)
        figure("forward_gflops", cpu * flops / 1e9, "GFLOP/s", batch)

    net.train()
    batch = args.train_batch
    x, legal = data(batch)
    tp = torch.rand(batch, A) * legal
    tp = tp / tp.sum(dim=1, keepdim=True)
    tv = torch.randint(-1, 2, (batch,)).float()
    ts = torch.randn(batch)
    decay = [p for n, p in net.named_parameters() if n.endswith("weight")]
    rest = [p for n, p in net.named_parameters() if not n.endswith("weight")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 1e-4},
                             {"params": rest, "weight_decay": 0.0}], lr=1e-3)

    def step():
        logits, v, s = net(x, legal)
        logp = torch.log_softmax(logits, dim=1).masked_fill(~legal, 0.0)
        loss = (-(tp * logp).sum(dim=1).mean() + F.mse_loss(v, tv)
                + F.smooth_l1_loss(s, ts, beta=1.0))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    cpu, wall = timed(step, batch, args.seconds, args.reps)
    figure("train_samples_per_s", cpu, "1/s", batch)
    figure("train_samples_per_s_wall", wall, "1/s", batch)


if __name__ == "__main__":
    main()
