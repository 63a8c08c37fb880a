"""TensorFlow 2.21's side of bench/compare_tf_loops.sh: writes a TF1-style
(disable_control_flow_v2) scalar while loop, i = 0; while i < N: i += 1,
to OUT/while_loop.pb (fetch "out"), then times it in a tf.compat.v1
Session with THREADS intra- and inter-op threads: the median over REPS runs
of the whole loop, printed as
  tf while_loop iterations=N threads=T us_per_iteration=X

  python3 bench/tf_loop_peer.py OUT N THREADS REPS
"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1


def main():
  out_dir, n, threads, reps = sys.argv[1], int(sys.argv[2]), int(
      sys.argv[3]), int(sys.argv[4])
  tf1.disable_eager_execution()
  tf1.disable_control_flow_v2()
  g = tf.Graph()
  with g.as_default():
    limit = tf.constant(n, name="limit")
    i = tf1.while_loop(lambda i: i < limit, lambda i: i + 1,
                       [tf.constant(0)], parallel_iterations=10)
    tf.identity(i, name="out")
  with open(os.path.join(out_dir, "while_loop.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  config = tf1.ConfigProto(intra_op_parallelism_threads=threads,
                           inter_op_parallelism_threads=threads)
  with tf1.Session(graph=g, config=config) as sess:
    assert sess.run("out:0") == n
    sess.run("out:0")
    times = []
    for _ in range(reps):
      start = time.perf_counter()
      sess.run("out:0")
      times.append(time.perf_counter() - start)
  times.sort()
  print("tf while_loop iterations=%d threads=%d us_per_iteration=%.3f" %
        (n, threads, times[len(times) // 2] / n * 1e6))


if __name__ == "__main__":
  main()
