// Summary kernels on the CPU (TensorFlow registers them on the CPU only):
// ScalarSummary, HistogramSummary and MergeSummary, each writing a
// serialized Summary proto (proto/summary.proto) into a DT_STRING scalar.
//
// HistogramSummary builds TensorFlow's histogram (tsl/lib/histogram): the
// default bucket limits -DBL_MAX, -1e20.., -1e-12, 0, 1e-12 .. 1e20, DBL_MAX
// (a 10% growth from 1e-12), a value counted in the first bucket whose limit
// is above it, and runs of empty buckets collapsed into their last limit;
// so the serialized bytes are TensorFlow's.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "proto/summary.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

absl::Status SetSummaryOutput(OpKernelContext* ctx, const Summary& s) {
  Tensor* out = nullptr;
  if (absl::Status st = ctx->allocate_output(0, TensorShape(), &out);
      !st.ok()) {
    return st;
  }
  if (!s.SerializeToString(out->data<std::string>())) {
    return absl::InternalError("could not serialize the Summary");
  }
  return absl::OkStatus();
}

template <typename T>
double AsDouble(const Tensor& t, int64_t i) {
  return static_cast<double>(t.data<T>()[i]);
}

// The element `i` of a real-number tensor as a double.
double ValueAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return AsDouble<float>(t, i);
    case DT_DOUBLE:
      return AsDouble<double>(t, i);
    case DT_INT32:
      return AsDouble<int32_t>(t, i);
    case DT_INT64:
      return AsDouble<int64_t>(t, i);
    case DT_INT16:
      return AsDouble<int16_t>(t, i);
    case DT_INT8:
      return AsDouble<int8_t>(t, i);
    case DT_UINT8:
      return AsDouble<uint8_t>(t, i);
    case DT_UINT16:
      return AsDouble<uint16_t>(t, i);
    case DT_UINT32:
      return AsDouble<uint32_t>(t, i);
    case DT_UINT64:
      return AsDouble<uint64_t>(t, i);
    default:
      return 0;  // not registered
  }
}

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

// TensorFlow's default bucket limits.
const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> pos, neg;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      pos.push_back(v);
      neg.push_back(-v);
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    auto* out = new std::vector<double>(neg.rbegin(), neg.rend());
    out->push_back(0.0);
    out->insert(out->end(), pos.begin(), pos.end());
    return out;
  }();
  return *limits;
}

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tag.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "tags must be scalar, got shape ", tag.shape().ToString())));
    const std::vector<double>& limits = DefaultBucketLimits();
    std::vector<double> buckets(limits.size(), 0.0);
    double min = limits.back(), max = -DBL_MAX, num = 0, sum = 0, sum_sq = 0;
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const double v = ValueAt(values, i);
      OP_REQUIRES(ctx, !std::isnan(v),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Nan in summary histogram for: ", name(), " (element ",
                      i, ")")));
      OP_REQUIRES(ctx, !std::isinf(v),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Infinity in summary histogram for: ", name(),
                      " (element ", i, ")")));
      const size_t b =
          std::upper_bound(limits.begin(), limits.end(), v) - limits.begin();
      buckets[b] += 1.0;
      min = std::min(min, v);
      max = std::max(max, v);
      num += 1;
      sum += v;
      sum_sq += v * v;
    }
    Summary s;
    Summary::Value* value = s.add_value();
    value->set_tag(*tag.data<std::string>());
    HistogramProto* h = value->mutable_histo();
    h->set_min(min);
    h->set_max(max);
    h->set_num(num);
    h->set_sum(sum);
    h->set_sum_squares(sum_sq);
    for (size_t i = 0; i < buckets.size();) {
      double end = limits[i];
      double count = buckets[i];
      ++i;
      if (count <= 0.0) {
        // A run of empty buckets becomes one, ending at the run's last limit.
        while (i < buckets.size() && buckets[i] <= 0.0) {
          end = limits[i];
          count = buckets[i];
          ++i;
        }
      }
      h->add_bucket_limit(end);
      h->add_bucket(count);
    }
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
