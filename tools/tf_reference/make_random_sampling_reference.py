#!/usr/bin/env python3
"""TensorFlow 2.21's sampled values for dflow's random sampling ops.

Writes two directories under tests/testdata/:

tf_random_sampling/
  graph.pb   one TF-written GraphDef (tf.compat.v1 graph mode, global seed
             1234): tf.random.categorical, gamma, poisson, shuffle, the
             parameterized truncated normal (its three samplers), every
             candidate sampler, ComputeAccidentalHits, and the stateless
             ops: stateless_categorical, _gamma, _poisson, _binomial,
             _parameterized_truncated_normal, _uniform with integer
             dtypes (bounded and full range), stateless_shuffle,
             index_shuffle and the version-1 seed ops (tf.raw_ops), and a
             tf.random.Generator's skip and binomial (`init` sets its
             state). Each
             result is named out_<case> (half outputs cast to float32,
             unsigned ones to int64).
  cases.txt  TensorFlow's values of two session runs of all fetches
             together (after `init`): `fetch` lines for the first run, `fetch2` for the
             second (the stateful ops move on in their streams between
             runs; the stateless ones repeat). See
             tests/kernels/tf_value_cases.h for the line format.

tf_random_word2vec/
  graph.pb   a small word2vec model (skip-gram pairs fed as placeholders):
             an embedding table, nce_loss and sampled_softmax_loss with
             their own output weights (log-uniform candidate samplers with
             seeds), trained by GradientDescent; `init` initializes,
             `train` is one step.
  cases.txt  the feeds, and the losses and variables after `init` and 3
             runs of `train`, fetched in a fourth run (whose samplers draw
             a fourth time).

Read by tests/kernels/random_sampling_ops_test.cc. The reference runs with
one intra-op thread: two TensorFlow kernels (Multinomial, the
parameterized truncated normal) would read their stream in another layout
if they cut their work into several shards (they did not with up to 8
threads either).

Run: python3 tools/tf_reference/make_random_sampling_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "tests", "testdata")
CONFIG = tf1.ConfigProto(inter_op_parallelism_threads=1,
                         intra_op_parallelism_threads=1)


def comparable(t):
  """float16 -> float32, unsigned -> int64: dtypes the C++ test reads."""
  if t.dtype == tf.float16:
    return tf.cast(t, tf.float32)
  if t.dtype in (tf.uint32, tf.uint64, tf.uint8, tf.uint16):
    return tf.cast(t, tf.int64)
  return t


def sampling_cases(feeds):
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in feeds.items()}
  logits = p["logits"]
  seed = p["seed"]
  c = {}
  # --- Multinomial.
  c["categorical"] = tf.random.categorical(logits, 7, seed=5)
  c["categorical_i32"] = tf.random.categorical(logits, 3, seed=6,
                                               dtype=tf.int32)
  c["categorical_f64"] = tf.random.categorical(tf.cast(logits, tf.float64),
                                               5, seed=7)
  c["categorical_inf"] = tf.random.categorical(p["logits_inf"], 6, seed=8)
  c["multinomial_v1"] = tf1.multinomial(logits, 4, seed=9)
  c["categorical_f16"] = tf.random.categorical(tf.cast(logits, tf.float16),
                                               4, seed=10)
  # --- Gamma (alpha 1 is the exponential path, below 1 the boosted one).
  alpha = p["alpha"]
  c["gamma"] = tf.random.gamma([3], alpha, seed=11)
  c["gamma_beta"] = tf.random.gamma([2, 2], alpha, beta=p["beta"], seed=12)
  c["gamma_f64"] = tf.random.gamma([4], tf.cast(alpha, tf.float64), seed=13,
                                   dtype=tf.float64)
  c["gamma_f16"] = tf.random.gamma([3], tf.cast(alpha, tf.float16), seed=14,
                                   dtype=tf.float16)
  # --- Poisson (below 10: Knuth; above: Hormann).
  rate = p["rate"]
  c["poisson"] = tf.random.poisson([4], rate, seed=15)
  c["poisson_i64"] = tf.random.poisson([3], rate, dtype=tf.int64, seed=16)
  c["poisson_i32"] = tf.random.poisson([2], tf.cast(rate, tf.float64),
                                       dtype=tf.int32, seed=17)
  c["poisson_f64"] = tf.random.poisson([2, 2], rate, dtype=tf.float64,
                                       seed=18)
  # --- Shuffles.
  c["shuffle_1d"] = tf.random.shuffle(tf.range(11), seed=19)
  c["shuffle_2d"] = tf.random.shuffle(
      tf.reshape(tf.range(14, dtype=tf.float32), [7, 2]), seed=20)
  # --- Parameterized truncated normal, stateful: randn, uniform and
  # exponential samplers, scalar parameters (batches of 100) and per-row.
  ptn = lambda shape, m, s, lo, hi, dtype, sd: R.ParameterizedTruncatedNormal(
      shape=shape, means=tf.constant(m, dtype), stdevs=tf.constant(s, dtype),
      minvals=tf.constant(lo, dtype), maxvals=tf.constant(hi, dtype),
      seed=1234, seed2=sd)
  c["ptn_scalar"] = ptn([5, 3], 0.0, 1.0, -2.0, 2.0, tf.float32, 21)
  c["ptn_rows"] = ptn([3, 4], [0.0, 1.0, -1.0], [1.0, 0.5, 2.0],
                      [-0.2, 2.5, -1.5], [0.3, np.inf, 0.0], tf.float32, 22)
  c["ptn_f64"] = ptn([3, 3], [0.0, 0.0, 5.0], [1.0, 1.0, 1.0],
                     [-3.0, 1.0, -np.inf], [3.0, 1.2, 2.0], tf.float64, 23)
  c["ptn_f16"] = ptn([2, 4], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0],
                     [1.0, 9.0], tf.float16, 24)
  c["ptn_v1_api"] = tf1.random.truncated_normal([6], 1.0, 2.0, seed=25)
  # --- Candidate samplers (two runs: the learned ones count the classes).
  tc = p["true_classes"]
  samplers = {
      "uniform": lambda u, s: tf.random.uniform_candidate_sampler(
          tc, 2, 4, u, 12, seed=s),
      "log_uniform": lambda u, s: tf.random.log_uniform_candidate_sampler(
          tc, 2, 5, u, 30, seed=s),
      "learned": lambda u, s: tf.random.learned_unigram_candidate_sampler(
          tc, 2, 4, u, 9, seed=s),
      "fixed": lambda u, s: tf.random.fixed_unigram_candidate_sampler(
          tc, 2, 4, u, 9, unigrams=[5.0, 1.0, 0.5, 3.0, 2.0, 8.0, 1.0, 1.5,
                                    4.0], seed=s),
      "fixed_distorted": lambda u, s: tf.random.fixed_unigram_candidate_sampler(
          tc, 2, 3, u, 10, num_reserved_ids=2, distortion=0.75,
          unigrams=[5.0, 1.0, 0.5, 3.0, 2.0, 8.0, 1.0, 1.5], seed=s),
      "all": lambda u, s: tf.random.all_candidate_sampler(tc, 2, 8, u,
                                                          seed=s),
      "thread_unsafe": lambda u, s: R.ThreadUnsafeUnigramCandidateSampler(
          true_classes=tc, num_true=2, num_sampled=4, unique=u, range_max=9,
          seed=1234, seed2=s),
  }
  sd = 30
  for name, make in samplers.items():
    for unique in (True, False):
      sd += 1
      out = make(unique, sd)
      key = "%s_%s" % (name, "unique" if unique else "repeats")
      c[key + "_cand"] = out[0]
      c[key + "_true_ec"] = out[1]
      c[key + "_samp_ec"] = out[2]
      if name == "uniform" and unique:
        hits = tf.nn.compute_accidental_hits(tc, out[0], 2)
        c["hits_indices"], c["hits_ids"], c["hits_weights"] = hits
  hits = tf.nn.compute_accidental_hits(p["true_classes"],
                                       p["candidates"], 2)
  c["fixed_hits_indices"], c["fixed_hits_ids"], c["fixed_hits_weights"] = hits
  # --- Stateless ops, from the fed seed.
  c["s_categorical"] = tf.random.stateless_categorical(logits, 7, seed)
  c["s_categorical_i32"] = tf.random.stateless_categorical(
      tf.cast(logits, tf.float64), 4, seed, dtype=tf.int32)
  c["s_gamma"] = tf.random.stateless_gamma([3, 4], seed, alpha)
  c["s_gamma_f64"] = tf.random.stateless_gamma([2, 4], seed,
                                               tf.cast(alpha, tf.float64),
                                               dtype=tf.float64)
  c["s_gamma_v2"] = R.StatelessRandomGammaV2(shape=[2, 4], seed=seed,
                                             alpha=alpha)
  c["s_poisson"] = tf.random.stateless_poisson([3, 4], seed, rate)
  c["s_poisson_i32"] = tf.random.stateless_poisson([2, 4], seed, rate,
                                                   dtype=tf.int32)
  counts, probs = p["counts"], p["probs"]
  c["s_binomial"] = tf.random.stateless_binomial([3, 5], seed, counts, probs)
  c["s_binomial_f32"] = tf.random.stateless_binomial(
      [2, 5], seed, tf.cast(counts, tf.float32), tf.cast(probs, tf.float32),
      output_dtype=tf.float32)
  c["s_binomial_bcast"] = tf.random.stateless_binomial(
      [4, 2, 5], seed, tf.constant([[20.0], [7.0]], tf.float64), probs,
      output_dtype=tf.int64)
  c["s_ptn"] = tf.random.stateless_parameterized_truncated_normal(
      [4, 3], seed, means=[0.0, 1.0, 5.0], stddevs=[1.0, 0.5, 1.0],
      minvals=[-2.0, 1.1, -np.inf], maxvals=[2.0, 1.3, 3.0])
  c["s_ptn_f64"] = tf.random.stateless_parameterized_truncated_normal(
      [3, 2], seed, means=tf.constant([0.0, 2.0], tf.float64),
      stddevs=tf.constant(1.0, tf.float64),
      minvals=tf.constant([0.5, 4.0], tf.float64),
      maxvals=tf.constant([0.9, np.inf], tf.float64))
  for dtype in (tf.int32, tf.int64):
    c["s_uniform_int_" + dtype.name] = tf.random.stateless_uniform(
        [7], seed, minval=-5, maxval=1000, dtype=dtype)
  for dtype in (tf.int32, tf.int64, tf.uint32, tf.uint64):
    c["s_uniform_full_" + dtype.name] = tf.random.stateless_uniform(
        [5], seed, minval=None, maxval=None, dtype=dtype)
  c["s_uniform_philox"] = tf.random.stateless_uniform([6], seed,
                                                      alg="philox")
  kca = R.StatelessRandomGetKeyCounterAlg(seed=seed)
  c["s_key"], c["s_counter"], c["s_alg"] = kca
  c["s_get_alg"] = R.StatelessRandomGetAlg()
  c["s_uniform_int_v2_kca"] = R.StatelessRandomUniformIntV2(
      shape=[6], key=kca[0], counter=kca[1], alg=kca[2],
      minval=tf.constant(3, tf.int64), maxval=tf.constant(40, tf.int64))
  c["s_shuffle"] = tf.random.experimental.stateless_shuffle(tf.range(9),
                                                            seed)
  c["s_shuffle_2d"] = tf.random.experimental.stateless_shuffle(
      tf.reshape(tf.range(12.0), [6, 2]), seed)
  # The Python API pads a [2] seed to the op's [3].
  c["index_shuffle"] = tf.random.experimental.index_shuffle(
      tf.range(10, dtype=tf.int64), seed, 9)
  c["index_shuffle_big"] = tf.random.experimental.index_shuffle(
      tf.constant([0, 5, 70000, 123456], tf.int64), seed, 200000)
  c["index_shuffle_scalar"] = R.RandomIndexShuffle(
      index=tf.constant(3, tf.int32), seed=p["seed3"],
      max_index=tf.constant(20, tf.int32), rounds=6)
  c["s_split"] = tf.random.experimental.stateless_split(seed, 3)
  c["s_fold_in"] = tf.random.experimental.stateless_fold_in(seed, 17)
  v1 = {"uniform": R.StatelessRandomUniform, "normal": R.StatelessRandomNormal,
        "truncated": R.StatelessTruncatedNormal}
  for name, op in v1.items():
    c["v1_" + name] = op(shape=[5], seed=seed, dtype=tf.float32)
    c["v1_" + name + "_f64"] = op(shape=[3], seed=seed, dtype=tf.float64)
  c["v1_uniform_int"] = R.StatelessRandomUniformInt(
      shape=[6], seed=seed, minval=tf.constant(-3, tf.int64),
      maxval=tf.constant(9, tf.int64))
  c["v1_uniform_full"] = R.StatelessRandomUniformFullInt(
      shape=[4], seed=seed, dtype=tf.uint32)
  # --- tf.random.Generator: its state moves on through RngReadAndSkip
  # (skip; normal & co. read it so, then Bitcast it for the stateless ops)
  # and StatefulRandomBinomial, in this order (control edges: the state is
  # one variable).
  gen = tf.random.Generator.from_seed(5)
  c["gen_skip"] = gen.skip(7)
  with tf.control_dependencies([c["gen_skip"]]):
    c["gen_binomial"] = gen.binomial([3, 2], [10.0, 40.0],
                                     [0.3, 0.6], dtype=tf.int32)
  with tf.control_dependencies([c["gen_binomial"]]):
    c["gen_skip_after"] = gen.skip(1)
  tf.group(tf1.global_variables_initializer(), name="init")
  return {k: tf.identity(comparable(v), name="out_" + k)
          for k, v in c.items()}


def write_sampling():
  out_dir = os.path.join(ROOT, "tf_random_sampling")
  rng = np.random.RandomState(3)
  feeds = {
      "logits": np.round(rng.uniform(-2, 2, (3, 5)), 3).astype(np.float32),
      "logits_inf": np.array([[-np.inf, 0.5, np.nan, 1.0],
                              [np.inf, -1.0, 0.0, -np.inf]], np.float32),
      "seed": np.array([12, -34], np.int64),
      "seed3": np.array([7, 11, 1 << 31], np.int64),
      "alpha": np.array([0.5, 1.0, 2.5, 7.0], np.float32),
      "beta": np.array([2.0, 0.5, 1.0, 3.0], np.float32),
      "rate": np.array([0.3, 4.0, 12.0, 55.5], np.float32),
      "counts": np.array([0.0, 3.0, 40.0, 100.0, 15.0]),
      "probs": np.array([0.3, 0.5, 0.35, 0.9, 0.97]),
      "true_classes": np.array([[1, 4], [0, 7], [3, 3]], np.int64),
      "candidates": np.array([7, 2, 4, 3, 7], np.int64),
  }
  g = tf.Graph()
  with g.as_default():
    tf1.set_random_seed(1234)
    outs = sampling_cases(feeds)
  os.makedirs(out_dir, exist_ok=True)
  with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  with tf1.Session(graph=g, config=CONFIG) as sess:
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in feeds.items()}
    sess.run("init")
    names = sorted(outs)
    runs = [sess.run([outs[n] for n in names], feed) for _ in range(2)]
  lines = ["# Two runs of every fetch: `fetch` the first, `fetch2` the second."]
  for k, v in feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for kind, values in zip(("fetch", "fetch2"), runs):
    for n, v in zip(names, values):
      v = np.asarray(v)
      lines.append("%s | %s" % (head(kind, "out_%s" % n, v), fmt(v)))
  with open(os.path.join(out_dir, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote %d fetches to %s" % (len(names), out_dir))


def write_word2vec():
  out_dir = os.path.join(ROOT, "tf_random_word2vec")
  vocab, dim, batch, num_sampled = 40, 6, 12, 5
  rng = np.random.RandomState(11)
  feeds = {
      "center": rng.randint(0, vocab, size=batch).astype(np.int32),
      "context": rng.randint(0, vocab, size=(batch, 1)).astype(np.int64),
  }
  g = tf.Graph()
  with g.as_default():
    tf1.set_random_seed(99)
    center = tf1.placeholder(tf.int32, [batch], name="center")
    context = tf1.placeholder(tf.int64, [batch, 1], name="context")
    emb = tf1.get_variable(
        "embeddings", initializer=rng.uniform(-1, 1, (vocab, dim)).astype(
            np.float32))
    nce_w = tf1.get_variable(
        "nce_weights", initializer=(rng.normal(size=(vocab, dim)) /
                                    np.sqrt(dim)).astype(np.float32))
    nce_b = tf1.get_variable("nce_biases", initializer=np.zeros(
        vocab, np.float32))
    sm_w = tf1.get_variable(
        "softmax_weights", initializer=(rng.normal(size=(vocab, dim)) /
                                        np.sqrt(dim)).astype(np.float32))
    sm_b = tf1.get_variable("softmax_biases", initializer=np.zeros(
        vocab, np.float32))
    embed = tf.nn.embedding_lookup(emb, center)
    # nce_loss takes no seed: its sampler's op seed comes from the graph
    # seed and the op count, both fixed here.
    nce = tf.reduce_mean(tf1.nn.nce_loss(nce_w, nce_b, context, embed,
                                         num_sampled, vocab))
    sampled = tf.reduce_mean(tf1.nn.sampled_softmax_loss(
        sm_w, sm_b, context, embed, num_sampled, vocab, seed=8))
    loss = tf.identity(nce + sampled, name="loss")
    tf.identity(nce, name="loss_nce")
    tf.identity(sampled, name="loss_sampled_softmax")
    tf1.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    tf.group(tf1.global_variables_initializer(), name="init")
    fetches = ["loss", "loss_nce", "loss_sampled_softmax"]
    for v in (emb, nce_w, nce_b, sm_w, sm_b):
      name = "value_" + v.op.name
      tf.identity(v, name=name)
      fetches.append(name)
  os.makedirs(out_dir, exist_ok=True)
  with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  with tf1.Session(graph=g, config=CONFIG) as sess:
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in feeds.items()}
    sess.run("init")
    for _ in range(3):
      sess.run("train", feed)
    values = sess.run([n + ":0" for n in fetches], feed)
  lines = []
  for k, v in feeds.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for n, v in zip(fetches, values):
    lines.append("%s | %s" % (head("fetch", n + ":0", v), fmt(v)))
  with open(os.path.join(out_dir, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote %s (loss after 3 steps: %s)" % (out_dir, values[0]))


if __name__ == "__main__":
  write_sampling()
  write_word2vec()
