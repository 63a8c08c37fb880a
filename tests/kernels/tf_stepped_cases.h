// The value tests of TensorFlow-written graphs that change variables
// (training_ops_regularized_test, variable_scatter_test): a directory with
// graph.pb and cases.txt (tf_value_cases.h's format) where the fetches are
// the variables after the reference ran `init` once and then `target`
// `steps` times with the feeds. RunSteps does the same in dflow and
// ExpectValues compares (floats within 1e-5 of float32 values, relative
// above 1; 1e-12 for float64; integers exactly).
#ifndef DFLOW_TESTS_KERNELS_TF_STEPPED_CASES_H_
#define DFLOW_TESTS_KERNELS_TF_STEPPED_CASES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph_def_file.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace testing_tf_values {

// Runs `dir`/graph.pb: `init`, then `target` `steps` times with every feed
// of `lines`, then fetches every fetch line into `outputs` (in the order of
// `fetched`). Fails the test when the graph does not load or a run fails.
// `options`: the session's (the GPU value test's real GPUs).
inline void RunSteps(const std::string& dir, const std::vector<Line>& lines,
                     const std::string& target, int steps,
                     std::vector<const Line*>* fetched,
                     std::vector<Tensor>* outputs,
                     const SessionOptions& options = SessionOptions()) {
  absl::StatusOr<std::unique_ptr<Session>> session = OpenGraph(dir, options);
  ASSERT_TRUE(session.ok()) << session.status();
  FeedList feeds;
  std::vector<std::string> fetches;
  SplitFeedsAndFetches(lines, &feeds, &fetches, fetched);
  absl::Status s = (*session)->Run({}, {}, {"init"}, outputs);
  ASSERT_TRUE(s.ok()) << s;
  for (int step = 0; step < steps; ++step) {
    s = (*session)->Run(feeds, {}, {target}, outputs);
    ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
  }
  // The variables are read in a run of their own, after every update.
  s = (*session)->Run(feeds, fetches, {}, outputs);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(outputs->size(), fetched->size());
}

inline void ExpectValues(const std::vector<const Line*>& fetched,
                         const std::vector<Tensor>& outputs) {
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    const double tol = want.dtype == "float32"   ? 1e-5
                       : want.dtype == "float64" ? 1e-12
                                                 : 0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      EXPECT_NEAR(Element(got, i), w, tol * std::max(1.0, std::abs(w)))
          << "element " << i;
    }
  }
}

}  // namespace testing_tf_values
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_TF_STEPPED_CASES_H_
