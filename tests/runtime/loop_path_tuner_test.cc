// The loop path tuner (runtime/loop_path_tuner.h): its schedule of steps,
// the choice by time per loop iteration, and trials that never report.
// Times are given, not measured.
#include "runtime/loop_path_tuner.h"

#include <vector>

#include "gtest/gtest.h"

namespace dflow {
namespace {

constexpr int kTrials =
    LoopPathTuner::kPaths * LoopPathTuner::kTrialsPerPath;

// Hands out the warm-up and every trial; returns the trials' paths.
std::vector<LoopPath> HandOutTrials(LoopPathTuner* tuner) {
  std::vector<LoopPath> trials;
  for (int i = 0; i < LoopPathTuner::kWarmups; ++i) {
    bool timed = true;
    EXPECT_EQ(tuner->Next(&timed), LoopPath::kUsual);
    EXPECT_FALSE(timed);
  }
  for (int i = 0; i < kTrials; ++i) {
    bool timed = false;
    trials.push_back(tuner->Next(&timed));
    EXPECT_TRUE(timed);
  }
  return trials;
}

TEST(LoopPathTunerTest, TriesEveryPathInTurnThenKeepsTheFastest) {
  LoopPathTuner tuner;
  const std::vector<LoopPath> trials = HandOutTrials(&tuner);
  EXPECT_EQ(trials,
            (std::vector<LoopPath>{
                LoopPath::kUsual, LoopPath::kSerial, LoopPath::kSerialOneThread,
                LoopPath::kOneThread, LoopPath::kUsual, LoopPath::kSerial,
                LoopPath::kSerialOneThread, LoopPath::kOneThread}));
  // us per iteration: usual 90-95, serial 80-85, serial on one thread
  // 70-99, one thread 75-77.
  const double per_iteration[] = {95, 85, 99, 77, 90, 80, 70, 75};
  for (int i = 0; i < kTrials; ++i) {
    EXPECT_FALSE(tuner.decided());
    tuner.Record(trials[i], static_cast<int64_t>(per_iteration[i] * 1000 * 20),
                 20);
  }
  ASSERT_TRUE(tuner.decided());
  EXPECT_EQ(tuner.chosen(), LoopPath::kSerialOneThread);
  for (int i = 0; i < 5; ++i) {
    bool timed = true;
    EXPECT_EQ(tuner.Next(&timed), LoopPath::kSerialOneThread);
    EXPECT_FALSE(timed);
  }
  // Reports after the choice change nothing.
  tuner.Record(LoopPath::kUsual, 1, 1);
  EXPECT_EQ(tuner.chosen(), LoopPath::kSerialOneThread);
}

// Steps run different numbers of iterations (a loop to a fed bound): the
// time per iteration decides, not the step's.
TEST(LoopPathTunerTest, ComparesTimePerIteration) {
  LoopPathTuner tuner;
  const std::vector<LoopPath> trials = HandOutTrials(&tuner);
  for (LoopPath path : trials) {
    if (path == LoopPath::kUsual) {
      tuner.Record(path, 1000000, 100);  // 10 us per iteration
    } else {
      tuner.Record(path, 50000, 2);  // 25 us per iteration, 20x less total
    }
  }
  ASSERT_TRUE(tuner.decided());
  EXPECT_EQ(tuner.chosen(), LoopPath::kUsual);
}

TEST(LoopPathTunerTest, TiesKeepTheUsualPath) {
  LoopPathTuner tuner;
  for (LoopPath path : HandOutTrials(&tuner)) tuner.Record(path, 5000, 1);
  ASSERT_TRUE(tuner.decided());
  EXPECT_EQ(tuner.chosen(), LoopPath::kUsual);
}

// A trial whose step failed never reports: the paths are handed out again
// until each has been timed.
TEST(LoopPathTunerTest, ATrialThatNeverReportsIsTriedAgain) {
  LoopPathTuner tuner;
  for (LoopPath path : HandOutTrials(&tuner)) {
    if (path != LoopPath::kSerialOneThread) tuner.Record(path, 5000, 1);
  }
  EXPECT_FALSE(tuner.decided());
  std::vector<LoopPath> again;
  for (int i = 0; i < LoopPathTuner::kPaths; ++i) {
    bool timed = false;
    again.push_back(tuner.Next(&timed));
    EXPECT_TRUE(timed);
  }
  EXPECT_EQ(again[2], LoopPath::kSerialOneThread);
  tuner.Record(again[0], 5000, 1);
  tuner.Record(again[1], 5000, 1);
  tuner.Record(again[3], 5000, 1);
  EXPECT_FALSE(tuner.decided());  // serial on one thread is still untimed
  tuner.Record(again[2], 1000, 1);
  ASSERT_TRUE(tuner.decided());
  EXPECT_EQ(tuner.chosen(), LoopPath::kSerialOneThread);
}

TEST(LoopPathTunerTest, NamesItsPaths) {
  EXPECT_STREQ(LoopPathName(LoopPath::kUsual), "usual");
  EXPECT_STREQ(LoopPathName(LoopPath::kSerial), "serial");
  EXPECT_STREQ(LoopPathName(LoopPath::kSerialOneThread),
               "serial on one thread");
  EXPECT_STREQ(LoopPathName(LoopPath::kOneThread), "one thread");
}

}  // namespace
}  // namespace dflow
