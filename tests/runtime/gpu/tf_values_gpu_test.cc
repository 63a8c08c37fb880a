// Every TensorFlow-written value graph of tests/testdata (a directory with
// graph.pb and cases.txt, tools/tf_reference/make_*_reference.py) on a real
// GPU: soft placement puts each op with a GPU kernel on GPU 0 and the rest
// on the CPU, with Send/Recv between them, and the fetches must equal
// TensorFlow's (float32 within 2e-4, float16 within 4e-3, float64 within
// 1e-6, relative above 1: the GPU kernels sum and approximate in other
// orders than the CPU ones TensorFlow's reference ran on; integers and
// bools exactly).
//
// A directory is read by its header: "... after N runs of `T`" runs `init`
// once, then T N times with the feeds, then fetches (as
// tests/kernels/tf_stepped_cases.h); a plain "Written by ..." header feeds
// and fetches in one run (tests/kernels/tf_value_cases.h); other headers
// (their own protocols: random streams fetched twice, accumulator rounds)
// are left to their own tests. The same cases run on the CPU alone
// everywhere (checking this test's reading of the files); the GPU run
// skips without a GPU. Reads tests/testdata relative to the working
// directory (Bazel's runfiles root, or the repository root where
// tools/gpu_device_check.sh runs the bundle).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_stepped_cases.h"
#include "tests/kernels/tf_value_cases.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using testing_tf_values::Line;

constexpr char kTestData[] = "tests/testdata";

struct ValueCase {
  std::string dir;  // with a trailing '/'
  std::string target;  // empty: one run
  int steps = 0;
};

// The cases of tests/testdata this test knows how to run, and the names of
// those it leaves to their own tests.
std::vector<ValueCase> ReadableCases(std::vector<std::string>* left) {
  std::vector<ValueCase> cases;
  std::vector<std::string> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(kTestData)) {
    if (std::filesystem::exists(entry.path() / "cases.txt") &&
        std::filesystem::exists(entry.path() / "graph.pb")) {
      dirs.push_back(entry.path().filename().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  const std::regex stepped("after ([0-9]+) runs of `([A-Za-z0-9_/]+)`");
  for (const std::string& name : dirs) {
    const std::string dir = absl::StrCat(kTestData, "/", name, "/");
    std::ifstream in(dir + "cases.txt");
    std::string header;
    std::getline(in, header);
    std::smatch m;
    ValueCase c;
    c.dir = dir;
    if (std::regex_search(header, m, stepped)) {
      c.target = m[2];
      EXPECT_TRUE(absl::SimpleAtoi(std::string(m[1]), &c.steps)) << header;
      cases.push_back(c);
    } else if (absl::StartsWith(header, "# Written by ") &&
               !absl::StrContains(header, ":")) {
      cases.push_back(c);
    } else {
      left->push_back(name);
    }
  }
  return cases;
}

// Relative tolerances (absolute below 1) per floating dtype; integers and
// bools compare exactly.
struct Tolerance {
  double float16 = 0;  // float16 and bfloat16
  double float32 = 0;  // float32 and complex64
  double float64 = 0;  // float64 and complex128

  double Of(const std::string& numpy_dtype) const {
    if (numpy_dtype == "float16" || numpy_dtype == "bfloat16") return float16;
    if (numpy_dtype == "float32" || numpy_dtype == "complex64") return float32;
    if (numpy_dtype == "float64" || numpy_dtype == "complex128") return float64;
    return 0;
  }
};

// Feeds every feed line of `lines` and fetches every fetch line in one run:
// `fetched` and `outputs` in the same order. A graph whose lookups find
// their tables empty (their own tests run `tables_init` first) runs it and
// tries again.
void RunOnce(const std::string& dir, const std::vector<Line>& lines,
             const SessionOptions& options, std::vector<const Line*>* fetched,
             std::vector<Tensor>* outputs) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      testing_tf_values::OpenGraph(dir, options);
  ASSERT_TRUE(session.ok()) << session.status();
  FeedList feeds;
  std::vector<std::string> fetches;
  testing_tf_values::SplitFeedsAndFetches(lines, &feeds, &fetches, fetched);
  absl::Status run = (*session)->Run(feeds, fetches, {}, outputs);
  if (absl::IsFailedPrecondition(run) &&
      absl::StrContains(run.message(), "Table not initialized")) {
    absl::Status init = (*session)->Run({}, {}, {"tables_init"}, nullptr);
    ASSERT_TRUE(init.ok()) << init << " (after: " << run << ")";
    run = (*session)->Run(feeds, fetches, {}, outputs);
  }
  ASSERT_TRUE(run.ok()) << run;
}

// The largest difference found, relative above 1 (0 when all are exact).
double CompareValues(const std::string& dir,
                     const std::vector<const Line*>& fetched,
                     const std::vector<Tensor>& outputs,
                     const Tolerance& tolerance,
                     const std::map<std::string, std::string>& known) {
  double worst = 0;
  EXPECT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size() && f < outputs.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    if (auto it = known.find(dir + " " + want.name); it != known.end()) {
      std::cout << "  not compared: " << want.name << " (" << it->second
                << ")\n";
      continue;
    }
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.dtype(), testing_tf_values::DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    if (got.dtype() != testing_tf_values::DtypeOf(want.dtype) ||
        testing_tf_values::NumValues(got) !=
            static_cast<int64_t>(want.values.size())) {
      ADD_FAILURE() << "dtype or size differs";
      continue;
    }
    // Half-precision results cast to float32 in the graph are named so.
    const bool half = absl::EndsWith(want.name, "_f16") ||
                      absl::EndsWith(want.name, "_bf16");
    const double tol = tolerance.Of(half ? "float16" : want.dtype);
    int reported = 0;
    for (int64_t i = 0; i < testing_tf_values::NumValues(got); ++i) {
      const double w = want.values[i];
      const double g = testing_tf_values::FlatValue(got, i);
      if (std::isnan(w) && std::isnan(g)) continue;
      if (std::isinf(w) && g == w) continue;
      const double difference = std::abs(g - w) / std::max(1.0, std::abs(w));
      worst = std::max(worst, difference);
      if (!(difference <= tol) && reported++ < 3) {
        ADD_FAILURE() << "value " << i << ": dflow " << g << ", TensorFlow "
                      << w;
      }
    }
  }
  return worst;
}

// Fetches a GPU gives other values than TensorFlow's, and why. Listed so
// the rest of their graph is still checked; each is a known gap to close.
const std::map<std::string, std::string>& KnownGpuDifferences() {
  // A reference variable's read taken before an update (AssignAdd,
  // ScatterAdd, Assign) and used after it: TensorFlow's read shares the
  // buffer the update changes in place, so it gives the new value. On a
  // GPU dflow's update kernels still copy on write, and dflow has no GPU
  // ScatterAdd (the variable stays on the CPU and the read reaches the GPU
  // as a copy sent before the update): the read gives the old value, or
  // the new one, depending on where and when. Seen on an H200 (2026-11-30).
  static const auto* known = [] {
    auto* m = new std::map<std::string, std::string>;
    for (const char* fetch :
         {"out_assign_add_got", "out_scatter_got", "out_assign_got"}) {
      m->emplace(absl::StrCat("tests/testdata/tf_ref_variables/ ", fetch),
                 "GPU reference updates copy on write: a read taken before "
                 "the update may keep the old value");
    }
    return m;
  }();
  return *known;
}

struct DeviceConfig {
  std::string label;
  bool gpu = false;
};

class TfValuesOnDevicesTest : public ::testing::TestWithParam<DeviceConfig> {};

TEST_P(TfValuesOnDevicesTest, EveryValueGraphGivesTensorFlowsValues) {
  SessionOptions options;
  Tolerance tolerance;
  if (GetParam().gpu) {
    DFLOW_SKIP_WITHOUT_GPU();
    options.allow_soft_placement = true;
    options.gpu_allow_growth = true;
    tolerance = {4e-3, 2e-4, 1e-6};
  } else {
    options.device_count["GPU"] = 0;
    // float64: some of TensorFlow's float64 kernels compute in float
    // (ResizeBicubicGrad); the ops' own tests hold their exact tolerances.
    tolerance = {2e-3, 1e-5, 1e-6};
  }
  std::vector<std::string> left;
  const std::vector<ValueCase> cases = ReadableCases(&left);
  ASSERT_GE(cases.size(), 25u);
  for (const ValueCase& c : cases) {
    SCOPED_TRACE(c.dir);
    const std::vector<Line> lines =
        testing_tf_values::ReadLines(c.dir + "cases.txt");
    std::vector<const Line*> fetched;
    std::vector<Tensor> outputs;
    if (c.target.empty()) {
      RunOnce(c.dir, lines, options, &fetched, &outputs);
    } else {
      testing_tf_values::RunSteps(c.dir, lines, c.target, c.steps, &fetched,
                                  &outputs, options);
    }
    if (outputs.size() != fetched.size()) continue;  // the run failed
    const double worst =
        CompareValues(c.dir, fetched, outputs, tolerance,
                      GetParam().gpu ? KnownGpuDifferences()
                                     : std::map<std::string, std::string>());
    std::cout << GetParam().label << " " << c.dir << ": " << fetched.size()
              << " fetches, worst difference " << worst << "\n";
  }
  std::cout << GetParam().label << ": " << cases.size()
            << " value graphs; left to their own tests: "
            << absl::StrJoin(left, ", ") << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Devices, TfValuesOnDevicesTest,
    ::testing::Values(DeviceConfig{"CPU", false}, DeviceConfig{"GPU", true}),
    [](const ::testing::TestParamInfo<DeviceConfig>& info) {
      return info.param.label;
    });

}  // namespace
}  // namespace dflow
