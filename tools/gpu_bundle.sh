#!/usr/bin/env bash
# Builds dflow's GPU test (and benchmark) binaries and packs them, with the
# shared libraries they need, into gpu_bundle/ (git-ignored): a folder that
# runs on a machine with a GPU and no Bazel.
#
#   tools/gpu_bundle.sh [--with-cuda-libs] [--no-bench] [EXTRA_LABEL ...]
#
# --no-bench leaves the benchmark binaries out (a smaller archive, for a
# device call that only tests).
# It also writes gpu_bundle.tar.xz (about 55 MB; the folder about 400 MB).
# On the GPU machine (from the folder holding gpu_bundle/, after
# `tar xJf gpu_bundle.tar.xz` when the archive is what travelled):
#   gpu_bundle/run_all.sh            # every test; last line "N passed, N failed"
#   gpu_bundle/run_all.sh --bench    # then every benchmark binary too
#   gpu_bundle/compare_torch_gpu.sh  # dflow vs PyTorch (bench/gpu/)
#
# What goes in:
#   - every cc_test under TEST_PATTERNS and cc_binary under BENCH_PATTERNS
#     whose folder exists (extend the lists below), plus EXTRA_LABELs;
#   - every shared library ldd resolves for them (dflow's own libraries from
#     bazel-bin, Debian's Abseil/protobuf/gtest/benchmark, ...), except the C
#     runtime (libc, libm, libstdc++, libgcc_s, ...) and the NVIDIA driver
#     (libcuda), which the GPU machine has;
#   - of the CUDA toolkit's libraries only libcudart (under 1 MB): cuBLAS,
#     cuDNN and NCCL weigh gigabytes, so run_all.sh looks for them on the GPU
#     machine ($CUDA_PATH, /usr/local/cuda*, Python's nvidia-* wheels) unless
#     --with-cuda-libs copies them here too.
# Tests that read files from their Bazel runfiles find them relative to the
# working directory: run the bundle from the repository root (the GPU tests
# make their own data, except tf_corpus_gpu_test, which reads
# tests/testdata/tf_corpus).
set -euo pipefail
cd "$(dirname "$0")/.."

TEST_PATTERNS=(//tests/runtime/gpu/... //tests/kernels/gpu/...)
BENCH_PATTERNS=(//bench/gpu/...)
# Programs carried to run by hand (not tests): the towers examples, for
# `--towers 2 --virtual_gpus 2` on one GPU, and the dflow CLI.
PROGRAMS=(//examples:mnist_towers //examples:cifar10_towers //tools:dflow)

with_cuda_libs=0
no_bench=0
extra=()
for arg in "$@"; do
  case "$arg" in
    --with-cuda-libs) with_cuda_libs=1 ;;
    --no-bench) no_bench=1 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) extra+=("$arg") ;;
  esac
done

# Patterns whose folder exists (a pattern matching no package is an error).
existing() {
  local p
  for p in "$@"; do
    local dir="${p#//}"
    dir="${dir%/...}"
    [ -d "$dir" ] && echo "$p"
  done
  return 0
}

query_kind() {  # KIND PATTERN...
  local kind="$1"; shift
  [ $# -eq 0 ] && return 0
  local expr
  expr="$(printf ' + %s' "$@")"
  bazel query --noshow_progress "kind('$kind rule', ${expr# + })" 2>/dev/null
}

mapfile -t test_patterns < <(existing "${TEST_PATTERNS[@]}")
mapfile -t bench_patterns < <(existing "${BENCH_PATTERNS[@]}")
mapfile -t tests < <(query_kind cc_test "${test_patterns[@]}")
mapfile -t benches < <(query_kind cc_binary "${bench_patterns[@]}")
[ "$no_bench" -eq 1 ] && benches=()
tests+=("${extra[@]}")
if [ ${#tests[@]} -eq 0 ] && [ ${#benches[@]} -eq 0 ]; then
  echo "gpu_bundle: no targets found" >&2
  exit 1
fi

echo "gpu_bundle: building ${#tests[@]} tests and ${#benches[@]} benchmarks"
bazel build "${tests[@]}" "${benches[@]}" "${PROGRAMS[@]}"
bin_root="$(bazel info bazel-bin 2>/dev/null)"
cuda_root="$(readlink -f "${CUDA_PATH:-/usr/local/cuda}" 2>/dev/null || true)"

out=gpu_bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
: > "$out/tests.txt"
: > "$out/benchmarks.txt"
: > "$out/programs.txt"
: > "$out/cuda_libs.txt"

# A label's binary, relative to bazel-bin: //a/b:c -> a/b/c.
binary_path() {
  local label="${1#//}"
  echo "${label%%:*}/${label#*:}"
}

# Libraries the GPU machine brings itself.
is_system_runtime() {
  case "$(basename "$1")" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|\
    librt.so*|libutil.so*|libresolv.so*|libstdc++.so*|libgcc_s.so*|\
    libcuda.so*|libnvidia-*) return 0 ;;
  esac
  return 1
}

# Debug sections are most of dflow's binaries and libraries; without them
# the bundle fits the device tool's carry. Symbols stay, for backtraces.
strip_debug() {  # FILE
  strip --strip-debug "$1" 2>/dev/null || true
}

copy_libs() {  # BINARY
  local lib real
  while read -r lib; do
    [ -n "$lib" ] || continue
    is_system_runtime "$lib" && continue
    real="$(readlink -f "$lib")"
    if [ -n "$cuda_root" ] && [[ "$real" == "$cuda_root"/* ]] &&
       [[ "$(basename "$lib")" != libcudart.so* ]] &&
       [ "$with_cuda_libs" -eq 0 ]; then
      basename "$lib" >> "$out/cuda_libs.txt"
      continue
    fi
    if [ ! -e "$out/lib/$(basename "$lib")" ]; then
      cp "$real" "$out/lib/$(basename "$lib")"
      chmod u+w "$out/lib/$(basename "$lib")"
      strip_debug "$out/lib/$(basename "$lib")"
    fi
  done < <(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
  if ldd "$1" | grep -q "not found"; then
    echo "gpu_bundle: warning: $1 has unresolved libraries here:" >&2
    ldd "$1" | grep "not found" >&2
  fi
}

add_binary() {  # LABEL LISTFILE
  local rel
  rel="$(binary_path "$1")"
  if [ ! -x "$bin_root/$rel" ]; then
    echo "gpu_bundle: $1 built no binary at bazel-bin/$rel" >&2
    return 1
  fi
  mkdir -p "$out/bin/$(dirname "$rel")"
  cp "$bin_root/$rel" "$out/bin/$rel"
  chmod u+w "$out/bin/$rel"
  strip_debug "$out/bin/$rel"
  echo "$rel" >> "$2"
  copy_libs "$bin_root/$rel"
}

for t in "${tests[@]}"; do add_binary "$t" "$out/tests.txt"; done
for b in "${benches[@]}"; do add_binary "$b" "$out/benchmarks.txt"; done
for p in "${PROGRAMS[@]}"; do add_binary "$p" "$out/programs.txt"; done
sort -u -o "$out/cuda_libs.txt" "$out/cuda_libs.txt"

{
  echo "dflow GPU bundle"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "CUDA: $cuda_root ($("${cuda_root:-/nonexistent}/bin/nvcc" --version 2>/dev/null | tail -n 2 | head -n 1 || echo 'no nvcc'))"
  echo "CUDA libraries looked up on the GPU machine: $(tr '\n' ' ' < "$out/cuda_libs.txt")"
} > "$out/MANIFEST"

cat > "$out/env.sh" <<'ENV_SH'
# Sourced by run_all.sh and compare_torch_gpu.sh (or by hand before running
# a binary of bin/): puts lib/ and the folders holding the CUDA libraries
# the bundle left out (cuda_libs.txt) on LD_LIBRARY_PATH.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The CUDA libraries not in lib/: find a folder holding each on this machine.
lib_path="$here/lib"
candidates=("${CUDA_PATH:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64
            /usr/local/cuda-*/lib64 /usr/local/cuda-*/targets/*/lib
            /usr/lib/x86_64-linux-gnu /usr/lib64)
for py in python3 python; do
  command -v "$py" >/dev/null 2>&1 || continue
  while read -r d; do candidates+=("$d"); done < <("$py" - 2>/dev/null <<'PY'
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for d in sorted(glob.glob(os.path.join(r, "nvidia", "*", "lib"))):
        print(d)
PY
)
  break
done
missing=()
while read -r soname; do
  [ -n "$soname" ] || continue
  found=""
  for d in "${candidates[@]}"; do
    if [ -e "$d/$soname" ]; then found="$d"; break; fi
  done
  if [ -n "$found" ]; then
    case ":$lib_path:" in *":$found:"*) ;; *) lib_path="$lib_path:$found" ;; esac
  else
    missing+=("$soname")
  fi
done < "$here/cuda_libs.txt"
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpu_bundle: not found on this machine: ${missing[*]}" \
       "(set CUDA_PATH, or rebuild the bundle with --with-cuda-libs)"
fi
export LD_LIBRARY_PATH="$lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ENV_SH

cat > "$out/run_all.sh" <<'RUN_ALL'
#!/usr/bin/env bash
# Runs every test binary of this bundle (made by tools/gpu_bundle.sh), then,
# with --bench, every benchmark. Prints each binary's GoogleTest summary and
# ends with "N passed, N failed" (test cases; a binary that cannot start or
# crashes counts as one failure). Where nvidia-smi lists a GPU, sets
# DFLOW_REQUIRE_GPU=1 so a test that finds no usable GPU fails instead of
# skipping (set DFLOW_REQUIRE_GPU=0 to allow skips). A test binary that
# runs past DFLOW_TEST_TIMEOUT seconds (default 120) is killed and counts as
# a failure, so one hang cannot eat a whole device lease.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bench=0
[ "${1:-}" = "--bench" ] && bench=1

source "$here/env.sh"

if [ -z "${DFLOW_REQUIRE_GPU+x}" ] && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  export DFLOW_REQUIRE_GPU=1
fi
echo "run_all: $(nvidia-smi -L 2>/dev/null | head -n 8 || echo 'nvidia-smi: none')"
echo "run_all: DFLOW_REQUIRE_GPU=${DFLOW_REQUIRE_GPU:-unset}"

passed=0 failed=0 skipped=0
logs="${DFLOW_LOG_DIR:-$(mktemp -d)}"  # each test binary's whole output
mkdir -p "$logs"
while read -r rel; do
  [ -n "$rel" ] || continue
  log="$logs/$(echo "$rel" | tr / _).log"
  timeout -k 5 "${DFLOW_TEST_TIMEOUT:-120}" "$here/bin/$rel" --gtest_color=no > "$log" 2>&1
  rc=$?
  [ "$rc" -eq 124 ] && echo "--- $rel timed out after ${DFLOW_TEST_TIMEOUT:-120} s"
  ok=$(grep -c '^\[       OK \]' "$log")
  bad=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
  skip=$(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$log")
  if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
    bad=1
    echo "--- $rel exited with status $rc:"
    tail -n 20 "$log"
  elif [ "$bad" -gt 0 ]; then
    echo "--- $rel failures:"
    grep -B 30 -E '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log" | grep -v '^\[ RUN\|^\[       OK' | tail -n 60
  fi
  echo "$rel: $ok passed, $bad failed, $skip skipped"
  passed=$((passed + ok)); failed=$((failed + bad)); skipped=$((skipped + skip))
done < "$here/tests.txt"

if [ "$bench" -eq 1 ]; then
  while read -r rel; do
    [ -n "$rel" ] || continue
    echo "=== benchmark $rel"
    if "$here/bin/$rel"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done < "$here/benchmarks.txt"
fi

echo "run_all: $skipped skipped; logs in $logs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
RUN_ALL
chmod +x "$out/run_all.sh"

# dflow vs PyTorch on the GPU (bench/gpu/compare_torch_gpu.sh) runs from the
# bundle too: it finds bin/, lib/ and torch_peer.py beside itself.
cp bench/gpu/compare_torch_gpu.sh bench/torch_peer.py "$out/"

echo "gpu_bundle: $(wc -l < "$out/tests.txt") tests, $(wc -l < "$out/benchmarks.txt") benchmarks," \
     "$(ls "$out/lib" | wc -l) libraries, $(du -sh "$out" | cut -f1) in $out/"
# The folder is about 400 MB (the example programs link dflow statically,
# OpenBLAS and oneDNN are 36 and 40 MB), more than the device tool carries
# (64 MiB); xz -9's 64 MiB window finds what the programs share.
tar cf - "$out" | xz -T0 -9 > "$out.tar.xz"
echo "gpu_bundle: on the GPU machine run: $out/run_all.sh (and $out/compare_torch_gpu.sh)"
echo "gpu_bundle: or carry $out.tar.xz ($(du -sh "$out.tar.xz" | cut -f1)) and run:" \
     "tar xJf $out.tar.xz && $out/run_all.sh"
