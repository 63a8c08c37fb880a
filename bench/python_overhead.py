#!/usr/bin/env python3
"""dflow from Python: per-call overhead and a training step, against
TensorFlow's Python Session and dflow's C++ Session.

Figures (one line each, `metric <name> <key>=<value> ...`):
  trivial_run_us   Session.run of a trivial graph from Python (feed a float
                   scalar, fetch its Identity; and fetch a constant), dflow
                   vs tf.compat.v1.Session, microseconds per call (median of
                   repeats). Goal: dflow >= 3x less.
  mlp_step_ms      one training step of the seed MLP (4 towers, written by
                   TensorFlow: tools/tf_reference/make_corpus.py --only
                   mlp_towers) driven from Python (dflow.Session.run with
                   NumPy feeds, fetching the loss) vs from C++
                   (bench/tf_training_bench, the same protocol), per thread
                   count. Goal: Python <= 10% slower.

Usage (after `bazel build //python:dflow //bench:tf_training_bench`):
  PYTHONPATH=bazel-bin/python python3 bench/python_overhead.py
Each figure is measured in a process of its own (dflow's and TensorFlow's
thread pools are process-wide).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# x (float scalar placeholder) -> y = Identity(x); c = Const 1.0. Text, so
# that the dflow process need not import TensorFlow (which, imported into a
# process, slows dflow's steps there: its thread pools spin on the cores).
TRIVIAL_GRAPH = (
    'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: '
    'DT_FLOAT } } attr { key: "shape" value { shape { } } } }\n'
    'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { '
    'type: DT_FLOAT } } }\n'
    'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT '
    '} } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { '
    '} float_val: 1 } } } }\n')


def per_call_us(fn, calls, repeats):
    for _ in range(calls // 10):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def mode_trivial(system, calls, repeats):
    if system == "dflow":
        import dflow
        sess = dflow.Session(TRIVIAL_GRAPH.encode(), threads=1)
        feed_name, fetch, const = "x:0", "y:0", "c:0"
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        from google.protobuf import text_format
        v1 = tf.compat.v1
        g = tf.Graph()
        with g.as_default():
            gd = text_format.Parse(TRIVIAL_GRAPH, v1.GraphDef())
            v1.import_graph_def(gd, name="")
        config = v1.ConfigProto(intra_op_parallelism_threads=1,
                                inter_op_parallelism_threads=1)
        sess = v1.Session(graph=g, config=config)
        feed_name, fetch, const = "x:0", "y:0", "c:0"
    feed = {feed_name: 1.5}
    fed = per_call_us(lambda: sess.run(fetch, feed), calls, repeats)
    constant = per_call_us(lambda: sess.run(const), calls, repeats)
    print(f"feed_fetch_us={fed:.2f} const_fetch_us={constant:.2f}",
          flush=True)
    # TensorFlow has crashed here on interpreter teardown: the figure is out.
    os._exit(0)


def read_reference(directory):
    import numpy as np
    ref = {"feeds": {}}
    with open(os.path.join(directory, "reference.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) == 2 and p[0] in ("init", "train", "loss"):
                ref[p[0]] = p[1]
            elif len(p) == 3 and p[0] == "feed":
                ref["feeds"][p[1]] = np.load(os.path.join(directory, p[2]))
    return ref


def mode_mlp(directory, threads, steps, warmup):
    """As bench/tf_training_bench.cc: load, init, warm up, time `steps`
    steps fetching the loss (median)."""
    import dflow
    ref = read_reference(directory)
    with open(os.path.join(directory, "graph.pb"), "rb") as f:
        sess = dflow.Session(f.read(), soft_placement=True, threads=threads)
    sess.run(ref["init"])
    fetches = [ref["loss"], ref["train"]]
    for _ in range(warmup + 1):
        sess.run(fetches, ref["feeds"])
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        sess.run(fetches, ref["feeds"])
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"step_ms={statistics.median(times):.4f}")


def run_child(args):
    out = subprocess.run([sys.executable, os.path.abspath(__file__)] + args,
                         capture_output=True, text=True, env=os.environ)
    if out.returncode != 0:
        raise RuntimeError(f"{args}: {out.stderr[-2000:]}")
    return out.stdout


def value(text, key):
    for part in text.split():
        if part.startswith(key + "="):
            return float(part.split("=", 1)[1])
    raise ValueError(f"no {key}= in {text!r}")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--mode", choices=["all", "trivial", "mlp"], default="all")
    p.add_argument("--system", default="dflow")
    p.add_argument("--calls", type=int, default=5000)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--corpus", default=None,
                   help="a make_corpus.py directory (default: write "
                        "mlp_towers_res with --batch_scale 4, as "
                        "bench/compare_tf.sh, or use the test corpus's "
                        "when TensorFlow is absent)")
    p.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=5,
                   help="alternations of the Python and C++ processes")
    p.add_argument("--cxx_bench",
                   default=os.path.join(ROOT, "bazel-bin/bench/tf_training_bench"))
    a = p.parse_args()
    if a.mode == "trivial":
        mode_trivial(a.system, a.calls, a.repeats)
        return
    if a.mode == "mlp":
        mode_mlp(a.corpus, a.threads[0], a.steps, a.warmup)
        return

    d = run_child(["--mode", "trivial", "--system", "dflow", "--calls",
                   str(a.calls), "--repeats", str(a.repeats)])
    import importlib.util
    has_tf = importlib.util.find_spec("tensorflow") is not None
    t = run_child(["--mode", "trivial", "--system", "tf", "--calls",
                   str(a.calls), "--repeats", str(a.repeats)]) if has_tf else ""
    for key in ("feed_fetch_us", "const_fetch_us"):
        dv = value(d, key)
        if t:
            tv = value(t, key)
            print(f"metric trivial_run_us {key} dflow={dv:.2f} tf={tv:.2f} "
                  f"tf/dflow={tv / dv:.2f}x")
        else:
            print(f"metric trivial_run_us {key} dflow={dv:.2f} "
                  "tf=(tensorflow absent)")

    corpus = a.corpus
    if corpus is None:
        corpus = os.path.join(ROOT, "tests/testdata/tf_corpus/mlp_towers_res")
        if has_tf:
            tmp = tempfile.mkdtemp(prefix="dflow_python_bench.")
            subprocess.run(
                [sys.executable,
                 os.path.join(ROOT, "tools/tf_reference/make_corpus.py"),
                 "--out", tmp, "--only", "mlp_towers", "--styles", "res",
                 "--batch_scale", "4"], check=True, capture_output=True)
            corpus = os.path.join(tmp, "mlp_towers_res")
    print(f"corpus: {corpus}")
    if not os.path.exists(a.cxx_bench):
        print(f"no {a.cxx_bench}: bazel build //bench:tf_training_bench")
    for threads in a.threads:
        py = []
        cc = []
        # Alternate the two, a few times, so machine noise hits both.
        for _ in range(a.rounds):
            py.append(value(run_child(
                ["--mode", "mlp", "--corpus", corpus, "--threads",
                 str(threads), "--steps", str(a.steps), "--warmup",
                 str(a.warmup)]), "step_ms"))
            if os.path.exists(a.cxx_bench):
                out = subprocess.run(
                    [a.cxx_bench, "--dir", corpus, "--threads", str(threads),
                     "--steps", str(a.steps), "--warmup", str(a.warmup)],
                    capture_output=True, text=True, check=True).stdout
                cc.append(value(out, "step_ms"))
        pv = statistics.median(py)
        if cc:
            cv = statistics.median(cc)
            print(f"metric mlp_step_ms threads={threads} python={pv:.3f} "
                  f"cxx={cv:.3f} python/cxx={pv / cv:.3f}")
        else:
            print(f"metric mlp_step_ms threads={threads} python={pv:.3f}")


if __name__ == "__main__":
    main()
