// An Elman RNN trained with ops::WhileLoop and gradients through the loop
// (graph/ops/control_flow_builders.h): the loop reads the sequence one
// step per iteration and carries the hidden state, and the optimizer
// differentiates the whole loop (graph/gradients/while_loop_grad.h).
//
// Task: a sequence x_0 .. x_{T-1} of uniform values in [-1, 1]; the target
// is sum_t x_t * 0.5^(T-1-t), a memory that fades (the last steps matter
// most). h_{t+1} = tanh(x_t W_x + h_t W_h + b), prediction h_T w_o + b_o,
// mean squared error, plain gradient descent. Prints the loss every 50
// steps; exits 1 unless the last loss is below a fifth of the first.
//
//   bazel run //examples:rnn_while_loop -- [--steps 400]
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph/ops/control_flow_builders.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"
#include "runtime/session.h"

using namespace dflow;  // NOLINT: as a user would write it

namespace {

constexpr int kSteps = 12;  // sequence length
constexpr int kBatch = 64;
constexpr int kHidden = 16;

// A batch of sequences, time-major [kSteps, kBatch, 1], and its targets
// [kBatch, 1].
void MakeBatch(std::mt19937* gen, Tensor* x, Tensor* y) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  *x = Tensor(DT_FLOAT, TensorShape({kSteps, kBatch, 1}));
  *y = Tensor(DT_FLOAT, TensorShape({kBatch, 1}));
  for (int b = 0; b < kBatch; ++b) y->data<float>()[b] = 0.0f;
  for (int t = 0; t < kSteps; ++t) {
    const float weight = std::pow(0.5f, kSteps - 1 - t);
    for (int b = 0; b < kBatch; ++b) {
      const float v = uniform(*gen);
      x->data<float>()[t * kBatch + b] = v;
      y->data<float>()[b] += v * weight;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int train_steps = 400;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0)
      train_steps = std::atoi(argv[i + 1]);
  }
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                       ops::PlaceholderAttrs().Shape({kSteps, kBatch, 1}));
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({kBatch, 1}));
  Scope rnn = root.NewSubScope("rnn");
  Output w_x = train::NewVariable(rnn, "w_x", {1, kHidden}, DT_FLOAT,
                                  train::TruncatedNormalInitializer(0.5, 1));
  Output w_h = train::NewVariable(rnn, "w_h", {kHidden, kHidden}, DT_FLOAT,
                                  train::TruncatedNormalInitializer(0.3, 2));
  Output b = train::NewVariable(rnn, "b", {kHidden}, DT_FLOAT,
                                train::ZerosInitializer());
  Output w_o = train::NewVariable(rnn, "w_o", {kHidden, 1}, DT_FLOAT,
                                  train::TruncatedNormalInitializer(0.3, 3));
  Output b_o =
      train::NewVariable(rnn, "b_o", {1}, DT_FLOAT, train::ZerosInitializer());
  // The loop reads the weights' values (snapshots taken before it starts).
  Output wx = ops::Identity(rnn, w_x), wh = ops::Identity(rnn, w_h),
         bias = ops::Identity(rnn, b);

  // for (t = 0, h = 0; t < kSteps; ++t) h = tanh(x[t] W_x + h W_h + b)
  absl::StatusOr<std::vector<Output>> loop = ops::WhileLoop(
      rnn, {ops::Const(rnn, 0), ops::Fill(rnn, {kBatch, kHidden}, 0.0f)},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], kSteps);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        Output x_t = ops::GatherV2(s, x, v[0], 0);  // [kBatch, 1]
        Output h = ops::Tanh(s, ops::Add(s,
                                         ops::Add(s, ops::MatMul(s, x_t, wx),
                                                  ops::MatMul(s, v[1], wh)),
                                         bias));
        return std::vector<Output>{ops::Add(s, v[0], 1), h};
      });
  if (!loop.ok()) {
    std::cerr << loop.status() << "\n";
    return 1;
  }
  Output prediction = ops::Add(rnn, ops::MatMul(rnn, (*loop)[1], w_o), b_o);
  Output loss =
      ops::Mean(root.WithOpName("loss"),
                ops::Square(root, ops::Sub(root, prediction, y)), {0, 1});
  train::GradientDescentOptimizer optimizer(0.2f);
  absl::StatusOr<Operation> train_op = optimizer.Minimize(root, loss);
  if (!train_op.ok()) {
    std::cerr << train_op.status() << "\n";
    return 1;
  }
  Operation init = train::GlobalVariablesInitializer(root);
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  absl::StatusOr<std::unique_ptr<Session>> session =
      s.ok() ? Session::Create(def)
             : absl::StatusOr<std::unique_ptr<Session>>(s);
  if (session.ok()) s = (*session)->Run({}, {}, {init.name()}, nullptr);
  if (!session.ok() || !s.ok()) {
    std::cerr << (session.ok() ? s : session.status()) << "\n";
    return 1;
  }
  std::mt19937 gen(7);
  float first = 0.0f, last = 0.0f;
  for (int step = 0; step < train_steps; ++step) {
    Tensor xs, ys;
    MakeBatch(&gen, &xs, &ys);
    std::vector<Tensor> out;
    s = (*session)->Run({{"x", xs}, {"y", ys}}, {loss.name()},
                        {train_op->name()}, &out);
    if (!s.ok()) {
      std::cerr << "step " << step << ": " << s << "\n";
      return 1;
    }
    last = out[0].data<float>()[0];
    if (step == 0) first = last;
    if (step % 50 == 0 || step + 1 == train_steps) {
      std::cout << "step " << step << " loss " << last << "\n";
    }
  }
  std::cout << "loss " << first << " -> " << last << "\n";
  return last < first / 5 ? 0 : 1;
}
