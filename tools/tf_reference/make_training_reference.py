#!/usr/bin/env python3
"""Reference values for dflow's optimizer kernels, computed by TensorFlow.

Rerun from the repository root (needs `pip install tensorflow-cpu`):

    python3 tools/tf_reference/make_training_reference.py --write

For each optimizer op (ApplyGradientDescent, ApplyMomentum, ApplyAdam; with
use_nesterov off and on where the op has it) and each dtype (float32,
float64), the script starts from fixed initial values of the variable and its
slots (shape [2,3]), runs three steps with a different gradient and scalars
each step, and records the variable and slots after every step.  It runs
every case twice, with the reference-variable op in graph mode and with the
ResourceApply* op in eager mode, and checks the two agree bit for bit.

The output is C++: one `TrainingReference` per case, holding the inputs of
every step and the expected states.  With --write it replaces the block
between the `// BEGIN TF REFERENCE` and `// END TF REFERENCE` lines of
tests/kernels/training_ops_test.cc; without it, it prints the block.
Values are printed with enough digits to round-trip (9 for float32, 17 for
float64), so the C++ test starts from exactly the inputs TensorFlow saw.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf

TEST_FILE = "tests/kernels/training_ops_test.cc"
BEGIN = "// BEGIN TF REFERENCE"
END = "// END TF REFERENCE"
SHAPE = (2, 3)
STEPS = 3

# Slot names, scalar names in input order, and each step's scalars.
OPS = {
    "ApplyGradientDescent": {
        "slots": [],
        "scalars": ["alpha"],
        "step_scalars": lambda t: [0.1 / t],
    },
    "ApplyMomentum": {
        "slots": ["accum"],
        "scalars": ["lr", "momentum"],
        "step_scalars": lambda t: [0.1 / t, 0.9],
    },
    "ApplyAdam": {
        "slots": ["m", "v"],
        "scalars": ["beta1_power", "beta2_power", "lr", "beta1", "beta2",
                    "epsilon"],
        # beta1^t and beta2^t as an optimizer keeps them.
        "step_scalars": lambda t: [0.9 ** t, 0.999 ** t, 0.01, 0.9, 0.999,
                                   1e-7],
    },
}


def initial_values(op, dtype, rng):
    var = rng.uniform(-1, 1, SHAPE).astype(dtype)
    slots = []
    for name in OPS[op]["slots"]:
        if name == "v":  # a second moment is never negative
            slots.append(rng.uniform(0, 0.5, SHAPE).astype(dtype))
        else:
            slots.append(rng.uniform(-0.5, 0.5, SHAPE).astype(dtype))
    grads = [rng.uniform(-1, 1, SHAPE).astype(dtype) for _ in range(STEPS)]
    scalars = [[dtype(s) for s in OPS[op]["step_scalars"](t)]
               for t in range(1, STEPS + 1)]
    return var, slots, grads, scalars


def run_ref_ops(op, var0, slots0, grads, scalars, nesterov):
    """The reference-variable op, in a tf.compat.v1 graph."""
    g = tf.Graph()
    with g.as_default():
        var = tf.compat.v1.Variable(var0, use_resource=False)
        slots = [tf.compat.v1.Variable(s, use_resource=False) for s in slots0]
        grad = tf.compat.v1.placeholder(var0.dtype, SHAPE)
        ph = [tf.compat.v1.placeholder(var0.dtype, ()) for _ in scalars[0]]
        kwargs = {"use_nesterov": nesterov} if op != "ApplyGradientDescent" \
            else {}
        if op == "ApplyGradientDescent":
            update = tf.raw_ops.ApplyGradientDescent(
                var=var, alpha=ph[0], delta=grad)
        elif op == "ApplyMomentum":
            update = tf.raw_ops.ApplyMomentum(
                var=var, accum=slots[0], lr=ph[0], grad=grad,
                momentum=ph[1], **kwargs)
        else:
            update = tf.raw_ops.ApplyAdam(
                var=var, m=slots[0], v=slots[1], beta1_power=ph[0],
                beta2_power=ph[1], lr=ph[2], beta1=ph[3], beta2=ph[4],
                epsilon=ph[5], grad=grad, **kwargs)
        states = []
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for t in range(STEPS):
                feed = {grad: grads[t]}
                feed.update(dict(zip(ph, scalars[t])))
                sess.run(update.op, feed)
                states.append(sess.run([var] + slots))
    return states


def run_resource_ops(op, var0, slots0, grads, scalars, nesterov):
    """The ResourceApply* op, eagerly on tf.Variables."""
    var = tf.Variable(var0)
    slots = [tf.Variable(s) for s in slots0]
    states = []
    for t in range(STEPS):
        s = [tf.constant(x) for x in scalars[t]]
        grad = tf.constant(grads[t])
        if op == "ApplyGradientDescent":
            tf.raw_ops.ResourceApplyGradientDescent(
                var=var.handle, alpha=s[0], delta=grad)
        elif op == "ApplyMomentum":
            tf.raw_ops.ResourceApplyMomentum(
                var=var.handle, accum=slots[0].handle, lr=s[0], grad=grad,
                momentum=s[1], use_nesterov=nesterov)
        else:
            tf.raw_ops.ResourceApplyAdam(
                var=var.handle, m=slots[0].handle, v=slots[1].handle,
                beta1_power=s[0], beta2_power=s[1], lr=s[2], beta1=s[3],
                beta2=s[4], epsilon=s[5], grad=grad, use_nesterov=nesterov)
        states.append([var.numpy()] + [x.numpy() for x in slots])
    return states


def fmt(values, dtype):
    digits = 9 if dtype == np.float32 else 17
    return "{" + ", ".join("%.*g" % (digits, v) for v in
                           np.asarray(values).ravel()) + "}"


def make_block():
    lines = [BEGIN,
             "// Generated by tools/tf_reference/make_training_reference.py "
             "with TensorFlow %s; do not edit." % tf.__version__,
             "const std::vector<TrainingReference>& TfReferences() {",
             "  static const auto* const kCases = new "
             "std::vector<TrainingReference>{"]
    rng = np.random.RandomState(0)
    for op, spec in OPS.items():
        for nesterov in ([False] if op == "ApplyGradientDescent"
                         else [False, True]):
            for dtype in (np.float32, np.float64):
                var0, slots0, grads, scalars = initial_values(op, dtype, rng)
                ref = run_ref_ops(op, var0, slots0, grads, scalars, nesterov)
                res = run_resource_ops(op, var0, slots0, grads, scalars,
                                       nesterov)
                for a, b in zip(ref, res):
                    for x, y in zip(a, b):
                        if not np.array_equal(x, y):
                            sys.exit("%s: ref and resource ops disagree" % op)
                dt = "DT_FLOAT" if dtype == np.float32 else "DT_DOUBLE"
                lines.append("      {\"%s\", %s, %s," % (
                    op, dt, "true" if nesterov else "false"))
                lines.append("       /*initial=*/{%s}," % ", ".join(
                    fmt(x, dtype) for x in [var0] + slots0))
                lines.append("       /*steps=*/{")
                for t in range(STEPS):
                    lines.append("           {/*scalars=*/%s," %
                                 fmt(scalars[t], dtype))
                    lines.append("            /*grad=*/%s," %
                                 fmt(grads[t], dtype))
                    lines.append("            /*after=*/{%s}}," % ", ".join(
                        fmt(x, dtype) for x in ref[t]))
                lines.append("       }},")
    lines += ["  };", "  return *kCases;", "}", END]
    return "\n".join(lines) + "\n"


def main():
    block = make_block()
    if "--write" not in sys.argv[1:]:
        sys.stdout.write(block)
        return
    with open(TEST_FILE) as f:
        text = f.read()
    begin = text.index(BEGIN)
    end = text.index(END) + len(END) + 1
    with open(TEST_FILE, "w") as f:
        f.write(text[:begin] + block + text[end:])
    print("rewrote the reference block of", TEST_FILE)


if __name__ == "__main__":
    main()
