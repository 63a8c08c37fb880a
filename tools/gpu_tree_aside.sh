#!/usr/bin/env bash
# The device tool sends the working tree with the carried paths, 64 MiB in
# all; the tree alone is about 27 MiB on disk and gpu_carry/ about 40 MB, so
# for the call the tree must shrink to what tools/gpu_device_check.sh reads
# there: tools/, bench/ and the test data of tf_corpus_gpu_test and
# tf_values_gpu_test (tests/testdata/tf_corpus, tf/ and every directory with
# a cases.txt). This moves the rest out of the checkout and back:
#
#   tools/gpu_tree_aside.sh out    # just before the device call
#   tools/gpu_tree_aside.sh back   # right after it (also after a failed call)
#
# Nothing is deleted: the folders wait in /tmp/dflow_tree_aside. Do not run
# Bazel or git commands that write while they are out.
set -euo pipefail
cd "$(dirname "$0")/.."
aside=/tmp/dflow_tree_aside
top=(graph kernels compiler runtime python distributed formats docs examples
     fuzz data proto third_party)

case "${1:-}" in
  out)
    if [ -e "$aside" ]; then
      echo "gpu_tree_aside: $aside exists: run '$0 back' first" >&2
      exit 1
    fi
    mkdir -p "$aside/top" "$aside/tests" "$aside/testdata"
    for d in "${top[@]}"; do [ -e "$d" ] && mv "$d" "$aside/top/"; done
    for d in tests/*; do
      [ "$d" = tests/testdata ] || mv "$d" "$aside/tests/"
    done
    for d in tests/testdata/*; do
      n="$(basename "$d")"
      if [ -f "$d/cases.txt" ] || [ "$n" = tf_corpus ] || [ "$n" = tf ] ||
         [ "$n" = BUILD ]; then
        continue
      fi
      mv "$d" "$aside/testdata/"
    done
    echo "gpu_tree_aside: out; the tree that travels:" \
         "$( (git ls-files -z; git ls-files -z --others --exclude-standard) |
             xargs -0 du -c 2>/dev/null | tail -n 1 | cut -f1) KiB"
    ;;
  back)
    if [ ! -d "$aside" ]; then
      echo "gpu_tree_aside: nothing aside" >&2
      exit 0
    fi
    for d in "$aside"/top/* ; do [ -e "$d" ] && mv "$d" ./; done
    for d in "$aside"/tests/* ; do [ -e "$d" ] && mv "$d" tests/; done
    for d in "$aside"/testdata/* ; do [ -e "$d" ] && mv "$d" tests/testdata/; done
    rm -r "$aside"
    git status --short | head -n 5
    echo "gpu_tree_aside: back"
    ;;
  *)
    sed -n '2,14p' "$0"
    exit 2
    ;;
esac
