// The tf.while_loop corpus of tf_loops_test (TensorFlow 2.21's graphs, both
// control-flow styles) on a one-thread pool, where every plain loop
// (runtime/executor_serial_loop.h) runs as a serial loop from its first
// step, whatever its kernels cost (with one thread there is nobody to hand
// a kernel to): TensorFlow's values, and the serial path really taken by
// the loops that qualify. On more threads only loops of kernels measured
// cheap run serially, so tf_loops_test covers the serial path only for
// those.
#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "runtime/executor.h"
#include "runtime/session.h"
#include "tests/runtime/tf_reference_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_loops/";

// Serial loop runs of every case of `model` in `style`; each case checked
// against TensorFlow's values.
int64_t CheckModel(const std::string& model, const std::string& style,
                   int devices = 1) {
  SCOPED_TRACE(model + "_" + style);
  SessionOptions options;
  options.num_threads = 1;  // every session here: the process's pool
  options.device_count = {{"CPU", devices}};
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(
      testing_tf::LoadGraph(kDir + model + "_" + style + ".pb"), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return 0;
  const int64_t before = SerialLoopRunsForTesting();
  EXPECT_EQ(testing_tf::RunCases(session->get(),
                                 testing_tf::ReadFile(kDir + model + ".cases")),
            4);
  return SerialLoopRunsForTesting() - before;
}

class TfLoopsSerialTest : public ::testing::TestWithParam<std::string> {};

// Loops of plain values and kernels: counters, sums, the inner loop of a
// nested pair, a captured constant, a growing value; and a gradient through
// a loop and the LSTM, whose values are TensorLists in the functional style
// and stacks and TensorArrays (stateful kernels on resource handles) in the
// TF1 style.
TEST_P(TfLoopsSerialTest, PlainLoopsRunSeriallyWithTensorFlowsValues) {
  for (const char* style : {"v1", "v2"}) {
    EXPECT_GT(CheckModel(GetParam(), style), 0) << style;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TfLoopsSerialTest,
                         ::testing::Values("counter", "sum_to_n", "nested",
                                           "const_capture", "shape_grows",
                                           "loop_grad", "rnn", "rnn_grad"));

// A conditional inside the loop, and a loop whose body is on another
// device (transfers inside it), are not plain: the usual path, the same
// values.
TEST(TfLoopsSerialTest, OtherLoopsTakeTheUsualPath) {
  for (const char* style : {"v1", "v2"}) {
    EXPECT_EQ(CheckModel("cond_in_loop", style), 0) << style;
    EXPECT_EQ(CheckModel("device_loop", style, 2), 0) << style;
  }
}

}  // namespace
}  // namespace dflow
