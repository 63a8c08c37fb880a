#!/usr/bin/env python3
"""TensorFlow 2.21's values for the text-model and CTC ops.

Text: RegexFullMatch, StringNGrams (tf.strings.ngrams on ragged and dense
input, pads, widths, short sequences), UnsortedSegmentJoin, the Unicode ops
(UnicodeDecode and UnicodeDecodeWithOffsets on valid and malformed UTF-8,
UTF-16-BE and ISO-8859-1, with replace / ignore / control characters;
UnicodeEncode to UTF-8, UTF-16-BE and UTF-32-BE with out-of-range code
points; UnicodeTranscode; UnicodeScript), StringLower/Upper with
encoding="utf-8", and the ragged ops that tf.strings.split, bytes_split,
unicode_split, RaggedTensor.to_tensor / to_sparse, tf.ragged.range,
tf.gather and tf.concat on ragged tensors and Keras' TextVectorization
write (DenseBincount, RaggedTensorToTensor, RaggedTensorToSparse,
RaggedRange, RaggedGather).

CTC: tf.compat.v1.nn.ctc_loss (CTCLoss, float and double, its attrs, a
label of padding only) and its gradient as tf.gradients writes it;
tf.nn.ctc_loss with sparse labels (a PartitionedCall of CTCLoss, whose
function library also holds the cuDNN variant CTCLossV2) and with dense
labels (TensorFlow's own While-loop graph); CTCGreedyDecoder and
CTCBeamSearchDecoder (beam widths, top paths, merge_repeated), and
EditDistance of the decoded labels.

Writes tests/testdata/tf_text_ops/:
  graph.pb     one TF-written GraphDef (tf.compat.v1 graph mode): string
               constants and numeric placeholders, each result named
               out_<case> by an Identity
  cases.txt    numeric feeds and fetches (tests/kernels/tf_value_cases.h)
  strings.txt  string fetches, "fetch <name> string [<dims>] | x<hex> ..."
and tests/testdata/tf_ctc_training/:
  graph.pb     logits in a variable trained by GradientDescent on
               v1 ctc_loss, v2 ctc_loss with sparse labels and, for a
               second variable, v2 ctc_loss with dense labels; `init`,
               `train`
  cases.txt    the losses and variables after 3 runs of `train`
               (tests/kernels/tf_stepped_cases.h)
Read by tests/kernels/text_ops_test.cc and ctc_ops_test.cc.

Run: python3 tools/tf_reference/make_text_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "testdata", "tf_text_ops")
TRAIN_OUT = os.path.join(ROOT, "tests", "testdata", "tf_ctc_training")

T, B, K = 6, 3, 5
RNG = np.random.RandomState(7)
FEEDS = {
    # Scaled so that the decoders meet near-ties and real choices.
    "logits": (RNG.standard_normal((T, B, K)) * 1.5).astype(np.float32),
    "seq_len": np.array([6, 4, 5], np.int32),
}
FEEDS["logits64"] = FEEDS["logits"].astype(np.float64) * 1.1
# A longer beam search: 12 steps of 7 classes.
FEEDS["beam_logits"] = (RNG.standard_normal((12, 2, 7)) * 2).astype(
    np.float32)
FEEDS["beam_len"] = np.array([12, 9], np.int32)
FEEDS["code_points"] = np.array(
    [72, 0xE9, 0x4E2D, 0x1F600, 0x41, -5, 0x110000, 0xD800, 0x3A3, 0x10FFFF],
    np.int32)

WORDS = ["the quick brown fox", "", "jumps", "over the lazy dog again",
         "a b"]
# UTF-8 with malformed bytes: a lone continuation byte, a truncated
# sequence, an overlong encoding, a surrogate, bytes past U+10FFFF, and a
# truncated sequence at the very end.
BAD_UTF8 = [b"ok\x80ok", b"\xe4\xb8x", b"\xc0\xafz", b"\xed\xa0\x80!",
            b"\xf4\x90\x80\x80", b"end\xe2\x82", b"tab\there\x01"]
UNICODE = ["h\u00e9llo", "\u4e2d\u6587", "\U0001F600 smile", "", "\u03a3\u03b1",
           "stra\u00dfe", "\u0130stanbul", "\u0391\u03a3"]


def sparse_labels(blank_first=False):
  """Row-major labels of the 3 entries: [1 2 2 3], [1 1] and [0 3 2] for
  a blank at the end (classes 0..3), [4 1 3] for a blank at 0."""
  idx = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [2, 0], [2, 1],
         [2, 2]]
  vals = [1, 2, 2, 3, 1, 1] + ([4, 1, 3] if blank_first else [0, 3, 2])
  return tf.SparseTensor(tf.constant(idx, tf.int64),
                         tf.constant(vals, tf.int32), [B, 4])


def ctc_cases(p):
  c = {}
  labels = sparse_labels()
  logits, seq_len = p["logits"], p["seq_len"]

  def with_grad(name, loss, x):
    c[name] = loss
    c[name + "_grad"] = tf.gradients(tf.reduce_sum(loss * [1.0, 0.5, 2.0]
                                                   if loss.dtype == tf.float32
                                                   else loss), x)[0]

  with_grad("ctc", tf1.nn.ctc_loss(labels, logits, seq_len), logits)
  with_grad("ctc_collapse", tf1.nn.ctc_loss(
      labels, logits, seq_len, preprocess_collapse_repeated=True), logits)
  with_grad("ctc_nomerge", tf1.nn.ctc_loss(
      labels, logits, seq_len, ctc_merge_repeated=False), logits)
  # Entry 1 gets 5 labels for 4 steps: zero loss and gradient.
  long_labels = tf.SparseTensor(
      tf.constant([[0, 0], [1, 0], [1, 1], [1, 2], [1, 3], [1, 4], [2, 0]],
                  tf.int64), tf.constant([2, 1, 2, 1, 2, 1, 3], tf.int32),
      [B, 5])
  with_grad("ctc_ignore_longer", tf1.nn.ctc_loss(
      long_labels, logits, seq_len, ignore_longer_outputs_than_inputs=True),
            logits)
  # Labels >= num_classes - 1 end a sequence: entry 0 stops after [1, 2],
  # entry 2 has only padding.
  padded = tf.SparseTensor(
      tf.constant([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]], tf.int64),
      tf.constant([1, 2, K - 1, 3, K - 1, K + 3], tf.int32), [B, 3])
  with_grad("ctc_padding", tf1.nn.ctc_loss(padded, logits, seq_len), logits)
  with_grad("ctc_f64", tf1.nn.ctc_loss(labels, p["logits64"], seq_len),
            p["logits64"])
  batch_major = tf.transpose(logits, [1, 0, 2])
  with_grad("ctc_batch_major", tf1.nn.ctc_loss(
      labels, batch_major, seq_len, time_major=False), batch_major)
  # tf.nn.ctc_loss with sparse labels: a PartitionedCall of CTCLoss (blank
  # 0: TensorFlow rolls the logits so that it comes last).
  with_grad("ctc_v2_sparse", tf.nn.ctc_loss(
      sparse_labels(blank_first=True), logits, None, seq_len, blank_index=0),
            logits)
  with_grad("ctc_v2_sparse_last", tf.nn.ctc_loss(
      labels, logits, None, seq_len, blank_index=K - 1), logits)
  # (tf.nn.ctc_loss with dense labels is in the training graph.)

  def decoded(name, d, log_prob):
    for k, sp in enumerate(d):
      c["%s%d_indices" % (name, k)] = sp.indices
      c["%s%d_values" % (name, k)] = sp.values
      c["%s%d_shape" % (name, k)] = sp.dense_shape
    c[name + "_log_prob"] = log_prob

  decoded("greedy", *tf.nn.ctc_greedy_decoder(logits, seq_len))
  decoded("greedy_nomerge", *tf.nn.ctc_greedy_decoder(
      logits, seq_len, merge_repeated=False))
  decoded("greedy_blank0", *tf.nn.ctc_greedy_decoder(
      logits, seq_len, blank_index=0))
  decoded("greedy_f64", *tf.nn.ctc_greedy_decoder(p["logits64"], seq_len))
  bl, blen = p["beam_logits"], p["beam_len"]
  decoded("beam1", *tf1.nn.ctc_beam_search_decoder(bl, blen, beam_width=1))
  decoded("beam4", *tf1.nn.ctc_beam_search_decoder(bl, blen, beam_width=4,
                                                    top_paths=3))
  decoded("beam4_nomerge", *tf1.nn.ctc_beam_search_decoder(
      bl, blen, beam_width=4, top_paths=2, merge_repeated=False))
  decoded("beam25", *tf1.nn.ctc_beam_search_decoder(bl, blen, beam_width=25,
                                                     top_paths=5))
  decoded("beam_f64", *tf1.nn.ctc_beam_search_decoder(
      p["logits64"], seq_len, beam_width=3, top_paths=2))
  decoded("beam_small", *tf.nn.ctc_beam_search_decoder(logits, seq_len,
                                                        beam_width=2))
  greedy = tf.nn.ctc_greedy_decoder(logits, seq_len)[0][0]
  truth = tf.cast(labels, tf.int64)
  c["edit_distance"] = tf.edit_distance(greedy, truth)
  c["edit_distance_raw"] = tf.edit_distance(greedy, truth, normalize=False)
  return c


def text_cases(p):
  c = {}
  R = tf.raw_ops
  words = tf.constant(WORDS)
  split = tf.strings.split(words)

  def ragged(name, rt):
    c[name + "_values"] = rt.flat_values
    for k, s in enumerate(rt.nested_row_splits):
      c["%s_splits%d" % (name, k)] = s

  # tf.strings.split's RaggedTensor and what text models do with it.
  ragged("split", split)
  c["split_tensor"] = split.to_tensor()
  c["split_tensor_pad"] = split.to_tensor(default_value="<pad>",
                                          shape=[6, 3])
  sp = split.to_sparse()
  c["split_sparse_indices"] = sp.indices
  c["split_sparse_values"] = sp.values
  c["split_sparse_shape"] = sp.dense_shape
  c["split_lengths"] = split.row_lengths()
  c["split_hash"] = tf.strings.to_hash_bucket_fast(split, 50).to_tensor()
  ragged("bytes_split", tf.strings.bytes_split(tf.constant(["abc", "", "de"])))
  ragged("unicode_split", tf.strings.unicode_split(tf.constant(UNICODE),
                                                   "UTF-8"))
  ragged("chars_of_split", tf.strings.unicode_split(split, "UTF-8"))
  c["split_v1_chars_values"] = tf1.string_split(
      tf.constant(["ab", "", "cde"]), delimiter="").values
  # n-grams.
  ragged("bigrams", tf.strings.ngrams(split, 2))
  ragged("ngrams_13", tf.strings.ngrams(split, (1, 3), separator="_"))
  ragged("ngrams_pad", tf.strings.ngrams(split, 3, pad_values=("<s>", "</s>"),
                                         padding_width=1))
  ragged("ngrams_pad_full", tf.strings.ngrams(split, (2, 4),
                                              pad_values=("[", "]")))
  ragged("ngrams_short", tf.strings.ngrams(split, 4, pad_values="#",
                                           padding_width=1,
                                           preserve_short_sequences=True))
  c["ngrams_dense"] = tf.strings.ngrams(
      tf.constant([["a", "b", "c", "d"], ["e", "f", "g", "h"]]), 3)
  ng, ng_splits = R.StringNGrams(
      data=tf.constant(["x", "y", "z"]), data_splits=tf.constant([0, 1, 3, 3]),
      separator="+", ngram_widths=[2], left_pad="L", right_pad="R",
      pad_width=-1, preserve_short_sequences=False)
  c["ngrams_raw"], c["ngrams_raw_splits"] = ng, ng_splits
  ng, ng_splits = R.StringNGrams(
      data=tf.constant(["x", "y"]), data_splits=tf.constant([0, 2]),
      separator="", ngram_widths=[5], left_pad="<", right_pad=">",
      pad_width=3, preserve_short_sequences=False)
  c["ngrams_pads_only"], c["ngrams_pads_only_splits"] = ng, ng_splits
  # Regex with the pattern a tensor (RegexFullMatch, not the static op).
  c["regex_full_match"] = tf.strings.regex_full_match(
      words, tf.identity(tf.constant(".*o.*")))
  c["regex_full_match_2d"] = tf.strings.regex_full_match(
      tf.constant([["ab1", "x"], ["", "9"]]),
      tf.identity(tf.constant("[a-z]*[0-9]?")))
  c["segment_join"] = tf.strings.unsorted_segment_join(
      tf.constant(["a", "", "b", "c", "", "d"]), [0, 0, 2, 0, 3, 2], 4,
      separator="|")
  c["segment_join_2d"] = tf.strings.unsorted_segment_join(
      tf.constant([["a", "b"], ["c", "d"], ["e", "f"]]),
      tf.constant([1, 0, 1], tf.int64), tf.constant(2, tf.int64))
  # Unicode.
  uni = tf.constant(UNICODE)
  ragged("decode", tf.strings.unicode_decode(uni, "UTF-8"))
  dec, off = tf.strings.unicode_decode_with_offsets(uni, "UTF-8")
  ragged("decode_offsets_chars", dec)
  ragged("decode_offsets", off)
  bad = tf.constant(BAD_UTF8)
  ragged("decode_bad_replace", tf.strings.unicode_decode(bad, "UTF-8"))
  ragged("decode_bad_ignore", tf.strings.unicode_decode(bad, "UTF-8",
                                                        errors="ignore"))
  ragged("decode_bad_char", tf.strings.unicode_decode(
      bad, "UTF-8", replacement_char=ord("?"),
      replace_control_characters=True))
  d, o = tf.strings.unicode_decode_with_offsets(bad, "UTF-8", errors="ignore")
  ragged("decode_bad_ignore_offsets", o)
  ragged("decode_utf16", tf.strings.unicode_decode(
      tf.constant([b"\x00h\x00i", b"\xd8\x3d\xde\x00", b"\xdc\x00x"]),
      "UTF-16-BE"))
  ragged("decode_latin1", tf.strings.unicode_decode(
      tf.constant([b"caf\xe9", b"\xff\x80"]), "ISO-8859-1"))
  sp32, vals32 = R.UnicodeDecode(input=uni, input_encoding="UTF-8",
                                 Tsplits=tf.int32)
  c["decode_splits32"], c["decode_values32"] = sp32, vals32
  cps = p["code_points"]
  splits = tf.constant([0, 4, 4, 7, 10], tf.int64)
  for enc in ["UTF-8", "UTF-16-BE", "UTF-32-BE"]:
    for errors in ["replace", "ignore"]:
      c["encode_%s_%s" % (enc.replace("-", "").lower(), errors)] = (
          R.UnicodeEncode(input_values=cps, input_splits=splits,
                          output_encoding=enc, errors=errors,
                          replacement_char=0x2047))
  c["encode_ragged"] = tf.strings.unicode_encode(
      tf.ragged.constant([[104, 105], [], [0x4E2D]]), "UTF-8")
  c["encode_dense"] = tf.strings.unicode_encode(
      tf.constant([[72, 105], [0x1F600, 33]]), "UTF-16-BE")
  c["transcode_utf16"] = tf.strings.unicode_transcode(uni, "UTF-8",
                                                      "UTF-16-BE")
  c["transcode_latin1"] = tf.strings.unicode_transcode(
      tf.constant([b"caf\xe9", b"na\xefve"]), "ISO-8859-1", "UTF-8")
  c["transcode_bad"] = tf.strings.unicode_transcode(bad, "UTF-8", "UTF-8",
                                                    replacement_char=0x2A)
  c["transcode_bad_ignore"] = tf.strings.unicode_transcode(
      bad, "UTF-8", "UTF-32-BE", errors="ignore")
  c["script"] = tf.strings.unicode_script(
      tf.constant([72, 0x416, 0x4E2D, 0x627, 0x30, 0x1F600, 0x3042, 0x5D0,
                   0x10FFFF, -1, 0x110000]))
  c["lower_utf8"] = tf.strings.lower(uni, encoding="utf-8")
  c["upper_utf8"] = tf.strings.upper(uni, encoding="utf-8")
  c["lower_ascii"] = tf.strings.lower(uni)
  # Ragged ops.
  ragged("range", tf.ragged.range(tf.constant([0, 5, 3]),
                                  tf.constant([3, 5, 10]),
                                  tf.constant([1, 2, 3])))
  ragged("range_neg", tf.ragged.range(tf.constant([5.0, 0.0]),
                                      tf.constant([0.0, 1.0]),
                                      tf.constant([-1.5, 0.25])))
  ragged("range_scalar", tf.ragged.range(4))
  ragged("gather", tf.gather(split, [4, 0, 0, 1]))
  ragged("gather_2d", tf.gather(split, [[3, 1], [0, 2]]))
  nested = tf.RaggedTensor.from_nested_row_splits(
      tf.constant([1, 2, 3, 4, 5, 6, 7]),
      [tf.constant([0, 2, 2, 3], tf.int64),
       tf.constant([0, 1, 4, 7], tf.int64)], validate=False)
  ragged("gather_nested", tf.gather(nested, [2, 0]))
  ragged("concat", tf.concat([split, tf.strings.split(tf.constant(
      ["x", "y z", "", "w", "v"]))], axis=1))
  ragged("slice", split[:, :2])
  c["nested_tensor"] = nested.to_tensor(default_value=-1)
  c["nested_tensor_shape"] = nested.to_tensor(shape=[2, 2, 2])
  nsp = nested.to_sparse()
  c["nested_sparse_indices"] = nsp.indices
  c["nested_sparse_shape"] = nsp.dense_shape
  uniform = tf.RaggedTensor.from_row_splits(
      tf.reshape(tf.range(12.0), [6, 2]), tf.constant([0, 3, 3, 6], tf.int64),
      validate=False)
  c["uniform_tensor"] = uniform.to_tensor(default_value=[-1.0, -2.0])
  usp = uniform.to_sparse()
  c["uniform_sparse_indices"] = usp.indices
  c["uniform_sparse_values"] = usp.values
  c["bincount"] = tf.math.bincount(tf.constant([1, 1, 3, 7, 0]))
  c["bincount_weights"] = tf.math.bincount(
      tf.constant([1, 1, 3]), weights=tf.constant([0.5, 0.25, 2.0]),
      minlength=5)
  c["bincount_binary_2d"] = tf.math.bincount(
      tf.constant([[1, 1, 3], [0, 2, 9]]), minlength=4, maxlength=4,
      binary_output=True, axis=-1)
  c["bincount_raw64"] = R.DenseBincount(
      input=tf.constant([2, 2, 4], tf.int64), size=tf.constant(3, tf.int64),
      weights=tf.constant([], tf.int64))
  return c


def text_vectorization():
  """Keras' TextVectorization (int mode) on constant sentences."""
  import tf_keras  # noqa: E402
  layer = tf_keras.layers.TextVectorization(
      output_mode="int", output_sequence_length=6,
      vocabulary=["the", "fox", "dog", "lazy", "quick"])
  return {"text_vectorization": layer(tf.constant(
      ["The quick brown fox!", "the LAZY dog, the end", ""]))}


def write_cases(out_dir, feeds, values, written):
  numbers, strings = [written], [written]
  for k, v in feeds.items():
    numbers.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    v = np.asarray(values[k])
    if v.dtype.kind in "OS":
      strings.append("%s | %s" % (
          head("fetch", "out_" + k, v, "string"),
          " ".join("x" + bytes(e).hex() for e in v.flat)))
    else:
      numbers.append("%s | %s" % (head("fetch", "out_" + k, v), fmt(v)))
  with open(os.path.join(out_dir, "cases.txt"), "w") as f:
    f.write("\n".join(numbers) + "\n")
  if len(strings) > 1:
    with open(os.path.join(out_dir, "strings.txt"), "w") as f:
      f.write("\n".join(strings) + "\n")


def main_values():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
         for k, v in FEEDS.items()}
    cases = ctc_cases(p)
    cases.update(text_cases(p))
    cases.update(text_vectorization())
    outs = {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}
    init = tf1.tables_initializer(name="tables_init")
    with tf1.Session() as s:
      s.run(init)
      values = s.run(outs, {p[k]: v for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  write_cases(OUT, FEEDS, values,
              "# Written by tools/tf_reference/make_text_ops_reference.py "
              "with TensorFlow %s." % tf.__version__)
  print("wrote", OUT, len(values), "fetches")


STEPS = 3


def main_training():
  """Logits in variables, three GradientDescent steps on CTC losses."""
  os.makedirs(TRAIN_OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    init_logits = np.random.RandomState(3).standard_normal(
        (T, B, K)).astype(np.float32)
    w = tf1.get_variable("logits", initializer=init_logits,
                         use_resource=True)
    w2 = tf1.get_variable("logits_dense", initializer=init_logits,
                          use_resource=True)
    seq_len = tf1.placeholder(tf.int32, [B], name="seq_len")
    labels = sparse_labels()
    loss_v1 = tf.reduce_mean(tf1.nn.ctc_loss(labels, w, seq_len))
    loss_v2 = tf.reduce_mean(tf.nn.ctc_loss(
        sparse_labels(blank_first=True), w, None, seq_len, blank_index=0))
    dense = tf.constant([[1, 2, 2, 3], [1, 1, 0, 0], [4, 1, 3, 0]], tf.int32)
    loss_dense = tf.reduce_mean(tf.nn.ctc_loss(
        dense, w2, tf.constant([4, 2, 3]), seq_len, logits_time_major=True,
        blank_index=0))
    opt = tf1.train.GradientDescentOptimizer(0.5)
    train = tf.group(opt.minimize(loss_v1 + 0.5 * loss_v2),
                     opt.minimize(loss_dense), name="train")
    init = tf1.variables_initializer([w, w2], name="init")
    outs = {"loss_v1": loss_v1, "loss_v2": loss_v2,
            "loss_dense": loss_dense, "logits": w.read_value(),
            "logits_dense": w2.read_value()}
    outs = {k: tf.identity(v, name="out_" + k) for k, v in outs.items()}
    feeds = {"seq_len": np.array([6, 4, 5], np.int32)}
    with tf1.Session() as s:
      s.run(init)
      for _ in range(STEPS):
        s.run(train, {seq_len: feeds["seq_len"]})
      values = s.run(outs, {seq_len: feeds["seq_len"]})
  with open(os.path.join(TRAIN_OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  write_cases(TRAIN_OUT, feeds, values,
              "# Written by tools/tf_reference/make_text_ops_reference.py "
              "with TensorFlow %s: the losses and variables after %d runs "
              "of `train`." % (tf.__version__, STEPS))
  print("wrote", TRAIN_OUT, values["loss_v1"], values["loss_dense"])


if __name__ == "__main__":
  main_values()
  main_training()
