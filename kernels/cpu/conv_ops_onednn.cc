#include "kernels/cpu/conv_ops_onednn.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_gemm_library.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "runtime/thread_pool.h"

namespace dflow {
namespace conv {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// Padding after the last row (column) that makes oneDNN's output size
// formula give out_rows exactly; negative when a stride skips trailing
// input, which oneDNN cannot express.
int64_t PadAfter(int64_t in, int64_t out, int64_t filter, int64_t stride,
                 int64_t dilation, int64_t pad_before) {
  const int64_t span = (filter - 1) * dilation + 1;
  return (out - 1) * stride + span - in - pad_before;
}

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// `attr` with max(x, 0) applied to the output when `relu`.
dnnl::primitive_attr WithRelu(const dnnl::primitive_attr& attr, bool relu) {
  dnnl::primitive_attr result = attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    result.set_post_ops(ops);
  }
  return result;
}

// The primitives of one pass for one shape (with the batch of one part).
struct Plan {
  // Forward's primitive descriptor: every pass needs it (the gradients as a
  // hint of the layouts forward would use).
  dnnl::convolution_forward::primitive_desc forward_pd;
  dnnl::primitive primitive;
  memory::desc image, filter_hwio, output;  // as dflow keeps them
  memory::desc filter;                      // the layout the primitive wants
  memory::desc scratch;                     // its scratch memory
  memory::desc bias;                        // forward with a bias only
  bool reorder_filter = false;
  dnnl::reorder filter_reorder;  // hwio -> filter, or filter -> hwio
};

using PlanKey = std::tuple<int, bool, bool, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t, int64_t, int64_t>;

PlanKey KeyOf(ConvPass pass, const ConvEpilogue& epilogue,
              const ConvGeometry& g, int64_t batch) {
  return {static_cast<int>(pass),
          epilogue.bias != nullptr,
          epilogue.relu,
          batch,
          g.in_rows,
          g.in_cols,
          g.in_depth,
          g.filter_rows,
          g.filter_cols,
          g.out_depth,
          g.out_rows,
          g.out_cols,
          g.stride_rows,
          g.stride_cols,
          g.dilation_rows,
          g.dilation_cols,
          g.pad_top,
          g.pad_left};
}

std::unique_ptr<Plan> MakePlan(ConvPass pass, const ConvEpilogue& epilogue,
                               const ConvGeometry& g, int64_t batch) {
  auto plan = std::make_unique<Plan>();
  const memory::dims src{batch, g.in_depth, g.in_rows, g.in_cols};
  const memory::dims wei{g.out_depth, g.in_depth, g.filter_rows, g.filter_cols};
  const memory::dims dst{batch, g.out_depth, g.out_rows, g.out_cols};
  const memory::dims strides{g.stride_rows, g.stride_cols};
  // oneDNN counts dilation from 0 (TensorFlow from 1).
  const memory::dims dilates{g.dilation_rows - 1, g.dilation_cols - 1};
  const memory::dims pad_l{g.pad_top, g.pad_left};
  const memory::dims pad_r{
      PadAfter(g.in_rows, g.out_rows, g.filter_rows, g.stride_rows,
               g.dilation_rows, g.pad_top),
      PadAfter(g.in_cols, g.out_cols, g.filter_cols, g.stride_cols,
               g.dilation_cols, g.pad_left)};
  const auto f32 = memory::data_type::f32;
  plan->image = memory::desc(src, f32, Tag::nhwc);
  plan->output = memory::desc(dst, f32, Tag::nhwc);
  plan->filter_hwio = memory::desc(wei, f32, Tag::hwio);
  // Any filter layout: the JIT kernels want a blocked one (with HWIO as
  // given, oneDNN fell back to its GEMM path at a third of the speed).
  const memory::desc any_filter(wei, f32, Tag::any);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto algorithm = dnnl::algorithm::convolution_direct;
  if (pass != ConvPass::kForward || epilogue.bias == nullptr) {
    plan->forward_pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_training, algorithm, plan->image,
            any_filter, plan->output, strides, dilates, pad_l, pad_r),
        pass == ConvPass::kForward ? WithRelu(attr, epilogue.relu) : attr,
        Engine());
  } else {
    plan->bias = memory::desc({g.out_depth}, f32, Tag::a);
    plan->forward_pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                        algorithm, plan->image, any_filter,
                                        plan->bias, plan->output, strides,
                                        dilates, pad_l, pad_r),
        WithRelu(attr, epilogue.relu), Engine());
  }
  switch (pass) {
    case ConvPass::kForward: {
      const auto& pd = plan->forward_pd;
      plan->filter = pd.weights_desc();
      plan->scratch = pd.scratchpad_desc();
      plan->primitive = dnnl::convolution_forward(pd);
      break;
    }
    case ConvPass::kBackpropInput: {
      dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algorithm, plan->image,
                                                any_filter, plan->output,
                                                strides, dilates, pad_l, pad_r),
          attr, Engine(), plan->forward_pd);
      plan->filter = pd.weights_desc();
      plan->scratch = pd.scratchpad_desc();
      plan->primitive = dnnl::convolution_backward_data(pd);
      break;
    }
    case ConvPass::kBackpropFilter: {
      dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(
              algorithm, plan->image, any_filter, plan->output, strides,
              dilates, pad_l, pad_r),
          attr, Engine(), plan->forward_pd);
      plan->filter = pd.diff_weights_desc();
      plan->scratch = pd.scratchpad_desc();
      plan->primitive = dnnl::convolution_backward_weights(pd);
      break;
    }
  }
  plan->reorder_filter = plan->filter != plan->filter_hwio;
  if (plan->reorder_filter) {
    plan->filter_reorder =
        pass == ConvPass::kBackpropFilter
            ? dnnl::reorder(dnnl::reorder::primitive_desc(
                  Engine(), plan->filter, Engine(), plan->filter_hwio))
            : dnnl::reorder(dnnl::reorder::primitive_desc(
                  Engine(), plan->filter_hwio, Engine(), plan->filter));
  }
  return plan;
}

// The plan for (pass, shape, part batch), built on first use and kept for
// the process (one per layer shape a model has).
absl::StatusOr<const Plan*> GetPlan(ConvPass pass, const ConvEpilogue& epilogue,
                                    const ConvGeometry& g, int64_t batch) {
  static std::mutex* mu = new std::mutex;
  static auto* plans = new std::map<PlanKey, std::unique_ptr<Plan>>;
  const PlanKey key = KeyOf(pass, epilogue, g, batch);
  std::lock_guard<std::mutex> lock(*mu);
  auto it = plans->find(key);
  if (it != plans->end()) return it->second.get();
  try {
    // A primitive keeps the OpenMP thread count of the thread that built
    // it: built with the default (every core), each call from a pool thread
    // started a team of its own, one more thread per core than the pool
    // was given (at --threads 1, a second core spinning in libgomp).
    UseOneOpenMpThreadOnThisThread();
    std::unique_ptr<Plan> plan = MakePlan(pass, epilogue, g, batch);
    const Plan* raw = plan.get();
    plans->emplace(key, std::move(plan));
    return raw;
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(
        absl::StrCat("oneDNN has no convolution for this shape: ", e.what()));
  }
}

// This thread's stream on the engine (a stream per thread: calls from
// several pool threads run at once).
dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

// Runs `plan` on one part of the batch. `filter` is in the primitive's
// layout; image/output point at the part's first image. oneDNN reports
// failures by exception, which must not leave a pool thread.
absl::Status Execute(ConvPass pass, const Plan& plan, float* image,
                     float* filter, float* output,
                     const float* bias = nullptr) noexcept try {
  UseOneOpenMpThreadOnThisThread();
  dnnl::engine& engine = Engine();
  dnnl::stream& stream = ThreadStream();
  thread_local std::vector<char> scratch;
  scratch.resize(std::max<size_t>(plan.scratch.get_size(), 1));
  memory image_memory(plan.image, engine, image);
  memory filter_memory(plan.filter, engine, filter);
  memory output_memory(plan.output, engine, output);
  memory scratch_memory(plan.scratch, engine, scratch.data());
  switch (pass) {
    case ConvPass::kForward:
      if (bias != nullptr) {
        memory bias_memory(plan.bias, engine, const_cast<float*>(bias));
        plan.primitive.execute(stream, {{DNNL_ARG_SRC, image_memory},
                                        {DNNL_ARG_WEIGHTS, filter_memory},
                                        {DNNL_ARG_BIAS, bias_memory},
                                        {DNNL_ARG_DST, output_memory},
                                        {DNNL_ARG_SCRATCHPAD, scratch_memory}});
      } else {
        plan.primitive.execute(stream, {{DNNL_ARG_SRC, image_memory},
                                        {DNNL_ARG_WEIGHTS, filter_memory},
                                        {DNNL_ARG_DST, output_memory},
                                        {DNNL_ARG_SCRATCHPAD, scratch_memory}});
      }
      break;
    case ConvPass::kBackpropInput:
      plan.primitive.execute(stream, {{DNNL_ARG_DIFF_SRC, image_memory},
                                      {DNNL_ARG_WEIGHTS, filter_memory},
                                      {DNNL_ARG_DIFF_DST, output_memory},
                                      {DNNL_ARG_SCRATCHPAD, scratch_memory}});
      break;
    case ConvPass::kBackpropFilter:
      plan.primitive.execute(stream, {{DNNL_ARG_SRC, image_memory},
                                      {DNNL_ARG_DIFF_WEIGHTS, filter_memory},
                                      {DNNL_ARG_DIFF_DST, output_memory},
                                      {DNNL_ARG_SCRATCHPAD, scratch_memory}});
      break;
  }
  stream.wait();
  return absl::OkStatus();
} catch (const dnnl::error& e) {
  return absl::InternalError(
      absl::StrCat("oneDNN convolution failed: ", e.what()));
} catch (const std::bad_alloc&) {
  return absl::ResourceExhaustedError(
      "oneDNN convolution: out of memory for its scratch space");
}

// hwio <-> the primitive's filter layout, on the calling thread.
absl::Status ReorderFilter(const Plan& plan, const float* from, float* to,
                           bool to_hwio) noexcept try {
  UseOneOpenMpThreadOnThisThread();
  dnnl::engine& engine = Engine();
  dnnl::stream& stream = ThreadStream();
  memory from_memory(to_hwio ? plan.filter : plan.filter_hwio, engine,
                     const_cast<float*>(from));
  memory to_memory(to_hwio ? plan.filter_hwio : plan.filter, engine, to);
  plan.filter_reorder.execute(stream, from_memory, to_memory);
  stream.wait();
  return absl::OkStatus();
} catch (const dnnl::error& e) {
  return absl::InternalError(
      absl::StrCat("oneDNN filter reorder failed: ", e.what()));
}

bool UseIm2Col() {
  static const bool im2col = [] {
    const char* env = std::getenv("DFLOW_CONV");
    return env != nullptr && absl::EqualsIgnoreCase(env, "im2col");
  }();
  return im2col;
}

}  // namespace

bool OneDnnConvolves(const ConvGeometry& g) {
  if (UseIm2Col() || g.groups != 1) return false;
  if (g.batch <= 0 || g.out_rows <= 0 || g.out_cols <= 0 || g.in_depth <= 0 ||
      g.out_depth <= 0) {
    return false;
  }
  if (PadAfter(g.in_rows, g.out_rows, g.filter_rows, g.stride_rows,
               g.dilation_rows, g.pad_top) < 0 ||
      PadAfter(g.in_cols, g.out_cols, g.filter_cols, g.stride_cols,
               g.dilation_cols, g.pad_left) < 0) {
    return false;
  }
  // oneDNN's kernels index with int: keep every tensor well inside it.
  constexpr int64_t kLimit = int64_t{1} << 30;
  return g.batch * g.in_rows * g.in_cols * g.in_depth < kLimit &&
         g.batch * g.out_rows * g.out_cols * g.out_depth < kLimit &&
         g.filter_rows * g.filter_cols * g.in_depth * g.out_depth < kLimit;
}

absl::Status OneDnnConvolve(ThreadPool* pool, ConvPass pass,
                            const ConvGeometry& g, const float* a,
                            const float* b, float* out,
                            const ConvEpilogue& given_epilogue) {
  // Only forward has an epilogue (the gradients' plans ignore it).
  const ConvEpilogue epilogue =
      pass == ConvPass::kForward ? given_epilogue : ConvEpilogue{};
  const int threads = pool == nullptr ? 1 : pool->num_threads();
  int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, g.batch));
  // Parts of equal size but the last; each size has its own plan.
  int64_t per_part = (g.batch + parts - 1) / parts;
  absl::StatusOr<const Plan*> plan = GetPlan(pass, epilogue, g, per_part);
  if (!plan.ok()) return plan.status();
  parts = (g.batch + per_part - 1) / per_part;
  const int64_t last = g.batch - per_part * (parts - 1);
  absl::StatusOr<const Plan*> last_plan =
      last == per_part ? plan : GetPlan(pass, epilogue, g, last);
  if (!last_plan.ok()) return last_plan.status();
  if ((*last_plan)->filter != (*plan)->filter) {
    // The parts would want the filter in different layouts: one part.
    per_part = g.batch;
    parts = 1;
    plan = GetPlan(pass, epilogue, g, g.batch);
    if (!plan.ok()) return plan.status();
    last_plan = plan;
  }
  const Plan& first_plan = **plan;
  const int64_t image_size = g.in_rows * g.in_cols * g.in_depth;
  const int64_t output_size = g.out_rows * g.out_cols * g.out_depth;
  const int64_t filter_size =
      g.filter_rows * g.filter_cols * g.in_depth * g.out_depth;
  const size_t filter_floats =
      (first_plan.filter.get_size() + sizeof(float) - 1) / sizeof(float);
  // Part i's (images, filter, outputs), its status, and the loop over parts.
  std::vector<absl::Status> status(parts);
  auto for_each_part = [&](const std::function<absl::Status(int64_t)>& run) {
    auto body = [&](int64_t first, int64_t end) {
      for (int64_t i = first; i < end; ++i) status[i] = run(i);
    };
    if (parts == 1) {
      body(0, 1);
    } else {
      pool->ParallelFor(parts, int64_t{1} << 40, body);
    }
    for (const absl::Status& s : status) {
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  };
  auto plan_of = [&](int64_t i) -> const Plan& {
    return i + 1 == parts ? **last_plan : first_plan;
  };

  if (pass == ConvPass::kBackpropFilter) {
    // Each part's gradient in the primitive's layout, summed in part order.
    std::vector<float> partial(parts * filter_floats, 0.0f);
    if (absl::Status s = for_each_part([&](int64_t i) {
          return Execute(pass, plan_of(i),
                         const_cast<float*>(a) + i * per_part * image_size,
                         partial.data() + i * filter_floats,
                         const_cast<float*>(b) + i * per_part * output_size);
        });
        !s.ok()) {
      return s;
    }
    for (int64_t i = 1; i < parts; ++i) {
      const float* part = partial.data() + i * filter_floats;
      for (size_t j = 0; j < filter_floats; ++j) partial[j] += part[j];
    }
    if (!first_plan.reorder_filter) {
      std::memcpy(out, partial.data(), filter_size * sizeof(float));
      return absl::OkStatus();
    }
    return ReorderFilter(first_plan, partial.data(), out, /*to_hwio=*/true);
  }
  // Forward and the input gradient: the filter once in the primitive's
  // layout, then every part of the batch on its own.
  const float* filter = pass == ConvPass::kForward ? b : a;
  float* images = pass == ConvPass::kForward ? const_cast<float*>(a) : out;
  float* outputs = pass == ConvPass::kForward ? out : const_cast<float*>(b);
  std::vector<float> blocked;
  float* primitive_filter = const_cast<float*>(filter);
  if (first_plan.reorder_filter) {
    blocked.resize(filter_floats);
    if (absl::Status s = ReorderFilter(first_plan, filter, blocked.data(),
                                       /*to_hwio=*/false);
        !s.ok()) {
      return s;
    }
    primitive_filter = blocked.data();
  }
  return for_each_part([&](int64_t i) {
    return Execute(pass, plan_of(i), images + i * per_part * image_size,
                   primitive_filter, outputs + i * per_part * output_size,
                   epilogue.bias);
  });
}

}  // namespace conv
}  // namespace dflow
