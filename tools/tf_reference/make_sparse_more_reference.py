#!/usr/bin/env python3
"""TensorFlow 2.21's values for the tf.sparse and tf.sets ops of
graph/ops/sparse_ops*.cc.

Writes tests/testdata/tf_sparse_more/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): constant
                SparseTensors (sorted and unsorted, int and float, empty),
                every op on them, and the gradients tf.gradients writes
                through tf.sparse.add, slice, sparse_dense_matmul (all
                adjoints), softmax, fill_empty_rows, reduce_sum and
                sparse_segment_*; each result part named out_<case>_<k> by
                an Identity (string results as their 62-bit
                StringToHashBucketFast, which dflow has bit for bit)
  cases.txt     TensorFlow's values, one per line
                (tools/tf_reference/value_cases.py's format)
Read by tests/kernels/sparse_more_ops_test.cc.

Run: python3 tools/tf_reference/make_sparse_more_reference.py
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_sparse_more")


def sp(indices, values, shape, dtype=tf.float32):
  return tf.SparseTensor(tf.constant(indices, tf.int64, [len(indices), len(shape)]),
                         tf.constant(values, dtype), tf.constant(shape, tf.int64))


def parts(st):
  return [st.indices, st.values, st.dense_shape]


def hashed(t):
  # Strings compared through their 62-bit FarmHash buckets.
  return tf.strings.to_hash_bucket_fast(t, 2**62)


def build():
  c = {}
  a = sp([[0, 1], [1, 0], [1, 2], [2, 3]], [1.5, -2.0, 3.0, 0.25], [3, 4])
  b = sp([[0, 1], [1, 1], [1, 2], [2, 0]], [-1.5, 4.0, -2.999, 7.0], [3, 4])
  ai = sp([[0, 0], [0, 2], [1, 1]], [3, -4, 5], [2, 3], tf.int32)
  bi = sp([[0, 2], [1, 0], [1, 1]], [4, 6, -9], [2, 3], tf.int32)
  unsorted = sp([[2, 1], [0, 3], [1, 0], [0, 0]], [1.0, 2.0, 3.0, 4.0],
                [3, 4])
  empty = sp(np.zeros((0, 2), np.int64), np.zeros((0,), np.float32), [3, 4])
  three = sp([[0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 1, 1], [1, 1, 2]],
             [1.0, -2.0, 3.0, 0.5, 4.0], [2, 2, 3])

  # SparseAdd (+ threshold, unsorted, empty, int) and its gradient.
  c["add"] = parts(tf.sparse.add(a, b))
  c["add_thresh"] = parts(tf.sparse.add(a, b, threshold=0.01))
  c["add_int"] = parts(tf.sparse.add(ai, bi))
  c["add_empty"] = parts(tf.sparse.add(a, empty))
  c["add_unsorted"] = parts(tf.sparse.add(unsorted, b))
  c["add_dense"] = [tf.sparse.add(a, tf.ones([3, 4]) * 0.5)]
  c["add_dense_i32idx"] = [R.SparseTensorDenseAdd(
      a_indices=tf.cast(ai.indices, tf.int32), a_values=ai.values,
      a_shape=tf.constant([2, 3], tf.int32), b=tf.ones([2, 3], tf.int32))]
  s = tf.sparse.add(a, b, threshold=0.01)
  c["add_grad"] = tf.gradients(s.values * tf.range(1.0, 5.0),
                               [a.values, b.values])

  # Concat (dims 0, 1, -1, unsorted input), reorder, slice, split.
  c["concat0"] = parts(tf.sparse.concat(0, [a, b, empty]))
  c["concat1"] = parts(tf.sparse.concat(1, [a, unsorted]))
  c["concat_neg"] = parts(tf.sparse.concat(-1, [ai, bi]))
  c["reorder"] = parts(tf.sparse.reorder(unsorted))
  c["reorder_int"] = parts(tf.sparse.reorder(
      sp([[1, 1], [0, 2], [1, 0]], [7, 8, 9], [2, 3], tf.int64)))
  c["slice"] = parts(tf.sparse.slice(a, [1, 0], [2, 3]))
  c["slice_past_end"] = parts(tf.sparse.slice(three, [1, 1, 1], [5, 5, 5]))
  c["slice_empty"] = parts(tf.sparse.slice(a, [3, 4], [2, 2]))
  sl = tf.sparse.slice(a, [1, 0], [2, 3])
  c["slice_grad"] = tf.gradients(sl.values * 3.0, [a.values])
  for k, part in enumerate(tf.sparse.split(sp_input=a, num_split=3, axis=1)):
    c["split_%d" % k] = parts(part)
  for k, part in enumerate(tf.sparse.split(sp_input=three, num_split=2,
                                           axis=-1)):
    c["split3_%d" % k] = parts(part)

  # Sparse x dense products, all four adjoints, and their gradients.
  dense = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0)
  dense_t = tf.transpose(dense)
  dense3 = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0)
  c["matmul"] = [tf.sparse.sparse_dense_matmul(a, dense)]
  c["matmul_adj_b"] = [tf.sparse.sparse_dense_matmul(a, dense_t,
                                                     adjoint_b=True)]
  c["matmul_adj_a"] = [tf.sparse.sparse_dense_matmul(a, dense3,
                                                     adjoint_a=True)]
  c["matmul_adj_ab"] = [tf.sparse.sparse_dense_matmul(
      a, tf.transpose(dense3), adjoint_a=True, adjoint_b=True)]
  c["matmul_int"] = [tf.sparse.sparse_dense_matmul(
      ai, tf.constant([[1, 2], [3, 4], [5, 6]], tf.int32))]
  c["matmul_i32idx"] = [R.SparseTensorDenseMatMul(
      a_indices=tf.cast(a.indices, tf.int32), a_values=a.values,
      a_shape=a.dense_shape, b=dense)]
  w = tf.constant([[1.0, -1.0, 2.0], [0.5, 0.0, 1.0], [3.0, 1.0, -2.0]])
  for name, kw, rhs in [("", {}, dense), ("_adj_a", {"adjoint_a": True}, dense3),
                        ("_adj_b", {"adjoint_b": True}, dense_t),
                        ("_adj_ab", {"adjoint_a": True, "adjoint_b": True},
                         tf.transpose(dense3))]:
    prod = tf.sparse.sparse_dense_matmul(a, rhs, **kw)
    loss = tf.reduce_sum(prod * tf.reshape(
        tf.range(1.0, 1.0 + tf.cast(tf.size(prod), tf.float32)),
        tf.shape(prod)))
    c["matmul_grad" + name] = tf.gradients(loss, [a.values, rhs])

  # Element-wise with a dense operand (broadcast), softmax, reductions.
  row = tf.constant([1.0, 2.0, -4.0, 0.5])
  col = tf.constant([[2.0], [-1.0], [4.0]])
  c["cwise_add"] = [R.SparseDenseCwiseAdd(sp_indices=a.indices,
                                          sp_values=a.values,
                                          sp_shape=a.dense_shape, dense=row)]
  c["cwise_mul"] = [(a * col).values]
  c["cwise_div"] = [(a / row).values]
  c["cwise_div_int"] = [R.SparseDenseCwiseDiv(
      sp_indices=ai.indices, sp_values=ai.values, sp_shape=ai.dense_shape,
      dense=tf.constant([[2, -3, 3]]))]
  c["cwise_mul_full"] = [(three * tf.reshape(tf.range(12.0), [2, 2, 3]))
                         .values]
  c["softmax"] = [tf.sparse.softmax(a).values]
  c["softmax3"] = [tf.sparse.softmax(three).values]
  c["softmax_f64"] = [tf.sparse.softmax(
      tf.SparseTensor(a.indices, tf.cast(a.values, tf.float64) * 10.0,
                      a.dense_shape)).values]
  smx = tf.sparse.softmax(three)
  c["softmax_grad"] = tf.gradients(smx.values * tf.range(1.0, 6.0),
                                   [three.values])
  c["reduce_sum_all"] = [tf.sparse.reduce_sum(a)]
  c["reduce_sum_1"] = [tf.sparse.reduce_sum(a, axis=1)]
  c["reduce_sum_keep"] = [tf.sparse.reduce_sum(three, axis=[0, 2],
                                               keepdims=True)]
  c["reduce_sum_neg"] = [tf.sparse.reduce_sum(ai, axis=-1)]
  c["reduce_sum_none"] = [R.SparseReduceSum(
      input_indices=a.indices, input_values=a.values,
      input_shape=a.dense_shape, reduction_axes=tf.zeros([0], tf.int32))]
  c["reduce_sum_sparse"] = parts(tf.sparse.reduce_sum(three, axis=1,
                                                      output_is_sparse=True))
  c["reduce_sum_sparse_keep"] = parts(tf.sparse.reduce_sum(
      a, axis=0, keepdims=True, output_is_sparse=True))
  c["reduce_max_1"] = [tf.sparse.reduce_max(
      sp([[0, 0], [0, 2], [1, 1]], [-1.0, -2.0, -3.0], [3, 3]), axis=1)]
  c["reduce_max_int"] = [tf.sparse.reduce_max(ai, axis=0)]
  c["reduce_max_all"] = [tf.sparse.reduce_max(three)]
  c["reduce_max_sparse"] = parts(tf.sparse.reduce_max(three, axis=2,
                                                      output_is_sparse=True))
  rs = tf.sparse.reduce_sum(three, axis=1)
  c["reduce_sum_grad"] = tf.gradients(rs * tf.constant([[1.0, 2.0, 3.0],
                                                        [4.0, 5.0, 6.0]]),
                                      [three.values])
  c["maximum"] = parts(tf.sparse.maximum(a, b))
  c["minimum"] = parts(tf.sparse.minimum(a, b))
  c["maximum_int"] = parts(tf.sparse.maximum(ai, bi))
  c["minimum_empty"] = parts(tf.sparse.minimum(empty, a))

  # fill_empty_rows' gradient; the sparse segment V2 gradients.
  holes = sp([[0, 1], [2, 0], [2, 3]], [1.0, 2.0, 3.0], [4, 4])
  filled, _ = tf.sparse.fill_empty_rows(holes, -1.0)
  c["fill_empty_rows_grad"] = tf.gradients(
      filled.values * tf.range(1.0, 6.0), [holes.values])
  c["fill_empty_rows_grad_raw"] = list(R.SparseFillEmptyRowsGrad(
      reverse_index_map=tf.constant([0, 2, 3], tf.int64),
      grad_values=tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])))
  data = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3) - 7.0)
  seg_idx = tf.constant([3, 0, 3, 1, 4, 0], tf.int32)
  seg_ids = tf.constant([0, 0, 1, 1, 1, 3], tf.int32)
  gvec = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 3.0)
  for name, fn in [("sum", tf.sparse.segment_sum),
                   ("mean", tf.sparse.segment_mean),
                   ("sqrtn", tf.sparse.segment_sqrt_n)]:
    y = fn(data, seg_idx, seg_ids, num_segments=4)
    g = tf.gradients(tf.reduce_sum(y * gvec), [data])[0]
    c["segment_%s_grad" % name] = [tf.convert_to_tensor(g)]
  raw = {"sum": R.SparseSegmentSumGradV2, "mean": R.SparseSegmentMeanGradV2,
         "sqrtn": R.SparseSegmentSqrtNGradV2}
  for name, op in raw.items():
    c["segment_%s_grad_v2" % name] = list(op(
        grad=gvec, indices=tf.cast(seg_idx, tf.int64), segment_ids=seg_ids,
        dense_output_dim0=5))

  # Crosses: strings (joined), hashed (FarmHash), V2, hashed V2, dense.
  s1 = tf.SparseTensor(tf.constant([[0, 0], [0, 1], [2, 0]], tf.int64),
                       tf.constant(["a", "bb", "c"]),
                       tf.constant([3, 2], tf.int64))
  s2 = tf.SparseTensor(tf.constant([[0, 0], [1, 0], [2, 0], [2, 1]],
                                   tf.int64),
                       tf.constant([7, -3, 12, 5], tf.int64),
                       tf.constant([3, 2], tf.int64))
  d1 = tf.constant([["x"], ["y"], ["z"]])
  d2 = tf.constant([[1, 2], [3, 4], [5, 6]], tf.int64)
  cr = tf.sparse.cross([s1, s2, d1])
  c["cross_v2"] = [cr.indices, hashed(cr.values), cr.dense_shape]
  cr = tf.sparse.cross([s1, d2], separator="--")
  c["cross_v2_sep"] = [cr.indices, hashed(cr.values), cr.dense_shape]
  cr = tf.sparse.cross_hashed([s1, s2, d2], num_buckets=1000)
  c["cross_hashed"] = parts(cr)
  cr = tf.sparse.cross_hashed([s2, d1], num_buckets=0, hash_key=12345)
  c["cross_hashed_nobucket"] = parts(cr)
  v1 = R.SparseCross(indices=[s1.indices, s2.indices],
                     values=[s1.values, s2.values],
                     shapes=[s1.dense_shape, s2.dense_shape],
                     dense_inputs=[d1], hashed_output=False, num_buckets=0,
                     hash_key=0, out_type=tf.string, internal_type=tf.int64)
  c["cross_v1_string"] = [v1[0], hashed(v1[1]), v1[2]]
  c["cross_hashed_v2op"] = list(R.SparseCrossHashed(
      indices=[s1.indices, s2.indices], values=[s1.values, s2.values],
      shapes=[s1.dense_shape, s2.dense_shape], dense_inputs=[d2],
      num_buckets=97, strong_hash=False, salt=[3, 4]))
  c["cross_hashed_v2op_dense"] = list(R.SparseCrossHashed(
      indices=[], values=[], shapes=[], dense_inputs=[d1, d2],
      num_buckets=0, strong_hash=False, salt=[1, 2]))

  # Sets: dense/dense, dense/sparse, sparse/sparse, every operation; sizes.
  x = tf.constant([[1, 2, 2, 5], [3, 3, 9, 0]], tf.int64)
  y = tf.constant([[5, 4, 1, 1], [0, 7, 8, 3]], tf.int64)
  ys = tf.SparseTensor(tf.constant([[0, 0], [0, 1], [1, 0]], tf.int64),
                       tf.constant([2, 8, 9], tf.int64),
                       tf.constant([2, 4], tf.int64))
  xs = tf.SparseTensor(tf.constant([[0, 0], [0, 2], [1, 1], [1, 3]],
                                   tf.int64),
                       tf.constant([4, 2, 9, 9], tf.int64),
                       tf.constant([2, 4], tf.int64))
  for op in ["intersection", "union", "a-b", "b-a"]:
    name = op.replace("-", "_")
    c["set_dd_" + name] = list(R.DenseToDenseSetOperation(
        set1=x, set2=y, set_operation=op))
    c["set_ds_" + name] = list(R.DenseToSparseSetOperation(
        set1=x, set2_indices=ys.indices, set2_values=ys.values,
        set2_shape=ys.dense_shape, set_operation=op))
    c["set_ss_" + name] = list(R.SparseToSparseSetOperation(
        set1_indices=xs.indices, set1_values=xs.values,
        set1_shape=xs.dense_shape, set2_indices=ys.indices,
        set2_values=ys.values, set2_shape=ys.dense_shape, set_operation=op))
  st = tf.sets.intersection(tf.constant([["a", "b", "c"], ["b", "b", "d"]]),
                            tf.constant([["c", "a", "x"], ["d", "b", "b"]]))
  c["set_string"] = [st.indices, hashed(st.values), st.dense_shape]
  c["set_i32_3d"] = parts(tf.sets.union(
      tf.constant([[[1, 2], [3, 3]], [[5, 6], [0, 1]]], tf.int32),
      tf.constant([[[2, 2], [4, 3]], [[6, 5], [9, 9]]], tf.int32)))
  c["set_size"] = [tf.sets.size(xs)]
  c["set_size_dense_result"] = [tf.sets.size(tf.sets.union(x, y))]

  # SparseMatMul (tf.matmul with a_is_sparse/b_is_sparse).
  m1 = tf.constant([[1.0, 0.0, 2.0], [0.0, 0.0, -1.0]])
  m2 = tf.constant([[0.5, 1.0], [0.0, 0.0], [2.0, -3.0]])
  c["sparse_matmul"] = [tf.matmul(m1, m2, a_is_sparse=True)]
  c["sparse_matmul_t"] = [R.SparseMatMul(a=m2, b=m1, transpose_a=True,
                                         transpose_b=True, b_is_sparse=True)]

  outs = {}
  for name, ts in c.items():
    for k, t in enumerate(ts):
      outs["%s_%d" % (name, k)] = tf.identity(t, name="out_%s_%d" % (name, k))
  return outs


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      values = s.run(outs)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_sparse_more_reference.py "
           "with TensorFlow %s." % tf.__version__]
  for k in sorted(values):
    v = np.asarray(values[k])
    lines.append("%s | %s" % (head("fetch", "out_" + k, v), fmt(v)))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
