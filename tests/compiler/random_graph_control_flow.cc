// The generator's while loops and conditionals (ops::WhileLoop, ops::Cond):
// bodies and branches of random steps, so that every pass meets nodes in
// loop frames and in branches, next to the same patterns it looks for
// outside them.
#include <algorithm>
#include <vector>

#include "graph/ops/control_flow_builders.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "tests/compiler/random_graph_generator.h"

namespace dflow {
namespace random_graph_internal {

std::vector<Val> Generator::Nested(const Scope& scope,
                                   const std::vector<Val>& vars, int steps,
                                   const std::vector<Val>& want,
                                   double* scale) {
  const Scope saved_root = root_;
  const std::vector<Val> saved_pool = pool_;
  root_ = scope;
  ++depth_;
  const size_t first = pool_.size();
  for (Val v : vars) {
    v.depth = depth_;
    v.feedable = false;
    pool_.push_back(v);
  }
  for (int i = 0; i < steps; ++i) {
    const int pick = Uniform(0, 9);
    if (pick == 0 && depth_ < 2) {
      Loop();
    } else if (pick == 1 && depth_ < 2) {
      Conditional();
    } else {
      Step();
    }
  }
  std::vector<Val> out;
  for (const Val& w : want) {
    std::vector<size_t> built;
    for (size_t i = first + vars.size(); i < pool_.size(); ++i) {
      const Val& v = pool_[i];
      if (v.depth == depth_ && v.dtype == w.dtype && v.shape == w.shape) {
        built.push_back(i);
      }
    }
    out.push_back(built.empty() ? w : pool_[OneOf(built)]);
  }
  for (size_t i = first; i < pool_.size(); ++i) {
    *scale = std::max(*scale, pool_[i].scale);
  }
  --depth_;
  root_ = saved_root;
  pool_ = saved_pool;
  return out;
}

void Generator::Loop() {
  std::vector<Val> vars;
  const int n = Uniform(1, 2);
  for (int i = 0; i < n; ++i) {
    vars.push_back(Tame(PickWhere([](const Val& v) { return IsFloat(v); },
                                  DT_FLOAT, RandomShape())));
  }
  const int iterations = Uniform(0, 3);
  std::vector<Output> inputs = {ops::Const(S(), 0)};
  double scale = 1;
  for (const Val& v : vars) {
    inputs.push_back(v.out);
    scale = std::max(scale, v.scale);
  }
  ops::WhileLoopOptions options;
  options.parallel_iterations = Uniform(1, 10);
  const int steps = Uniform(2, 5);
  auto cond = [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
    return ops::Less(s, v[0], iterations);
  };
  auto body = [&](const Scope& s,
                  const std::vector<Output>& v) -> BranchResult {
    std::vector<Val> body_vars = vars;
    for (int i = 0; i < n; ++i) {
      body_vars[i].out = v[i + 1];
      body_vars[i].leaf = false;
      // Each iteration's values are Tanh's: the first one's are the inputs.
      body_vars[i].bound = std::max(vars[i].bound, 1.0);
    }
    const std::vector<Val> next = Nested(s, body_vars, steps, vars, &scale);
    std::vector<Output> outs = {ops::Add(s, v[0], 1)};
    for (const Val& x : next) outs.push_back(ops::Tanh(s, x.out));
    return outs;
  };
  BranchResult results = ops::WhileLoop(S(), inputs, cond, body, options);
  if (!results.ok()) {
    root_.UpdateStatus(results.status());
    return;
  }
  for (int i = 0; i < n; ++i) {
    Val r = vars[i];
    r.out = (*results)[i + 1];
    r.leaf = false;
    r.integral = false;
    r.bound = std::max(vars[i].bound, 1.0);
    r.scale = scale;
    Add(r);
  }
}

void Generator::Conditional() {
  const Val p = PickWhere([](const Val& v) { return v.dtype == DT_INT32; },
                          DT_INT32, RandomShape());
  // Sums of int32 are exact: no pass can move the predicate across 0.
  const Output total = ops::Sum(S(), ops::Reshape(S(), Tame(p).out, {-1}), 0);
  const Output pred = ops::Greater(S(), total, Uniform(-3, 3));
  const Val like = Tame(Pick());
  double scale = like.scale;
  double bound = like.bound;
  auto branch = [&](const Scope& s) -> BranchResult {
    const std::vector<Val> out = Nested(s, {}, Uniform(1, 3), {like}, &scale);
    bound = std::max(bound, out[0].bound);
    return std::vector<Output>{out[0].out};
  };
  BranchResult results = ops::Cond(S(), pred, branch, branch);
  if (!results.ok()) {
    root_.UpdateStatus(results.status());
    return;
  }
  Val r = like;
  r.out = (*results)[0];
  r.leaf = false;
  r.integral = false;
  r.bound = bound;
  r.scale = std::max(scale, bound);
  Add(r);
}

}  // namespace random_graph_internal
}  // namespace dflow
