// Summary kernels on the CPU (TensorFlow registers them on the CPU only):
// ScalarSummary, HistogramSummary and MergeSummary, each writing a
// serialized Summary proto (proto/summary.proto) into a DT_STRING scalar.
//
// HistogramSummary builds TensorFlow's histogram (tsl/lib/histogram): the
// default bucket limits -DBL_MAX, -1e20.., -1e-12, 0, 1e-12 .. 1e20, DBL_MAX
// (a 10% growth from 1e-12), a value counted in the first bucket whose limit
// is above it, and runs of empty buckets collapsed into their last limit
// (summary_ops_util.cc); so the serialized bytes are TensorFlow's.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/summary_ops_util.h"
#include "proto/summary.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using summary_util::SetSummaryOutput;
using summary_util::ValueAt;

const std::vector<DataType> kRealTypes = {
    DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_INT64,  DT_INT16,
    DT_INT8,  DT_UINT8,  DT_UINT16, DT_UINT32, DT_UINT64};

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(
        ctx, tags.shape() == values.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "tags and values are not the same shape: ", tags.shape().ToString(),
            " != ", values.shape().ToString(),
            tags.shape().rank() == 0
                ? absl::StrCat(" (tag '", *tags.data<std::string>(), "')")
                : "")));
    Summary s;
    for (int64_t i = 0; i < tags.NumElements(); ++i) {
      Summary::Value* v = s.add_value();
      v->set_tag(tags.data<std::string>()[i]);
      v->set_simple_value(static_cast<float>(ValueAt(values, i)));
    }
    OP_REQUIRES_OK(ctx, SetSummaryOutput(ctx, s));
  }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tag.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "tags must be scalar, got shape ", tag.shape().ToString())));
    Summary s;
    OP_REQUIRES_OK(ctx, summary_util::AddHistogram(
                            values, *tag.data<std::string>(), name(), &s));
    OP_REQUIRES_OK(ctx, SetSummaryOutput(ctx, s));
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Summary merged;
    absl::flat_hash_set<std::string> tags;
    for (int k = 0; k < num_inputs(); ++k) {
      const Tensor& in = ctx->input(k);
      for (int64_t i = 0; i < in.NumElements(); ++i) {
        Summary s;
        OP_REQUIRES(ctx, s.ParseFromString(in.data<std::string>()[i]),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Could not parse one of the summary inputs (input ", k,
                        ", element ", i, ")")));
        for (Summary::Value& v : *s.mutable_value()) {
          // Tensor summaries have no tag: no duplicates to find.
          OP_REQUIRES(ctx, v.tag().empty() || tags.insert(v.tag()).second,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Duplicate tag ", v.tag(),
                          " found in summary inputs (input ", k, ")")));
          *merged.add_value() = std::move(v);
        }
      }
    }
    OP_REQUIRES_OK(ctx, SetSummaryOutput(ctx, merged));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ScalarSummary")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", kRealTypes),
                      ScalarSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("HistogramSummary")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", kRealTypes),
                      HistogramSummaryOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MergeSummary").Device(kDeviceCpu),
                      MergeSummaryOp);

}  // namespace
}  // namespace dflow
