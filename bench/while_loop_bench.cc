// dflow's side of bench/compare_tf_loops.sh: runs a while-loop GraphDef
// (TensorFlow's, written by bench/tf_loop_peer.py) and prints the median
// time per iteration over REPS runs of the whole loop:
//   dflow while_loop iterations=N threads=T us_per_iteration=X
//
//   while_loop_bench GRAPH.pb ITERATIONS THREADS REPS
// The graph fetches "out", which must equal ITERATIONS (checked).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "graph/graph_def_file.h"
#include "runtime/session.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: while_loop_bench GRAPH.pb ITERATIONS THREADS REPS\n");
    return 2;
  }
  const int iterations = std::atoi(argv[2]);
  const int threads = std::atoi(argv[3]);
  const int reps = std::max(1, std::atoi(argv[4]));
  absl::StatusOr<dflow::GraphDef> def = dflow::ReadGraphDefFile(argv[1]);
  if (!def.ok()) {
    std::fprintf(stderr, "%s\n", def.status().ToString().c_str());
    return 1;
  }
  dflow::SessionOptions options;
  options.num_threads = threads;
  absl::StatusOr<std::unique_ptr<dflow::Session>> session =
      dflow::Session::Create(*def, options);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  std::vector<dflow::Tensor> out;
  for (int warm = 0; warm < 2; ++warm) {
    absl::Status s = (*session)->Run({}, {"out"}, {}, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
  }
  if (out[0].data<int32_t>()[0] != iterations) {
    std::fprintf(stderr, "the loop gave %d, expected %d\n",
                 out[0].data<int32_t>()[0], iterations);
    return 1;
  }
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    absl::Status s = (*session)->Run({}, {"out"}, {}, &out);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    times.push_back(std::chrono::duration<double>(end - start).count());
  }
  std::sort(times.begin(), times.end());
  std::printf(
      "dflow while_loop iterations=%d threads=%d us_per_iteration=%.3f\n",
      iterations, threads, times[times.size() / 2] / iterations * 1e6);
  return 0;
}
