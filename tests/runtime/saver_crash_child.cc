// The process that saver_test kills: trains a 32 MB variable and saves a
// checkpoint after every step, until it is killed.
//
//   saver_crash_child DIR MAX_SAVES stepped|fixed
//
// "stepped" saves to DIR/model-<step>, each step a new file; "fixed" saves
// every step to DIR/model, replacing the file (which only an atomic replace
// survives being killed in the middle of). Resumes from DIR's latest checkpoint
// when there is one (a fresh process restoring before it has run any step),
// else initializes. After step s every element of "weights" and the scalar
// "global_step" equal s, so a checkpoint is consistent exactly when every
// element of its weights equals its global_step variable (and, for "stepped",
// the step in its name). Exits 0 after MAX_SAVES saves (a bound so that it
// never runs on if the test is gone), 1 on any error.
#include <signal.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "runtime/saver.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kElements = 8 * 1024 * 1024;  // 32 MB of floats

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "saver_crash_child: %s\n", status.ToString().c_str());
  return 1;
}

int Main(const std::string& dir, int max_saves, bool stepped) {
  Scope root = Scope::NewRootScope();
  Output weights = ops::Variable(root.WithOpName("weights"),
                                 TensorShape({kElements}), DT_FLOAT);
  Output step =
      ops::Variable(root.WithOpName("global_step"), TensorShape({}), DT_INT64);
  Output dims = ops::Const(root, {kElements});
  ops::Assign(root.WithOpName("init_weights"), weights,
              ops::Fill(root, dims, ops::Const(root, 0.0f)));
  ops::Assign(root.WithOpName("init_step"), step,
              ops::Const(root, static_cast<int64_t>(0)));
  ops::AssignAdd(root.WithOpName("train_weights"), weights,
                 ops::Fill(root, dims, ops::Const(root, 1.0f)));
  ops::AssignAdd(root.WithOpName("train_step"), step,
                 ops::Const(root, static_cast<int64_t>(1)));
  ops::Identity(root.WithOpName("step_value"), step);
  GraphDef def;
  absl::Status status = root.ToGraphDef(&def);
  if (!status.ok()) return Fail(status);

  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  if (!session.ok()) return Fail(session.status());
  SaverOptions options;
  options.max_to_keep = 3;
  absl::StatusOr<Saver> saver = Saver::Create(def, options);
  if (!saver.ok()) return Fail(saver.status());

  int64_t global_step = 0;
  std::vector<Tensor> out;
  absl::StatusOr<std::string> latest = Saver::LatestCheckpoint(dir);
  if (latest.ok()) {
    status = saver->Restore(session->get(), *latest);
    if (!status.ok()) return Fail(status);
    status = (*session)->Run({}, {"step_value"}, {}, &out);
    if (!status.ok()) return Fail(status);
    global_step = out[0].flat<int64_t>()[0];
  } else {
    status = (*session)->Run({}, {}, {"init_weights", "init_step"}, &out);
    if (!status.ok()) return Fail(status);
  }
  for (int i = 0; i < max_saves; ++i) {
    status = (*session)->Run({}, {}, {"train_weights", "train_step"}, &out);
    if (!status.ok()) return Fail(status);
    ++global_step;
    absl::StatusOr<std::string> path =
        saver->Save(session->get(), dir + "/model", stepped ? global_step : -1);
    if (!path.ok()) return Fail(path.status());
  }
  return 0;
}

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: saver_crash_child DIR MAX_SAVES stepped|fixed\n");
    return 2;
  }
  // Die with the test, whatever happens to it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return dflow::Main(argv[1], std::atoi(argv[2]),
                     std::string(argv[3]) == "stepped");
}
