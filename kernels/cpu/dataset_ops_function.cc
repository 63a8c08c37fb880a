#include "kernels/cpu/dataset_ops_function.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/function_inlining.h"
#include "compiler/graph_pass.h"
#include "compiler/optimization_stages.h"
#include "compiler/prune.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "runtime/call_frame.h"
#include "runtime/kernel_constant_evaluator.h"
#include "runtime/placement_bridge.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

// One worker: ThreadPool runs work inline when it has one thread, so a
// function's nodes all run on the thread that called it.
ThreadPool* InlinePool() {
  static ThreadPool* const pool = new ThreadPool(1);
  return pool;
}

// The dtype of one signature argument: its own, or the func attr its
// type_attr names. Lists of tensors are not something tf.data writes.
absl::StatusOr<DataType> ArgType(const OpDef::ArgDef& arg,
                                 const NameAttrList& func,
                                 absl::string_view where) {
  if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
    return absl::UnimplementedError(absl::StrCat(
        where, ": argument '", arg.name(),
        "' is a list of tensors; dataset functions take single tensors"));
  }
  if (arg.type() != DT_INVALID) return arg.type();
  auto it = func.attr().find(arg.type_attr());
  if (it == func.attr().end() || it->second.value_case() != AttrValue::kType) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": argument '", arg.name(), "' has type attr '",
                     arg.type_attr(), "', which the call does not set"));
  }
  return it->second.type();
}

}  // namespace

DatasetFunction::~DatasetFunction() {
  // The executor's kernels were built for device_: they go first.
  executor_.reset();
  device_.reset();
}

absl::StatusOr<std::shared_ptr<DatasetFunction>> DatasetFunction::FromAttr(
    OpKernelConstruction* ctx, absl::string_view attr) {
  const AttrValue* value = ctx->node().FindAttr(attr);
  if (value == nullptr || value->value_case() != AttrValue::kFunc) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr '", attr, "' must name a function"));
  }
  std::shared_ptr<DatasetFunction> f(new DatasetFunction());
  f->func_ = value->func();
  f->node_ = ctx->name();
  const Graph* graph = ctx->node().graph();
  if (graph != nullptr) f->library_ = graph->library();
  const FunctionDef* def = nullptr;
  for (const FunctionDef& candidate : f->library_.function()) {
    if (candidate.signature().name() == f->func_.name()) def = &candidate;
  }
  if (def == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "attr '", attr, "' names function '", f->func_.name(),
        "', which is not in the graph's function library; export the graph "
        "with its library"));
  }
  const std::string where = absl::StrCat("function '", f->func_.name(), "'");
  for (const OpDef::ArgDef& arg : def->signature().input_arg()) {
    absl::StatusOr<DataType> t = ArgType(arg, f->func_, where);
    if (!t.ok()) return t.status();
    f->arg_types_.push_back(*t);
  }
  for (const OpDef::ArgDef& arg : def->signature().output_arg()) {
    absl::StatusOr<DataType> t = ArgType(arg, f->func_, where);
    if (!t.ok()) return t.status();
    if (*t == DT_RESOURCE) {
      return absl::UnimplementedError(absl::StrCat(
          where, " returns a resource ('", arg.name(),
          "'); dataset functions may return tensors and datasets"));
    }
    f->result_types_.push_back(*t);
  }
  return f;
}

std::shared_ptr<const DatasetFunction> DatasetFunctionAttr(
    OpKernelConstruction* ctx, const char* attr) {
  if (!ctx->status().ok()) return nullptr;
  absl::StatusOr<std::shared_ptr<DatasetFunction>> f =
      DatasetFunction::FromAttr(ctx, attr);
  if (!f.ok()) {
    ctx->SetStatus(f.status());
    return nullptr;
  }
  return *std::move(f);
}

absl::Status CallDatasetFunction(const Dataset& dataset,
                                 const DatasetFunction& f,
                                 const DatasetContext& ctx, const Element& args,
                                 const std::vector<TensorValue>& captured,
                                 std::vector<Tensor>* results) {
  absl::Status s =
      f.Call(ctx, DatasetFunction::Arguments(args, captured), results);
  if (!s.ok()) {
    return DatasetError(
        dataset, absl::Status(s.code(), absl::StrCat("in function '", f.name(),
                                                     "': ", s.message())));
  }
  return s;
}

absl::Status DatasetFunction::Compile(Device* caller) const {
  // Callers prefix errors with the node and the function's name.
  const std::string label = "compiling the body";
  device_ = std::make_unique<Device>(caller->spec(), caller->attributes(),
                                     caller->allocator(), InlinePool());
  Graph graph;
  *graph.mutable_library() = library_;
  const FunctionMap functions = LibraryFunctions(library_);
  if (absl::Status s = CheckCallable(label, func_.name(), functions); !s.ok()) {
    return s;
  }
  std::vector<OutputRef> args;
  for (size_t i = 0; i < arg_types_.size(); ++i) {
    NodeDef arg;
    arg.set_name(absl::StrCat("_arg_", i));
    arg.set_op(kArgOp);
    (*arg.mutable_attr())["T"] = MakeAttr(arg_types_[i]);
    (*arg.mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    absl::StatusOr<Node*> n = graph.AddNode(std::move(arg));
    if (!n.ok()) return n.status();
    args.emplace_back(*n, 0);
  }
  // Body nodes are named <function>/<node>; a node name may not start
  // with '_' (TensorFlow's function names often do: __inference_...).
  absl::string_view prefix = func_.name();
  while (!prefix.empty() && prefix.front() == '_') prefix.remove_prefix(1);
  absl::StatusOr<InstantiatedFunction> body = InstantiateFunction(
      &graph, functions, func_, args, nullptr,
      prefix.empty() ? "function" : prefix, device_->name(), label);
  if (!body.ok()) return body.status();
  for (size_t j = 0; j < body->outputs.size(); ++j) {
    NodeDef ret;
    ret.set_name(absl::StrCat("_retval_", j));
    ret.set_op(kRetvalOp);
    (*ret.mutable_attr())["T"] = MakeAttr(result_types_[j]);
    (*ret.mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(j));
    absl::StatusOr<Node*> n = graph.AddNode(std::move(ret));
    if (!n.ok()) return n.status();
    const OutputRef& src = body->outputs[j];
    if (absl::StatusOr<const Edge*> e =
            graph.AddEdge(src.first, src.second, *n, 0);
        !e.ok()) {
      return absl::Status(e.status().code(),
                          absl::StrCat(label, ": ", e.status().message()));
    }
  }
  if (absl::Status s = graph.InferShapes(); !s.ok()) return s;
  // The passes a session's step goes through, so that a function computes
  // what the same nodes would in the main graph (and its If/While are
  // lowered: the executor runs only the TF1 primitives).
  const KernelConstantEvaluator evaluator(device_.get());
  const RegistryKernelQuery kernels;
  OptimizationOptions options;
  options.evaluator = &evaluator;
  options.kernels = &kernels;
  std::vector<PassSummary> summaries;
  if (absl::Status s =
          RunDeviceIndependentPasses(options, {}, &graph, &summaries);
      !s.ok()) {
    return s;
  }
  for (Node* n : graph.nodes()) n->set_assigned_device(device_->name());
  if (absl::Status s = RunDeviceSpecificPasses(
          options, device_->name(), device_->type(), {}, &graph, &summaries);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::unique_ptr<Executor>> executor =
      Executor::Create(graph, device_.get());
  if (!executor.ok()) return executor.status();
  executor_ = *std::move(executor);
  return absl::OkStatus();
}

absl::Status DatasetFunction::Call(const DatasetContext& ctx,
                                   const std::vector<TensorValue>& args,
                                   std::vector<Tensor>* results) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!compiled_) {
      compiled_ = true;
      compile_error_ = Compile(ctx.device);
      if (!compile_error_.ok()) executor_.reset();
    }
    if (!compile_error_.ok()) return compile_error_;
  }
  if (args.size() != arg_types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", func_.name(), "' takes ", arg_types_.size(),
        " arguments (the element's components and the captured inputs) but "
        "was given ",
        args.size()));
  }
  std::vector<Tensor> tensors;
  tensors.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const bool resource = arg_types_[i] == DT_RESOURCE;
    if (resource != (args[i].var != nullptr) ||
        (!resource && args[i].tensor.dtype() != arg_types_[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " of function '", func_.name(), "' must be ",
          DataTypeName(arg_types_[i]), ", got ",
          args[i].var != nullptr ? "a resource"
                                 : DataTypeName(args[i].tensor.dtype())));
    }
    tensors.push_back(args[i].tensor);
  }
  CallFrame frame(std::move(tensors), static_cast<int>(result_types_.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].var != nullptr)
      frame.set_arg_var(static_cast<int>(i), args[i].var);
  }
  Executor::Args run;
  run.step_id = ctx.step_id;
  run.variables = ctx.variables;
  run.call_frame = &frame;
  if (absl::Status s = executor_->Run(run); !s.ok()) return s;
  if (absl::Status s = frame.TakeRetvals(results); !s.ok()) return s;
  for (size_t j = 0; j < results->size(); ++j) {
    if ((*results)[j].dtype() != result_types_[j]) {
      return absl::InternalError(
          absl::StrCat("function '", func_.name(), "' returned ",
                       DataTypeName((*results)[j].dtype()), " for result ", j,
                       " but declares ", DataTypeName(result_types_[j])));
    }
  }
  return absl::OkStatus();
}

std::vector<TensorValue> DatasetFunction::Arguments(
    const Element& element, const std::vector<TensorValue>& captured) {
  std::vector<TensorValue> args;
  args.reserve(element.size() + captured.size());
  for (const Tensor& t : element) args.push_back({t, nullptr});
  args.insert(args.end(), captured.begin(), captured.end());
  return args;
}

std::vector<TensorValue> CapturedInputs(OpKernelContext* ctx, int begin,
                                        int end) {
  std::vector<TensorValue> captured;
  for (int i = begin; i < end; ++i) {
    if (ctx->kernel().input_type(i) == DT_RESOURCE) {
      captured.push_back({Tensor(), ctx->input_var(i)});
    } else {
      captured.push_back({ctx->input(i), nullptr});
    }
  }
  return captured;
}

}  // namespace dflow
