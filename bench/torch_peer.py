#!/usr/bin/env python3
"""PyTorch peer of bench/executor_bench.cc and bench/matmul_bench.cc: the same
workloads (and bench/training_bench.cc's) in PyTorch eager mode, for
bench/compare_torch.sh.

Why: dflow's executor overhead and kernels only mean something next to a
framework people use. This runs each dflow workload, shape for shape, in
PyTorch (Debian's python3-torch 1.13 for /usr/bin/python3), float32,
under torch.no_grad() except the training step:

  chain    x = x + one, 10,000 times, on a 0-d tensor (dflow: a chain of
           10,000 scalar AddV2 nodes with a Const one); per node = step / 10,000.
           `one` is a 0-d tensor, like dflow's Const: x + 1 with a Python
           number measured ~0.9 us slower per op (it wraps the number in a
           new tensor every time)
  fanout   10,000 adds x + one of one 0-d input, summed back by a tree of
           16-input sums, torch.stack(group).sum(0) (dflow: AddN, 16 inputs
           per node); per node = step / 10,000 (the adds, as dflow counts)
  mlp      784-500-10 forward, batch 100: linear + relu, linear, softmax
           (dflow: MatMul + BiasAdd + Relu, MatMul + BiasAdd, Softmax);
           ms per forward pass
  mlp_train the same network's training step, batch 100 (dflow:
           training_bench's BM_MlpTrainStep, the seed's tf.matmul(x, w) + b,
           relu, sparse softmax cross-entropy, mean,
           GradientDescentOptimizer(0.01).minimize): zero_grad(set_to_none=
           True), F.linear + relu, F.linear, F.cross_entropy (mean),
           loss.backward(), torch.optim.SGD(lr=0.01).step(); weights
           truncated normal(0.1) and zero biases as the seed's, the fixed
           batch training_bench feeds (int64 labels: cross_entropy takes no
           int32); ms per step and examples/s; on the CPU also the
           step's peak bytes (train_step_memory: torch.profiler's memory
           events, the parameters included, the fed batch not)
  matmul   torch.mm of two 1024x1024 matrices, a new output each call as
           dflow's kernel allocates one; GFLOP/s = 2 * 1024^3 / time

The thread count is set once per process (torch.set_num_threads and
torch.set_num_interop_threads, which PyTorch accepts only before any
parallel work, and OPENBLAS_NUM_THREADS / OMP_NUM_THREADS unless already
set: Debian's torch reaches OpenBLAS through the generic BLAS interface,
which set_num_threads does not configure; OMP_WAIT_POLICY defaults to
PASSIVE here, see main()), so compare_torch.sh runs this
once per thread count, as it runs the dflow binaries once per
DFLOW_NUM_THREADS.

Timing: one warm-up call, then --repetitions repetitions, each calling the
workload until --min-time seconds have passed (at least once); a
repetition's figure is its mean wall time per call (time.perf_counter;
process CPU time, time.process_time, is recorded too). Every figure is the
median over repetitions, as Google Benchmark's median aggregate is on the
dflow side.

  /usr/bin/python3 bench/torch_peer.py --threads 1 [--repetitions 7]
      [--min-time 0.3] [--workloads chain,fanout,mlp,mlp_train,matmul]
      [--json OUT]

On a GPU (bench/gpu/compare_torch_gpu.sh): --device cuda runs mlp_train
and matmul only (--matmul-n sets the matmul's size; the model, initial weights and fixed batch made on the host as for
the CPU, then moved to the GPU), each step followed by
torch.cuda.synchronize() so a call's wall time covers its GPU work (as
dflow's Session::Run returns once the step is done); --batch N changes the
batch (default 100) and --tf32 allows TF32 matmuls
(torch.backends.cuda.matmul.allow_tf32; off by default, as dflow's
SessionOptions.gpu_allow_tf32). Without CUDA it prints "torch: no CUDA
device: ..." and exits 3.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

WORKLOADS = ["chain", "fanout", "mlp", "mlp_train", "matmul"]
NODES = 10000  # chain length and fan-out width, as in executor_bench.cc
MATMUL_N = 1024
TRAIN_BATCH = 100  # BM_MlpTrainStep/100
LEARNING_RATE = 0.01


def make_chain(torch):
    x0 = torch.zeros(())
    one = torch.ones(())

    def step():
        x = x0
        for _ in range(NODES):
            x = x + one
        return x

    return step


def make_fanout(torch):
    x = torch.zeros(())
    one = torch.ones(())

    def step():
        level = [x + one for _ in range(NODES)]
        while len(level) > 1:
            level = [
                level[i] if i + 1 == len(level) else
                torch.stack(level[i:i + 16]).sum(0)
                for i in range(0, len(level), 16)
            ]
        return level[0]

    return step


def make_mlp(torch):
    import torch.nn.functional as F

    def weights(rows, cols):
        # The values executor_bench.cc uses (a cheap chaotic sequence); for
        # F.linear the weight is [out, in], so fill [in, out] and transpose.
        values, v = [], 0.01
        for _ in range(rows * cols):
            v = v * 1.37 - int(v * 1.37)
            values.append(v * 0.1)
        w = torch.tensor(values, dtype=torch.float32).reshape(rows, cols)
        return w.t().contiguous()

    x = torch.full((100, 784), 0.5)
    w1, b1 = weights(784, 500), torch.zeros(500)
    w2, b2 = weights(500, 10), torch.zeros(10)

    def step():
        h = F.relu(F.linear(x, w1, b1))
        return F.softmax(F.linear(h, w2, b2), dim=1)

    return step


def make_mlp_train(torch, device="cpu", batch=TRAIN_BATCH):
    import torch.nn.functional as F

    torch.manual_seed(1)  # 1.13's trunc_normal_ takes no generator

    def weights(rows, cols):
        # The seed's truncated normal(0.1): values beyond two standard
        # deviations redrawn, which is trunc_normal_ on [-0.2, 0.2].
        # For F.linear the weight is [out, in].
        w = torch.empty(cols, rows)
        torch.nn.init.trunc_normal_(w, std=0.1, a=-0.2, b=0.2)
        return w.to(device).requires_grad_()

    # training_bench.cc's FillBatch: pixels ((i * 7919) mod 1000) / 1000,
    # labels i mod 10.
    i = torch.arange(batch * 784, dtype=torch.int64)
    x = ((i * 7919) % 1000).to(torch.float32).div_(1000).reshape(
        batch, 784).to(device)
    labels = (torch.arange(batch, dtype=torch.int64) % 10).to(device)
    w1 = weights(784, 500)
    b1 = torch.zeros(500, device=device, requires_grad=True)
    w2 = weights(500, 10)
    b2 = torch.zeros(10, device=device, requires_grad=True)
    # On a GPU every call waits for its kernels: time per step, not per
    # enqueue (and the loss is read only after the step finished).
    sync = (torch.cuda.synchronize if str(device).startswith("cuda")
            else (lambda: None))
    optimizer = torch.optim.SGD([w1, b1, w2, b2], lr=LEARNING_RATE)

    def loss_now():
        with torch.no_grad():
            h = F.relu(F.linear(x, w1, b1))
            return float(F.cross_entropy(F.linear(h, w2, b2), labels))

    def step():
        optimizer.zero_grad(set_to_none=True)
        h = F.relu(F.linear(x, w1, b1))
        loss = F.cross_entropy(F.linear(h, w2, b2), labels)
        loss.backward()
        optimizer.step()
        sync()
        return loss

    # The loss before any step and after the timed ones (main() asks),
    # untimed: a finite loss that went down says the steps trained, the
    # check training_bench makes with its loss_before/loss_after counters.
    step.loss_before = loss_now()
    step.loss_now = loss_now
    step.params = [w1, b1, w2, b2]
    step.optimizer = optimizer
    return step


def train_step_memory(torch, step):
    """Peak bytes of one training step on the CPU, as dflow's
    RunMetadata::peak_bytes counts them (training_bench's peak_bytes): what
    the allocator holds at most during the step, the parameters included,
    the fixed batch (fed, on dflow's side) not.

    Why the profiler: tracemalloc sees only Python's allocator, not
    PyTorch's C++ one; ru_maxrss is the process's high-water mark, set by
    importing torch (hundreds of MB) and by OpenBLAS's buffers, so a step of
    a few MB disappears in it and a delta in a fresh process still counts
    page-granular, never-returned heap. torch.profiler with profile_memory
    records every allocation and free of c10's CPU allocator with its size,
    which is what dflow's TrackingAllocator counts. The step starts with no
    gradients held (zero_grad(set_to_none=True) before profiling: the
    profiler cannot size frees of blocks allocated before it started), so
    the peak is the parameters plus the highest running sum of the step's
    allocations and frees. Returns {} when the profiler gives no memory
    events (another torch version)."""
    from torch.profiler import ProfilerActivity, profile

    step.optimizer.zero_grad(set_to_none=True)
    with profile(activities=[ProfilerActivity.CPU],
                 profile_memory=True) as prof:
        step()
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]"]
    if not events:
        return {}
    live = peak = 0
    for e in sorted(events, key=lambda e: e.start_us()):
        live += e.nbytes()
        peak = max(peak, live)
    params = sum(p.numel() * p.element_size() for p in step.params)
    return {"peak_bytes": params + peak, "resident_bytes": params,
            "allocations": sum(1 for e in events if e.nbytes() > 0)}


def make_matmul(torch, device="cpu", n=MATMUL_N):
    gen = torch.Generator().manual_seed(1)
    a = (torch.rand(n, n, generator=gen) * 2 - 1).to(device)
    b = (torch.rand(n, n, generator=gen) * 2 - 1).to(device)
    sync = (torch.cuda.synchronize if str(device).startswith("cuda")
            else (lambda: None))

    def step():
        c = torch.mm(a, b)
        sync()
        return c

    return step


def measure(step, repetitions, min_time):
    """[(wall s per call, CPU s per call)] per repetition, after a warm-up."""
    step()
    reps = []
    for _ in range(repetitions):
        calls = 0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while True:
            step()
            calls += 1
            wall = time.perf_counter() - wall0
            if wall >= min_time:
                break
        cpu = time.process_time() - cpu0
        reps.append((wall / calls, cpu / calls, calls))
    return reps


def blas_library():
    """The BLAS shared library this process loaded (Debian's torch reaches
    whichever libblas.so.3 the alternatives system points at)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line}
    except OSError:
        return None
    return ", ".join(sorted(os.path.realpath(p) for p in paths)) or None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.3,
                        help="seconds per repetition (at least one call)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--json", help="write the results here too")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="cuda: mlp_train on GPU 0 (see the docstring)")
    parser.add_argument("--batch", type=int, default=TRAIN_BATCH,
                        help="mlp_train's batch")
    parser.add_argument("--matmul-n", type=int, default=MATMUL_N,
                        help="matmul's size (n x n times n x n)")
    parser.add_argument("--tf32", action="store_true",
                        help="cuda: allow TF32 matmuls")
    args = parser.parse_args()
    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            parser.error("unknown workload '%s' (known: %s)"
                         % (w, ",".join(WORKLOADS)))
    if args.batch < 1:
        parser.error("--batch must be >= 1")
    if args.matmul_n < 1:
        parser.error("--matmul-n must be >= 1")
    if args.device == "cuda" and not set(workloads) <= {"mlp_train",
                                                        "matmul"}:
        parser.error("--device cuda runs only mlp_train and matmul")

    # Debian's torch calls OpenBLAS through the generic BLAS interface, so
    # torch.set_num_threads does not reach it: OpenBLAS (and OpenMP) read
    # their thread counts from the environment when the library loads.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    # With 2 threads, OpenMP's workers spin-wait after each parallel region
    # (Relu, Softmax) on the cores OpenBLAS's own threads then need: the
    # MLP took 20-60 ms instead of ~2.2 ms on the 2-core machine. Passive
    # waiting measures PyTorch's compute rather than that contention.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch  # after argument checks: importing takes seconds

    if args.device == "cuda":
        if not torch.cuda.is_available():
            print("torch: no CUDA device: torch %s, built with CUDA %s, "
                  "torch.cuda.is_available() is False"
                  % (torch.__version__, torch.version.cuda), flush=True)
            return 3
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32

    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(args.threads)
    except RuntimeError as e:  # only allowed before any inter-op work
        print("set_num_interop_threads: %s" % e, file=sys.stderr)

    makers = {"chain": make_chain, "fanout": make_fanout, "mlp": make_mlp,
              "mlp_train": (lambda t: make_mlp_train(t, args.device,
                                                     args.batch)),
              "matmul": (lambda t: make_matmul(t, args.device,
                                               args.matmul_n))}
    results = []
    for name in workloads:
        # Autograd only where the workload trains: the others are
        # inference, as dflow's graphs there have no backward pass.
        grad_mode = (torch.enable_grad() if name == "mlp_train"
                     else torch.no_grad())
        with grad_mode:
            step = makers[name](torch)
            reps = measure(step, args.repetitions, args.min_time)
            wall = statistics.median(r[0] for r in reps)
            cpu = statistics.median(r[1] for r in reps)
            r = {"workload": name, "threads": args.threads,
                 "wall_s_per_call": wall, "cpu_s_per_call": cpu,
                 "repetitions": len(reps),
                 "calls_per_repetition": [r[2] for r in reps],
                 "wall_s_per_call_all": [r[0] for r in reps]}
            if name in ("chain", "fanout"):
                r["us_per_node"] = wall / NODES * 1e6
                r["cpu_us_per_node"] = cpu / NODES * 1e6
                text = "%.3f us per node (%.2f ms per step)" % (
                    r["us_per_node"], wall * 1e3)
            elif name == "mlp":
                r["ms"] = wall * 1e3
                r["cpu_ms"] = cpu * 1e3
                text = "%.3f ms per forward pass" % r["ms"]
            elif name == "mlp_train":
                r["ms"] = wall * 1e3
                r["cpu_ms"] = cpu * 1e3
                r["examples_per_s"] = args.batch / wall
                r["batch"] = args.batch
                r["device"] = args.device
                r["loss_before"] = step.loss_before
                r["loss_after"] = step.loss_now()
                if args.device == "cpu":
                    try:
                        r.update(train_step_memory(torch, step))
                    except Exception as e:  # the profiler is optional
                        print("train step memory: %s" % e, file=sys.stderr)
                text = ("%.3f ms per step (%.0f examples/s; loss %.3f before,"
                        " %.3f after)" % (r["ms"], r["examples_per_s"],
                                          r["loss_before"], r["loss_after"]))
                if "peak_bytes" in r:
                    text += "; peak %.0f KB (%.0f KB parameters)" % (
                        r["peak_bytes"] / 1e3, r["resident_bytes"] / 1e3)
            else:
                flops = 2.0 * args.matmul_n ** 3
                r["n"] = args.matmul_n
                r["gflops"] = flops / wall * 1e-9
                r["cpu_gflops"] = flops / cpu * 1e-9 if cpu > 0 else None
                text = "%.1f GFLOP/s (%.2f ms per product)" % (
                    r["gflops"], wall * 1e3)
            results.append(r)
            where = ("" if args.device == "cpu" else
                     " device=%s batch=%d" % (args.device, args.batch))
            print("torch %-9s threads=%d%s  %s" % (name, args.threads, where,
                                                  text), flush=True)

    context = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "num_threads": torch.get_num_threads(),
        "num_interop_threads": torch.get_num_interop_threads(),
        "cpus": os.cpu_count(),
        "load_avg": list(os.getloadavg()),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
        "blas_library": blas_library(),
        "parallel_info": torch.__config__.parallel_info(),
        "blas": [line.strip() for line in torch.__config__.show().splitlines()
                 if "BLAS" in line or "LAPACK" in line],
    }
    if args.device == "cuda":
        context["cuda_device"] = torch.cuda.get_device_name(0)
        context["cuda"] = torch.version.cuda
        context["tf32"] = args.tf32
    doc = {"context": context, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
