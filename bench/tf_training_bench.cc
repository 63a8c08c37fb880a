// dflow's side of bench/compare_tf.sh: one training graph that TensorFlow
// wrote (a directory of tools/tf_reference/make_corpus.py), timed as a user
// runs it:
//   load_first_step_ms  reading graph.pb, Session::Create, the initializer
//                       and the first training step (the first compiles);
//   step_ms             the median of --steps warm training steps (after
//                       --warmup), each fetching the loss.
// Prints one line, `load_first_step_ms=<v> step_ms=<v> loss=<v>`, so the
// script can read it; --threads sets the session's pool (one process per
// thread count: the pool is process-wide).
//
//   tf_training_bench --dir DIR [--threads N] [--steps 20] [--warmup 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "runtime/session.h"

namespace dflow {
namespace {

struct Reference {
  std::string init, train, loss;
  FeedList feeds;
};

bool ReadReference(const std::string& dir, Reference* ref) {
  std::ifstream in(dir + "/reference.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f[0] == "init" && f.size() == 2) ref->init = f[1];
    if (f[0] == "train" && f.size() == 2) ref->train = f[1];
    if (f[0] == "loss" && f.size() == 2) ref->loss = f[1];
    if (f[0] == "feed" && f.size() == 3) {
      absl::StatusOr<Tensor> t = ReadNpyFile(dir + "/" + f[2]);
      if (!t.ok()) {
        std::cerr << t.status() << "\n";
        return false;
      }
      ref->feeds.emplace_back(f[1], *std::move(t));
    }
  }
  return !ref->init.empty() && !ref->train.empty() && !ref->loss.empty();
}

double Ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - since)
      .count();
}

int Main(int argc, char** argv) {
  std::string dir;
  int threads = 0, steps = 20, warmup = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    bool ok = true;
    if (flag == "--dir") {
      dir = value;
    } else if (flag == "--threads") {
      ok = absl::SimpleAtoi(value, &threads);
    } else if (flag == "--steps") {
      ok = absl::SimpleAtoi(value, &steps) && steps > 0;
    } else if (flag == "--warmup") {
      ok = absl::SimpleAtoi(value, &warmup);
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "bad flag " << flag << " " << value << "\n";
      return 2;
    }
  }
  Reference ref;
  if (dir.empty() || !ReadReference(dir, &ref)) {
    std::cerr << "usage: tf_training_bench --dir CORPUS_GRAPH_DIR "
                 "[--threads N] [--steps N] [--warmup N]\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(dir + "/graph.pb");
  if (!def.ok()) {
    std::cerr << def.status() << "\n";
    return 1;
  }
  SessionOptions options;
  options.num_threads = threads;
  options.allow_soft_placement = true;  // the towers ask for GPUs
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*def, options);
  if (!session.ok()) {
    std::cerr << session.status() << "\n";
    return 1;
  }
  absl::Status s = (*session)->Run({}, {}, {ref.init}, nullptr);
  std::vector<Tensor> out;
  if (s.ok()) s = (*session)->Run(ref.feeds, {ref.loss}, {ref.train}, &out);
  if (!s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  const double load_first_step_ms = Ms(start);
  for (int i = 0; i < warmup && s.ok(); ++i) {
    s = (*session)->Run(ref.feeds, {ref.loss}, {ref.train}, &out);
  }
  std::vector<double> times;
  for (int i = 0; i < steps && s.ok(); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    s = (*session)->Run(ref.feeds, {ref.loss}, {ref.train}, &out);
    times.push_back(Ms(t0));
  }
  if (!s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  std::sort(times.begin(), times.end());
  std::printf("load_first_step_ms=%.3f step_ms=%.4f loss=%.6g\n",
              load_first_step_ms, times[times.size() / 2],
              out[0].flat<float>()[0]);
  return 0;
}

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) { return dflow::Main(argc, argv); }
