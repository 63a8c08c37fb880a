#!/usr/bin/env python3
"""Side-by-side table of dflow (bench/executor_bench, bench/training_bench,
bench/matmul_bench, bench/compile_bench, bench/graph_bench) and PyTorch
(bench/torch_peer.py) for bench/compare_torch.sh, then one machine-readable
line per figure:

  metric <name> dflow=<value> torch=<value> unit=<unit>

Names are stable across versions (tools read them): chain_us_per_node,
fanout_us_per_node, mlp_forward_ms, mlp_train_step_ms,
mlp_train_examples_per_s, matmul1024_gflops and matmul1024_pct_of_blas
(each side's GFLOP/s as a percentage of cblas_sgemm called directly with
the same thread count, from matmul_bench), each with the suffix
_t<threads>; and the memory of the MLP training step (training_bench's
counters, torch_peer.py's train_step_memory): mlp_train_peak_kb (measured
peak, parameters included, the fed batch not), mlp_train_step_peak_kb (the
same less what was held before the step) and mlp_train_planned_step_peak_kb
(dflow: memory planning's figure for the step's tensors; PyTorch: its
measured step peak), _t<threads> too. Compile figures have no PyTorch side
(torch=nan, shown n/a): compile_10k_ms, compile_100k_ms, compile_1m_ms
(compile_bench's BM_Compile total: prune to device-specific passes, before
executors), compile_linearity (per-node time at the largest size over that
at 10k, by the compile thread's CPU time when compile_bench reports it;
1.0 is linear), compile_<size>_<stage>_ms per stage (and, below the table only, each
pass's time at the largest size),
session_first_run_<size>_ms (Session::Create + first Run, BM_SessionFirstRun),
graphdef_parse_1m_ms and graphdef_serialize_1m_ms (graph_bench's binary
chain of 1M nodes), each with _t1 (they run on one thread).

  summarize_compare_torch.py --executor 1=executor_t1.json
      --executor 2=executor_t2.json --training 1=training_t1.json
      --training 2=training_t2.json --matmul matmul.json
      --compile compile.json --graph graph.json
      --torch torch_t1.json --torch torch_t2.json [--markdown]

--executor and --training are Google Benchmark's JSON from executor_bench
and training_bench run with DFLOW_NUM_THREADS=<threads> (any benchmark
named below is taken from either); --matmul the JSON of matmul_bench, which sweeps
threads itself (benchmarks named dflow/1024x1024x1024/threads:N); --torch
the peer's --json output (it records its thread count). Every figure is the
median over repetitions; dflow's per-node figures are the median real time
per step divided by 10,000 (not executor_bench's us_per_node counter, which
is CPU time). Only standard-library Python: any python3 runs it.
"""

import argparse
import json
import math
import sys

NODES = 10000
MATMUL = "1024x1024x1024"

# key, table label, unit, lower_is_better, goal (text, test on dflow's value;
# with a third element "ratio", the test is on dflow's value / PyTorch's)
FIGURES = [
    ("chain_us_per_node", "chain of 10,000 scalar adds", "us/node", True,
     ("<= 0.2", lambda v: v <= 0.2)),
    ("fanout_us_per_node", "fan-out 10,000 adds, 16-way sum tree", "us/node",
     True, None),
    ("mlp_forward_ms", "MLP forward 784-500-10, batch 100", "ms", True, None),
    ("mlp_train_step_ms", "MLP train step 784-500-10, batch 100", "ms", True,
     None),
    ("mlp_train_examples_per_s", "MLP train step, examples/s", "examples/s",
     False, (">= 1.7x PyTorch", lambda r: r >= 1.7, "ratio")),
    ("matmul1024_gflops", "MatMul 1024^3 float32", "GFLOP/s", False, None),
    ("matmul1024_pct_of_blas", "MatMul 1024^3, % of cblas_sgemm", "%", False,
     (">= 95", lambda v: v >= 95)),
    ("mlp_train_peak_kb", "MLP train step, peak memory (with params)", "KB",
     True, None),
    ("mlp_train_step_peak_kb", "MLP train step, peak less params", "KB",
     True, None),
    ("mlp_train_planned_step_peak_kb",
     "MLP train step, planned (dflow) vs step peak", "KB", True, None),
    ("compile_10k_ms", "compile 10k nodes, 4 CPU devices", "ms", True, None),
    ("compile_100k_ms", "compile 100k nodes", "ms", True, None),
    ("compile_1m_ms", "compile 1M nodes", "ms", True,
     ("<= 1000", lambda v: v <= 1000)),
    ("compile_linearity", "compile per-node CPU time, largest / 10k", "x",
     True,
     ("<= 1.5 (linear)", lambda v: v <= 1.5)),
    ("session_first_run_10k_ms", "Session::Create + first Run, 10k", "ms",
     True, None),
    ("session_first_run_100k_ms", "Session::Create + first Run, 100k", "ms",
     True, None),
    ("graphdef_parse_1m_ms", "GraphDef parse, binary, 1M-node chain", "ms",
     True, None),
    ("graphdef_serialize_1m_ms", "GraphDef serialize, binary, 1M chain", "ms",
     True, None),
]
# Figures with no PyTorch counterpart: the table says n/a.
DFLOW_ONLY = ("compile_", "session_first_run_", "graphdef_")
# compile_bench's counters, in pipeline order (BM_Compile's stages).
COMPILE_STAGES = ["prune", "indep", "place", "partition",
                  "specific"]
COMPILE_SIZES = {10000: "10k", 100000: "100k", 1000000: "1m"}
UNIT_NAMES = {"us/node": "us", "ms": "ms", "examples/s": "examples/s",
              "GFLOP/s": "GFLOP/s", "%": "%", "KB": "KB", "x": "x"}
# Google Benchmark names (executor_bench, training_bench) -> figure.
EXECUTOR = {"BM_ChainOfScalarAdds/10000": "chain_us_per_node",
            "BM_FanOutFanIn/10000": "fanout_us_per_node",
            "BM_MlpForward/100": "mlp_forward_ms",
            "BM_MlpTrainStep/100/real_time": "mlp_train_step_ms"}
TRAIN_BATCH = 100  # BM_MlpTrainStep/100, torch_peer.py's mlp_train
# Short names for the busy-machine check line.
SHORT = {"chain_us_per_node": "chain", "fanout_us_per_node": "fanout",
         "mlp_forward_ms": "mlp", "mlp_train_step_ms": "mlp_train",
         "matmul1024_gflops": "matmul"}
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def medians(doc):
    """name -> benchmark entry: the median aggregate, else the single run."""
    out = {}
    for b in doc.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                out[name] = b
        elif name not in out:
            out[name] = b
    return out


def seconds(b, field):
    return b[field] * SCALE[b.get("time_unit", "ns")]


def per_figure(key, wall_s):
    """A step time in seconds as the figure's unit."""
    return wall_s * 1e6 / NODES if key.endswith("us_per_node") else wall_s * 1e3


def parse_threads_path(text, parser):
    threads, sep, path = text.partition("=")
    if not sep or not threads.isdigit():
        parser.error("expected THREADS=PATH, got '%s'" % text)
    return int(threads), path


def fmt(v, missing="-"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return missing
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def metric_value(v):
    if v is None:
        return "nan"
    return "%.4g" % v


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--executor", action="append", default=[],
                        metavar="THREADS=PATH")
    parser.add_argument("--training", action="append", default=[],
                        metavar="THREADS=PATH")
    parser.add_argument("--matmul")
    parser.add_argument("--compile", help="compile_bench's JSON")
    parser.add_argument("--graph", help="graph_bench's JSON (Parse, "
                        "Serialize of binary_chain/1000000)")
    parser.add_argument("--torch", action="append", default=[],
                        metavar="PATH")
    parser.add_argument("--markdown", action="store_true",
                        help="the table as Markdown (for README.md)")
    args = parser.parse_args()

    # (key, threads) -> {"wall": figure, "cpu": figure or None}
    dflow, torch, blas = {}, {}, {}
    # (side, threads) -> (loss before the first train step, after the timed)
    train_loss = {}
    contexts = {}
    errors = []
    for flag, text in ([("executor", t) for t in args.executor]
                       + [("training", t) for t in args.training]):
        threads, path = parse_threads_path(text, parser)
        with open(path) as f:
            doc = json.load(f)
        contexts["%s_bench t%d" % (flag, threads)] = doc.get("context", {})
        for name, b in medians(doc).items():
            key = EXECUTOR.get(name)
            if key is None:
                continue
            if b.get("error_occurred"):
                errors.append("dflow %s t%d: %s" % (
                    name, threads, b.get("error_message", "?")))
                continue
            dflow[key, threads] = {
                "wall": per_figure(key, seconds(b, "real_time")),
                "cpu": per_figure(key, seconds(b, "cpu_time"))}
            if "loss_before" in b and "loss_after" in b:
                train_loss["dflow", threads] = (b["loss_before"],
                                                b["loss_after"])
            if "peak_bytes" in b:
                peak = b["peak_bytes"] / 1e3
                dflow["mlp_train_peak_kb", threads] = {"wall": peak,
                                                       "cpu": None}
                if "resident_bytes" in b:
                    dflow["mlp_train_step_peak_kb", threads] = {
                        "wall": peak - b["resident_bytes"] / 1e3,
                        "cpu": None}
            if "planned_peak_bytes" in b:
                dflow["mlp_train_planned_step_peak_kb", threads] = {
                    "wall": b["planned_peak_bytes"] / 1e3, "cpu": None}
    if args.matmul:
        with open(args.matmul) as f:
            doc = json.load(f)
        contexts["matmul_bench"] = doc.get("context", {})
        for name, b in medians(doc).items():
            parts = name.split("/")  # dflow/1024x1024x1024/threads:2[/...]
            if (len(parts) < 3 or parts[1] != MATMUL
                    or not parts[2].startswith("threads:")):
                continue
            threads = int(parts[2].split(":")[1])
            if b.get("error_occurred"):
                errors.append("%s: %s" % (name, b.get("error_message", "?")))
                continue
            gflops = b.get("GFLOP/s")
            # GFLOP/s is per wall second (UseRealTime); the CPU figure is
            # the same work per CPU second of the calling thread.
            cpu = (gflops * seconds(b, "real_time") / seconds(b, "cpu_time")
                   if gflops and b.get("cpu_time") else None)
            if parts[0] == "dflow":
                dflow["matmul1024_gflops", threads] = {"wall": gflops,
                                                       "cpu": cpu}
            elif parts[0] == "cblas":
                blas[threads] = gflops
    # size label -> {stage: ms}, for the breakdown below the table.
    stages = {}
    passes = {}  # size label -> {pass: ms} (pass_<name>_ms counters)
    if args.compile:
        with open(args.compile) as f:
            doc = json.load(f)
        contexts["compile_bench"] = doc.get("context", {})
        per_node = {}
        for name, b in medians(doc).items():
            parts = name.split("/")  # BM_Compile/1000000/manual_time
            if len(parts) < 2 or not parts[1].isdigit():
                continue
            size = COMPILE_SIZES.get(int(parts[1]))
            if size is None:
                continue
            if b.get("error_occurred"):
                errors.append("%s: %s" % (name, b.get("error_message", "?")))
                continue
            ms = seconds(b, "real_time") * 1e3
            if parts[0] == "BM_Compile":
                cpu_ms = b.get("total_cpu_ms")
                dflow["compile_%s_ms" % size, 1] = {"wall": ms,
                                                     "cpu": cpu_ms}
                # Linearity from CPU time where there is one: other
                # processes on the machine stretch wall time unevenly.
                per_node[int(parts[1])] = (cpu_ms or ms) / int(parts[1])
                stages[size] = {st: b.get(st + "_ms") for st in
                                COMPILE_STAGES}
                passes[size] = {k[len("pass_"):-len("_ms")]: v
                                for k, v in b.items()
                                if k.startswith("pass_") and
                                k.endswith("_ms")}
                for st, v in stages[size].items():
                    if v is not None:
                        dflow["compile_%s_%s_ms" % (size, st), 1] = {
                            "wall": v, "cpu": None}
            elif parts[0] == "BM_SessionFirstRun":
                dflow["session_first_run_%s_ms" % size, 1] = {
                    "wall": ms, "cpu": None}
        if 10000 in per_node and len(per_node) > 1:
            largest = max(per_node)
            dflow["compile_linearity", 1] = {
                "wall": per_node[largest] / per_node[10000], "cpu": None}
    if args.graph:
        with open(args.graph) as f:
            doc = json.load(f)
        for name, b in medians(doc).items():
            parts = name.split("/")  # BM_Parse/binary_chain/1000000/real_time
            if (len(parts) < 3 or parts[1] != "binary_chain"
                    or parts[2] != "1000000"):
                continue
            key = {"BM_Parse": "graphdef_parse_1m_ms",
                   "BM_Serialize": "graphdef_serialize_1m_ms"}.get(parts[0])
            if key is None:
                continue
            if b.get("error_occurred"):
                errors.append("%s: %s" % (name, b.get("error_message", "?")))
                continue
            dflow[key, 1] = {"wall": seconds(b, "real_time") * 1e3,
                             "cpu": None}
    torch_context = {}
    for path in args.torch:
        with open(path) as f:
            doc = json.load(f)
        torch_context = doc.get("context", torch_context)
        for r in doc.get("results", []):
            t = r["threads"]
            if r["workload"] == "chain":
                torch["chain_us_per_node", t] = {
                    "wall": r["us_per_node"], "cpu": r["cpu_us_per_node"]}
            elif r["workload"] == "fanout":
                torch["fanout_us_per_node", t] = {
                    "wall": r["us_per_node"], "cpu": r["cpu_us_per_node"]}
            elif r["workload"] == "mlp":
                torch["mlp_forward_ms", t] = {"wall": r["ms"],
                                              "cpu": r["cpu_ms"]}
            elif r["workload"] == "mlp_train":
                torch["mlp_train_step_ms", t] = {"wall": r["ms"],
                                                 "cpu": r["cpu_ms"]}
                if "loss_before" in r and "loss_after" in r:
                    train_loss["PyTorch", t] = (r["loss_before"],
                                                r["loss_after"])
                if "peak_bytes" in r:
                    peak = r["peak_bytes"] / 1e3
                    step = peak - r.get("resident_bytes", 0) / 1e3
                    torch["mlp_train_peak_kb", t] = {"wall": peak,
                                                     "cpu": None}
                    torch["mlp_train_step_peak_kb", t] = {"wall": step,
                                                          "cpu": None}
                    torch["mlp_train_planned_step_peak_kb", t] = {
                        "wall": step, "cpu": None}
            elif r["workload"] == "matmul":
                torch["matmul1024_gflops", t] = {"wall": r["gflops"],
                                                 "cpu": r.get("cpu_gflops")}
    for side in (dflow, torch):
        for (key, t), v in list(side.items()):
            if key == "matmul1024_gflops" and blas.get(t):
                side["matmul1024_pct_of_blas", t] = {
                    "wall": 100 * v["wall"] / blas[t], "cpu": None}
            if key == "mlp_train_step_ms" and v["wall"]:
                # From the median step time, the same on both sides.
                side["mlp_train_examples_per_s", t] = {
                    "wall": TRAIN_BATCH / (v["wall"] * 1e-3), "cpu": None}

    threads_seen = sorted({t for _, t in dflow} | {t for _, t in torch})
    rows, row_keys, metrics = [], [], []
    for key, label, unit, lower_better, goal in FIGURES:
        for t in threads_seen:
            d, p = dflow.get((key, t)), torch.get((key, t))
            if d is None and p is None:
                continue
            dw = d["wall"] if d else None
            pw = p["wall"] if p else None
            torch_text = fmt(pw, "n/a" if key.startswith(DFLOW_ONLY)
                             else "-")
            speedup = cpu_speedup = ""
            if dw and pw:
                speedup = "%.2fx" % ((pw / dw) if lower_better else (dw / pw))
            # CPU time is only comparable when each side runs on one thread.
            if t == 1 and d and p and d.get("cpu") and p.get("cpu"):
                dc, pc = d["cpu"], p["cpu"]
                cpu_speedup = "%.2fx" % ((pc / dc) if lower_better
                                         else (dc / pc))
            goal_text = ""
            on_ratio = goal is not None and len(goal) > 2
            if goal and dw is not None and (not on_ratio or pw):
                value = dw / pw if on_ratio else dw
                goal_text = "%s: %s" % (goal[0],
                                        "met" if goal[1](value) else "missed")
                if on_ratio:
                    goal_text = "%.2fx, %s" % (value, goal_text)
            row_label = label
            if key == "matmul1024_pct_of_blas" and blas.get(t):
                row_label = "%s (%.0f GFLOP/s)" % (label, blas[t])
            if key in ("matmul1024_pct_of_blas", "mlp_train_examples_per_s"):
                # The GFLOP/s row, and the train step's ms row, have the
                # ratio.
                speedup = cpu_speedup = ""
            row_keys.append(key)
            rows.append((row_label, str(t), unit, fmt(dw), torch_text,
                         speedup, cpu_speedup, goal_text))
            metrics.append("metric %s_t%d dflow=%s torch=%s unit=%s" % (
                key, t, metric_value(dw), metric_value(pw), UNIT_NAMES[unit]))

    for (key, t), v in sorted(dflow.items()):
        if key.startswith("compile_") and key.count("_") == 3:
            # compile_<size>_<stage>_ms: metric lines, and the breakdown.
            metrics.append("metric %s_t%d dflow=%s torch=nan unit=ms" % (
                key, t, metric_value(v["wall"])))

    header = ("workload", "threads", "unit", "dflow", "PyTorch",
              "dflow speedup", "(by CPU)", "dflow goal")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] * 3 + ["---:"] * 4 + ["---"]) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        fmt_row = "  ".join(("%%-%ds" if i in (0, 2, 7) else "%%%ds") % w
                            for i, w in enumerate(widths))
        print((fmt_row % header).rstrip())
        print("  ".join("-" * w for w in widths))
        previous = None
        for key, r in zip(row_keys, rows):
            if previous is not None and key != previous:
                print()
            previous = key
            print((fmt_row % r).rstrip())
    print()
    if stages:
        print("compile stages, ms (BM_Compile, the median run): " +
              "; ".join("%s: %s" % (size, ", ".join(
                  "%s %s" % (st, fmt(v)) for st, v in parts.items()
                  if v is not None))
                        for size, parts in sorted(
                            stages.items(),
                            key=lambda kv: list(COMPILE_SIZES.values())
                            .index(kv[0]))))
    if any(passes.values()):
        # The largest size: where a pass that does not scale shows.
        size = max((k for k, v in passes.items() if v),
                   key=lambda k: list(COMPILE_SIZES.values()).index(k))
        print("compile passes at %s nodes, ms (indep and specific, summed "
              "over partitions): %s" % (size, ", ".join(
                  "%s %s" % (name, fmt(v)) for name, v in sorted(
                      passes[size].items(), key=lambda kv: -kv[1]))))
    print("dflow speedup: PyTorch's time / dflow's (GFLOP/s: dflow's / "
          "PyTorch's; memory: PyTorch's bytes / dflow's); above 1x dflow is "
          "faster (smaller). (by CPU): the same per CPU "
          "second, 1-thread rows only (steadier on a busy machine).")
    print("dflow: Session::Run of the whole graph per step (executor_bench, "
          "training_bench; DFLOW_NUM_THREADS=N); the MatMul kernel alone "
          "(matmul_bench). PyTorch: eager, set_num_threads(N), "
          "torch.no_grad() except the train step (autograd, optim.SGD).")
    checks = []
    for (key, t), v in sorted(dflow.items()):
        if t == 1 and v.get("cpu") and key in SHORT:
            r = (v["wall"] / v["cpu"] if key.endswith(("_ms", "_node"))
                 else v["cpu"] / v["wall"])
            checks.append("%s %.2f" % (SHORT[key], r))
    if checks:
        print("Busy-machine check, dflow 1-thread wall/CPU time (1.00: it had "
              "a core to itself): " + ", ".join(checks))
    ctx = contexts.get("executor_bench t1") or next(iter(contexts.values()),
                                                    {})
    if ctx:
        print("dflow: %s CPUs at %s MHz, load average %s at start "
              "(executor_bench)" % (
                  ctx.get("num_cpus", "?"), ctx.get("mhz_per_cpu", "?"),
                  " ".join("%.2f" % x for x in ctx.get("load_avg", []))
                  or "?"))
    if torch_context:
        print("PyTorch %s, Python %s, BLAS %s, OMP_WAIT_POLICY=%s" % (
            torch_context.get("torch"), torch_context.get("python"),
            torch_context.get("blas_library") or "?",
            torch_context.get("OMP_WAIT_POLICY")))
    if train_loss:
        # Each side trains on one fixed batch: a finite loss that went down
        # says its timed steps did train.
        print("MLP train step, loss of the fixed batch before the first "
              "step -> after the timed ones: " +
              ", ".join("%s t%d %.3f -> %.3f" % (side, t, v[0], v[1])
                        for (side, t), v in sorted(train_loss.items())))
    for e in errors:
        print("error: " + e)
    print()
    for m in metrics:
        print(m)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
