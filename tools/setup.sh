#!/usr/bin/env bash
# Installs every Debian package dflow needs to build and test, without
# prompting, then TensorFlow from PyPI (tf_reference/setup_tf.sh). Idempotent:
# when everything is present it only checks (< 1 s).
set -euo pipefail

PACKAGES=(
  bazel-bootstrap       # the build (Bazel 4.2.3, works offline with WORKSPACE)
  libabsl-dev           # Abseil: Status, containers, strings, synchronization
  libprotobuf-dev       # Protocol Buffers runtime
  protobuf-compiler     # protoc, run from the Bazel build
  libeigen3-dev         # CPU kernels
  libdnnl-dev           # oneDNN: float GEMM/convolutions by CPU features
  libopenblas-dev       # BLAS: small float, double and complex products
  libfftw3-dev          # FFTW 3: the FFT ops and audio spectrograms (kernels/cpu/spectral_ops*)
  libgtest-dev          # GoogleTest
  libgmock-dev          # GoogleMock
  libbenchmark-dev      # Google Benchmark
  libgoogle-perftools-dev # TCMalloc, every binary's malloc (.bazelrc)
  zlib1g-dev            # gzip readers (datasets)
  libre2-dev            # RE2 regular expressions (StaticRegexFullMatch)
  libfarmhash-dev       # FarmHash Fingerprint64: TF's string hash buckets
  libicu-dev            # ICU: Unicode decoding, scripts and case (text ops)
  libjpeg62-turbo-dev   # libjpeg-turbo: DecodeJpeg / EncodeJpeg (TF's JPEG library)
  libpng-dev            # libpng: DecodePng / EncodePng
  libgif-dev            # giflib: DecodeGif
  dataset-fashion-mnist # Fashion-MNIST IDX files in /usr/share/datasets (data/)
  python3               # tools/test.sh reads Bazel's test.xml files
  libleveldb-dev        # LevelDB tables: the .index of V2 checkpoints (formats/)
  libcrcutil-dev        # CRC32C of checkpoints and other TF formats (formats/)
  graphviz              # `dflow dot --out FILE.svg` runs its `dot` (and the test)
  python3-dev           # CPython headers for `import dflow` (python/)
  pybind11-dev          # the Python bindings of python/ (header-only)
  clang-14              # tools/fuzz.sh: the fuzz config's compiler (.bazelrc)
  libclang-rt-14-dev    # libFuzzer and AddressSanitizer's runtimes for clang-14
  libgrpc++-dev         # gRPC: the worker service of distributed/ (dflow worker)
  protobuf-compiler-grpc # grpc_cpp_plugin, run from the Bazel build
  libgloo-dev           # Gloo: collectives between a cluster's tasks (TCP)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# TensorFlow from PyPI for the tests that check dflow's files with
# TensorFlow itself (they skip without it).
"$(dirname "$0")/tf_reference/setup_tf.sh"
