#!/usr/bin/env bash
# Fills gpu_carry/ (git-ignored) with what tools/gpu_device_check.sh needs on
# the GPU machine: the bundle (tools/gpu_bundle.sh) and a Fashion-MNIST
# subset for the towers example (the first TRAIN_IMAGES training images, all
# 10000 test images), small enough for the device tool's 64 MiB carry.
#
#   tools/gpu_prepare_carry.sh [TRAIN_IMAGES]      # default 20000
set -euo pipefail
cd "$(dirname "$0")/.."
train_images="${1:-20000}"
src=/usr/share/datasets/fashion-mnist
tools/gpu_bundle.sh
rm -rf gpu_carry
mkdir -p gpu_carry/fashion-mnist
mv gpu_bundle.tar.xz gpu_carry/
cp "$src"/t10k-images-idx3-ubyte.gz "$src"/t10k-labels-idx1-ubyte.gz gpu_carry/fashion-mnist/
python3 - "$src" gpu_carry/fashion-mnist "$train_images" <<'PY'
import gzip, struct, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name, header, item in (("train-images-idx3-ubyte.gz", 16, 784),
                           ("train-labels-idx1-ubyte.gz", 8, 1)):
    data = gzip.open(f"{src}/{name}").read()
    head = bytearray(data[:header])
    struct.pack_into(">I", head, 4, n)  # the count after the magic number
    with gzip.open(f"{dst}/{name}", "wb", 9) as f:
        f.write(bytes(head) + data[header:header + n * item])
PY
du -sh gpu_carry
