// CPU kernels of DecodeRaw, ParseExampleV2 and ParseSingleExample
// (graph/ops/parsing_ops.cc): tf.Example records (proto/example.proto)
// into dense (FixedLenFeature, FixedLenSequenceFeature), sparse
// (VarLenFeature) and ragged (RaggedFeature, ParseExampleV2 only) tensors,
// as TensorFlow's parse_single_example and parse_example give them
// (parsing_ops_example.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/parsing_ops_example.h"
#include "proto/example.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// --- DecodeRaw. ---

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("out_type", &out_type_));
    ctx->SetStatus(ctx->GetAttr("little_endian", &little_endian_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bytes = ctx->input(0);
    const int64_t n = bytes.NumElements();
    const std::string* strings = bytes.data<std::string>();
    const size_t width = DataTypeSize(out_type_);
    const size_t length = n == 0 ? 0 : strings[0].size();
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == length,
                  absl::InvalidArgumentError(absl::StrCat(
                      "DecodeRaw needs every string to have one size, but "
                      "element ",
                      i, " has size ", strings[i].size(), " != ", length)));
    }
    OP_REQUIRES(ctx, width > 0 && length % width == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "DecodeRaw: input strings of ", length,
                    " bytes are not a whole number of ",
                    DataTypeName(out_type_), " (", width, " bytes each)")));
    TensorShape shape = bytes.shape();
    shape.AddDim(static_cast<int64_t>(length / width));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    // The host is little-endian (x86-64); big-endian data is byte-swapped.
    const bool swap = !little_endian_ && width > 1;
    for (int64_t i = 0; i < n; ++i) {
      char* to = dst + i * length;
      std::memcpy(to, strings[i].data(), length);
      if (!swap) continue;
      // Complex numbers swap each of their two halves.
      const size_t part =
          out_type_ == DT_COMPLEX64 || out_type_ == DT_COMPLEX128 ? width / 2
                                                                  : width;
      for (size_t at = 0; at < length; at += part) {
        std::reverse(to + at, to + at + part);
      }
    }
  }

 private:
  DataType out_type_ = DT_INVALID;
  bool little_endian_ = true;
};

// --- tf.Example parsing. ---

// What to parse (from attrs, and for ParseExampleV2 from key inputs).
struct ParseConfig {
  std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
  std::vector<DataType> sparse_types, dense_types, ragged_value_types,
      ragged_split_types;
  std::vector<TensorShape> dense_shapes;
};

// Parses `records` (shaped `batch_shape`, a scalar or a vector) into the
// kernel's outputs, in ParseExampleV2's output order: sparse indices,
// values, shapes, dense values, ragged values, ragged row splits.
void ParseRecords(OpKernelContext* ctx, const ParseConfig& config,
                  const TensorShape& batch_shape, const std::string* records,
                  int64_t num_records,
                  const std::vector<const Tensor*>& defaults,
                  int first_sparse_output) {
  std::vector<Example> examples(num_records);
  parsing::Records features(num_records);
  for (int64_t r = 0; r < num_records; ++r) {
    OP_REQUIRES(ctx, examples[r].ParseFromString(records[r]),
                absl::InvalidArgumentError(absl::StrCat(
                    "record ", r, " is not a serialized tf.Example (",
                    records[r].size(), " bytes)")));
    features[r] = &examples[r].features();
  }
  const int num_sparse = static_cast<int>(config.sparse_keys.size());
  const int num_dense = static_cast<int>(config.dense_keys.size());
  const int num_ragged = static_cast<int>(config.ragged_keys.size());
  const int rank = batch_shape.rank();
  for (int s = 0; s < num_sparse; ++s) {
    parsing::ParseSparseFeature(
        ctx, config.sparse_keys[s], config.sparse_types[s], rank, features,
        first_sparse_output + s, first_sparse_output + num_sparse + s,
        first_sparse_output + 2 * num_sparse + s);
    if (!ctx->status().ok()) return;
  }
  const int first_dense = first_sparse_output + 3 * num_sparse;
  for (int d = 0; d < num_dense; ++d) {
    parsing::ParseDenseFeature(ctx, config.dense_keys[d], config.dense_types[d],
                               config.dense_shapes[d], batch_shape, features,
                               first_dense + d, *defaults[d]);
    if (!ctx->status().ok()) return;
  }
  const int first_ragged = first_dense + num_dense;
  for (int k = 0; k < num_ragged; ++k) {
    parsing::ParseRaggedFeature(
        ctx, config.ragged_keys[k], config.ragged_value_types[k],
        config.ragged_split_types[k], rank, features, first_ragged + k,
        first_ragged + num_ragged + k);
    if (!ctx->status().ok()) return;
  }
}

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &config_.dense_types));
    ctx->SetStatus(ctx->GetAttr("sparse_types", &config_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &config_.dense_shapes));
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse_));
    ctx->SetStatus(
        ctx->GetAttr("ragged_value_types", &config_.ragged_value_types));
    ctx->SetStatus(
        ctx->GetAttr("ragged_split_types", &config_.ragged_split_types));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "serialized must be a scalar or a vector of records, got ",
                    serialized.shape().ToString())));
    ParseConfig config = config_;
    OP_REQUIRES_OK(ctx, parsing::ReadKeys(ctx->input(2), "sparse_keys",
                                          &config.sparse_keys));
    OP_REQUIRES_OK(ctx, parsing::ReadKeys(ctx->input(3), "dense_keys",
                                          &config.dense_keys));
    OP_REQUIRES_OK(ctx, parsing::ReadKeys(ctx->input(4), "ragged_keys",
                                          &config.ragged_keys));
    OP_REQUIRES(
        ctx,
        static_cast<int64_t>(config.sparse_keys.size()) == num_sparse_ &&
            config.sparse_keys.size() == config.sparse_types.size() &&
            config.dense_keys.size() == config.dense_types.size() &&
            config.dense_keys.size() == config.dense_shapes.size() &&
            config.ragged_keys.size() == config.ragged_value_types.size() &&
            config.ragged_keys.size() == config.ragged_split_types.size(),
        absl::InvalidArgumentError(absl::StrCat(
            "ParseExampleV2: ", config.sparse_keys.size(), " sparse keys for ",
            num_sparse_, " sparse outputs, ", config.dense_keys.size(),
            " dense keys for ", config.dense_types.size(), " dense types, ",
            config.ragged_keys.size(), " ragged keys for ",
            config.ragged_value_types.size(), " ragged value types")));
    std::vector<const Tensor*> defaults;
    for (size_t d = 0; d < config.dense_keys.size(); ++d) {
      defaults.push_back(&ctx->input(5 + static_cast<int>(d)));
    }
    ParseRecords(ctx, config, serialized.shape(),
                 serialized.data<std::string>(), serialized.NumElements(),
                 defaults, /*first_sparse_output=*/0);
  }

 private:
  ParseConfig config_;
  int64_t num_sparse_ = 0;
};

class ParseSingleExampleOp : public OpKernel {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &config_.dense_types));
    ctx->SetStatus(ctx->GetAttr("sparse_types", &config_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &config_.dense_shapes));
    ctx->SetStatus(ctx->GetAttr("sparse_keys", &config_.sparse_keys));
    ctx->SetStatus(ctx->GetAttr("dense_keys", &config_.dense_keys));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "ParseSingleExample parses one record (a scalar), got ",
                    serialized.shape().ToString())));
    std::vector<const Tensor*> defaults;
    for (size_t d = 0; d < config_.dense_keys.size(); ++d) {
      defaults.push_back(&ctx->input(1 + static_cast<int>(d)));
    }
    ParseRecords(ctx, config_, TensorShape({}), serialized.data<std::string>(),
                 1, defaults,
                 /*first_sparse_output=*/0);
  }

 private:
  ParseConfig config_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeRaw").Device(kDeviceCpu),
                      DecodeRawOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParseExampleV2").Device(kDeviceCpu),
                      ParseExampleV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParseSingleExample").Device(kDeviceCpu),
                      ParseSingleExampleOp);

}  // namespace
}  // namespace dflow
