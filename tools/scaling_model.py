#!/usr/bin/env python3
"""A scaling-efficiency model of synchronous data-parallel training with
all-reduced gradients (docs/scaling.md), checked against Horovod's published
128- and 512-GPU figures.

One training step on each of N GPUs: the forward pass, then the backward
pass, which produces the gradients in reverse layer order. Gradients are
packed into fusion buffers (dflow's tensor_fusion pass, Horovod's tensor
fusion) and each full buffer is all-reduced while the backward pass goes on
(overlap); the step ends when the backward pass and the last all-reduce are
done (the optimizer update is folded into the compute time), on the
slowest GPU's clock (stragglers: JITTER_SIGMA). One all-reduce
of b bytes over N GPUs in servers of G GPUs costs

    ring: 2 (N - 1) alpha + 2 (N - 1) / N * b / B
    tree: 2 log2(N) alpha + 2 b / B        (NCCL's double binary tree)

where B is the slowest link's bandwidth (the server's NIC once N > G, the
server's PCIe otherwise) and alpha the latency per hop. Scaling efficiency
is the single GPU's step time over the N-GPU step time (images per second
per GPU, relative).

    tools/scaling_model.py            # the tables of docs/scaling.md
    tools/scaling_model.py --check    # exit 1 unless the model is within
                                      # 5 points of Horovod's 128- and
                                      # 512-GPU figures
"""
import argparse
import math
import sys

# Horovod's benchmark (docs/benchmarks.rst of horovod/horovod): 128 servers
# of 4 Pascal (P100) GPUs, RoCE 25 Gbit/s, tf_cnn_benchmarks at batch 64 per
# GPU: 90% for Inception V3 and ResNet-101, 68% for VGG-16 at 512 GPUs.
# Its earlier README: 32 such servers (128 GPUs): 90%, 90% and 79%.
HOROVOD = {
    512: {"inception_v3": 0.90, "resnet101": 0.90, "vgg16": 0.68},
    128: {"inception_v3": 0.90, "resnet101": 0.90, "vgg16": 0.79},
}

# Per model: parameters (millions), one P100's images/s at batch 64
# (TensorFlow's published tf_cnn_benchmarks figures; ResNet-101 between its
# ResNet-50 and ResNet-152), gradient tensors, and when the backward pass
# produces the gradient bytes: (fraction of backward time, cumulative
# fraction of bytes) points. VGG-16's fully connected layers hold 89% of its
# weights and come first (cheap to differentiate); ResNet-101's last stage
# and classifier a third; Inception V3's weights are spread more evenly.
MODELS = {
    "inception_v3": dict(params_m=23.8, images_per_s=142.0, tensors=196,
                         produced=[(0.0, 0.0), (0.15, 0.35), (0.6, 0.8),
                                   (1.0, 1.0)]),
    "resnet101": dict(params_m=44.5, images_per_s=129.0, tensors=314,
                      produced=[(0.0, 0.0), (0.1, 0.38), (0.8, 0.92),
                                (1.0, 1.0)]),
    "vgg16": dict(params_m=138.4, images_per_s=144.0, tensors=32,
                  produced=[(0.0, 0.0), (0.03, 0.89), (1.0, 1.0)]),
}

BATCH = 64
GPUS_PER_SERVER = 4
NIC_GBPS = 25.0 / 8 * 0.9   # 25 Gbit/s RoCE at 90% efficiency: 2.8 GB/s
PCIE_GBPS = 10.0            # inside a server
ALPHA_S = 12e-6             # per hop
FUSION_BYTES = 64 << 20     # Horovod's default fusion buffer
CYCLE_S = 5e-3              # Horovod's default cycle time
CALL_OVERHEAD_S = 1e-4      # launching one all-reduce (and agreeing on it)
# Synchronous steps wait for the slowest of N GPUs: with step-to-step compute
# jitter of relative deviation sigma, the expected maximum of N is about
# 1 + sigma * sqrt(2 ln N) times the mean.
JITTER_SIGMA = 0.025


def allreduce_seconds(nbytes, n, algorithm):
    if n == 1:
        return 0.0
    bandwidth = (NIC_GBPS if n > GPUS_PER_SERVER else PCIE_GBPS) * 1e9
    if algorithm == "ring":
        return 2 * (n - 1) * ALPHA_S + 2 * (n - 1) / n * nbytes / bandwidth
    return 2 * math.log2(n) * ALPHA_S + 2 * nbytes / bandwidth


def produced_by(fraction_of_bytes, points):
    """The fraction of backward time at which `fraction_of_bytes` of the
    gradient bytes exist (the inverse of the piecewise-linear profile)."""
    for (t0, b0), (t1, b1) in zip(points, points[1:]):
        if fraction_of_bytes <= b1:
            if b1 == b0:
                return t0
            return t0 + (t1 - t0) * (fraction_of_bytes - b0) / (b1 - b0)
    return 1.0


def bytes_produced(fraction_of_time, points):
    """The fraction of the gradient bytes that exist `fraction_of_time`
    into the backward pass (the profile itself)."""
    for (t0, b0), (t1, b1) in zip(points, points[1:]):
        if fraction_of_time <= t1:
            return b0 + (b1 - b0) * (fraction_of_time - t0) / (t1 - t0)
    return 1.0


def step_seconds(model, n, algorithm="ring", fusion="cycle",
                 fusion_bytes=FUSION_BYTES, overlap=True):
    """fusion: "cycle" (Horovod: every CYCLE_S the gradients ready so far,
    at most fusion_bytes, go in one all-reduce), "static" (dflow's
    tensor_fusion pass: fixed buffers of fusion_bytes in production order,
    each sent when full) or "none" (one all-reduce per gradient tensor)."""
    m = MODELS[model]
    compute = BATCH / m["images_per_s"]
    if n == 1:
        return compute
    compute *= 1 + JITTER_SIGMA * math.sqrt(2 * math.log(n))
    forward, backward = compute / 3, 2 * compute / 3
    total = m["params_m"] * 1e6 * 4
    profile = m["produced"] if overlap else [(0.0, 0.0), (1.0, 0.0),
                                             (1.0, 1.0)]

    def ready_at(nbytes):  # when the first nbytes of gradients exist
        return forward + backward * produced_by(nbytes / total, profile)

    def cost(nbytes):
        return CALL_OVERHEAD_S + allreduce_seconds(nbytes, n, algorithm)

    network_free = 0.0
    sent = 0.0
    if fusion == "cycle":
        tick = forward
        while sent < total * (1 - 1e-12):
            tick = max(tick + CYCLE_S, network_free)
            if backward > 0 and tick < forward + backward:
                have = total * bytes_produced((tick - forward) / backward,
                                              profile)
            else:
                have = total
            if have <= sent:
                continue
            size = min(have - sent, fusion_bytes)
            network_free = tick + cost(size)
            sent += size
    else:
        chunk = fusion_bytes if fusion == "static" else total / m["tensors"]
        while sent < total * (1 - 1e-12):
            size = min(chunk, total - sent)
            start = max(ready_at(sent + size), network_free)
            network_free = start + cost(size)
            sent += size
    return max(forward + backward, network_free)


def efficiency(model, n, **kwargs):
    return step_seconds(model, 1) / step_seconds(model, n, **kwargs)


def print_tables():
    gpus = [8, 16, 32, 64, 128, 256, 512]
    print("Scaling efficiency (%), batch 64 per GPU, 4 GPUs per server")
    print("%-14s %-30s" % ("model", "configuration") +
          "".join("%6d" % g for g in gpus))
    configs = [
        ("Horovod: ring, 5 ms cycles", dict()),
        ("ring, 64 MB static buffers", dict(fusion="static")),
        ("ring, 8 MB static buffers",
         dict(fusion="static", fusion_bytes=8 << 20)),
        ("tree, 8 MB static buffers",
         dict(algorithm="tree", fusion="static", fusion_bytes=8 << 20)),
        ("ring, no fusion", dict(fusion="none")),
        ("tree, no fusion", dict(algorithm="tree", fusion="none")),
        ("ring, 5 ms cycles, no overlap", dict(overlap=False)),
    ]
    for model in MODELS:
        for label, kwargs in configs:
            print("%-14s %-30s" % (model, label) + "".join(
                "%6.1f" % (100 * efficiency(model, g, **kwargs))
                for g in gpus))
    print()
    print("Check against Horovod (ring, 5 ms cycles, 64 MB):")
    for gpus, figures in HOROVOD.items():
        for model, published in figures.items():
            print("  %3d GPUs  %-14s model %5.1f%%  Horovod %5.1f%%" %
                  (gpus, model, 100 * efficiency(model, gpus),
                   100 * published))


def check():
    gaps = [abs(efficiency(m, gpus) - p)
            for gpus, figures in HOROVOD.items() for m, p in figures.items()]
    print("largest gap to Horovod's 128- and 512-GPU figures: %.1f points" %
          (100 * max(gaps)))
    return 0 if max(gaps) <= 0.05 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with Horovod's figures; exit 1 when "
                        "more than 5 points off")
    args = parser.parse_args()
    if args.check:
        return check()
    print_tables()
    return 0


if __name__ == "__main__":
    sys.exit(main())
