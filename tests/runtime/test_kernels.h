// Test-only ops and kernels for runtime tests, independent of kernels/:
//   TestAddOne(x: float) -> x + 1       (cheap or expensive via attr)
//   TestLog(^deps)                      appends its node name to a log
//   TestFail(x: float)                  always fails with "boom"
//   TestSleep(x: float, ms: int)        sleeps, then forwards x
//   TestAsyncAddOne(x: float)           async: completes on another thread
//   TestNeverDone(x: float)             async: never calls done (hangs)
//   TestHook(x: float)                  calls the hook the test set, then
//                                       forwards x
#ifndef DFLOW_TESTS_RUNTIME_TEST_KERNELS_H_
#define DFLOW_TESTS_RUNTIME_TEST_KERNELS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dflow {

// Names appended by TestLog kernels, in execution order.
std::vector<std::string> TakeTestLog();

// How many TestSleep kernels have finished, process-wide. Tests count the
// work a cancelled step did instead of reading the clock.
int64_t TestSleepsFinished();

// The function every TestHook kernel calls (none by default). Lets a test
// act at a known point of a step, e.g. cancel it after the n-th node.
void SetTestHook(std::function<void()> hook);

}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_TEST_KERNELS_H_
