// The C++ example of README.md, compiled and run by the tests so that the
// README stays true. Prints y = 2 * relu(x . w) for one input row.
#include <iostream>

#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "runtime/session.h"

using namespace dflow;  // NOLINT: as a user would write it

int main() {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");
  Output x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 3}));
  Output w = ops::Variable(cpu.WithOpName("w"), TensorShape({3, 2}), DT_FLOAT);
  ops::Assign(cpu.WithOpName("init"), w, ops::Fill(cpu, {3, 2}, 0.5f));

  Output y;
  {
    Scope tower = root.NewSubScope("tower_0")  // name scope
                      .WithDevice("/gpu:0");   // merged with the outer request
    ActiveScope active(tower);                 // operators (+ - * /) build here
    y = ops::Relu(tower, ops::MatMul(tower, x, w)) * 2.0f;  // 2.0f: a Const
  }

  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);  // the first build error, if any
  if (s.ok())
    s = WriteGraphDefFile("/tmp/readme_model.pbtxt", def,
                          GraphDefFormat::kText);
  if (!s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }

  SessionOptions options;
  options.allow_soft_placement = true;  // no GPU here: /gpu:0 falls back
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  std::vector<Tensor> out;
  if (session.ok()) s = (*session)->Run({}, {}, {"init"}, nullptr);
  if (session.ok() && s.ok()) {
    s = (*session)->Run(
        {{"x", Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}))}},
        {y.name()}, {}, &out);
  }
  if (!session.ok() || !s.ok()) {
    std::cerr << (session.ok() ? s : session.status()) << "\n";
    return 1;
  }
  std::cout << y.name() << " = " << out[0].DebugString() << "\n";  // 6 6
  return out[0].flat<float>()[0] == 6.0f ? 0 : 1;
}
