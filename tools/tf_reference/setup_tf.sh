#!/usr/bin/env bash
# Installs TensorFlow 2.21 (CPU), tf-keras (tf.compat.v1.layers) and
# TensorBoard from PyPI into the python3 on PATH, for the scripts in
# tools/tf_reference/, the TensorFlow peer of bench/compare_tf.sh, and the
# tests that check dflow's files with TensorFlow or TensorBoard itself (they
# skip with a message when it is absent). Does nothing when all three are
# installed. Never fails the caller: without network
# access it says so and returns 0.
set -uo pipefail
installed() {
  python3 -c "import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ('tensorflow', 'tf_keras', 'tensorboard')))" 2>/dev/null
}
if installed; then
  exit 0
fi
echo "setup_tf: installing tensorflow-cpu 2.21, tf-keras and tensorboard from PyPI"
if ! python3 -m pip install -q --disable-pip-version-check \
    "tensorflow-cpu==2.21.*" "tf-keras~=2.21.0" "tensorboard~=2.21.0" 2>&1 | grep -v "^WARNING: Running pip as"; then
  :
fi
if ! installed; then
  echo "setup_tf: TensorFlow could not be installed; the tests that need it skip"
fi
exit 0
