#!/usr/bin/env bash
# Fills gpu_carry/ (git-ignored) with what tools/gpu_device_check.sh needs on
# the GPU machine: the bundle (tools/gpu_bundle.sh) and a Fashion-MNIST
# subset for the towers example (the first TRAIN_IMAGES training images and
# as many test images, at most 10000). The device tool's 64 MiB counts the
# repository's own files too: tools/gpu_tree_aside.sh makes room for it.
#
#   tools/gpu_prepare_carry.sh [TRAIN_IMAGES] [--no-bench]   # default 20000
#
# --no-bench leaves the benchmark binaries out (tools/gpu_bundle.sh), for
# `tools/gpu_device_check.sh --no-bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
train_images=20000
bundle_flags=()
for arg in "$@"; do
  case "$arg" in
    --no-bench) bundle_flags+=(--no-bench) ;;
    *) train_images="$arg" ;;
  esac
done
src=/usr/share/datasets/fashion-mnist
tools/gpu_bundle.sh "${bundle_flags[@]}"
rm -rf gpu_carry
mkdir -p gpu_carry/fashion-mnist
mv gpu_bundle.tar.xz gpu_carry/
python3 - "$src" gpu_carry/fashion-mnist "$train_images" <<'PY'
import gzip, struct, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name, header, item in (("train-images-idx3-ubyte.gz", 16, 784),
                           ("train-labels-idx1-ubyte.gz", 8, 1),
                           ("t10k-images-idx3-ubyte.gz", 16, 784),
                           ("t10k-labels-idx1-ubyte.gz", 8, 1)):
    data = gzip.open(f"{src}/{name}").read()
    count = min(n, struct.unpack_from(">I", data, 4)[0])
    head = bytearray(data[:header])
    struct.pack_into(">I", head, 4, count)  # the count after the magic number
    with gzip.open(f"{dst}/{name}", "wb", 9) as f:
        f.write(bytes(head) + data[header:header + count * item])
PY
du -sh gpu_carry
