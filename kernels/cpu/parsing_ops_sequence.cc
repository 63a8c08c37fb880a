// CPU kernels of ParseSequenceExampleV2 (what tf.io.parse_sequence_example
// and parse_single_sequence_example write), ParseSequenceExample and
// ParseSingleSequenceExample (tf.compat.v1 graphs of older TensorFlow):
// tf.train.SequenceExample records into
// - context features, parsed as tf.Example's (parsing_ops_example.h):
//   dense, sparse and (V2) ragged;
// - feature lists (one Feature per step):
//   dense (FixedLenSequenceFeature): batch + [longest steps] + shape, each
//     step holding exactly the shape's values, padded with zeros, and each
//     record's number of steps (lengths); a missing list is an error unless
//     its key is assumed empty (allow_missing=True);
//   sparse (VarLenFeature): indices (record..., step, position), values
//     and the dense shape (batch..., longest steps, longest step);
//   ragged (RaggedFeature, V2): values, outer splits (steps per record)
//     and inner splits (values per step).
// A scalar `serialized` is one record (no batch dimension), as TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/parsing_ops_example.h"
#include "proto/example.pb.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using parsing::CopyValues;
using parsing::KindName;
using parsing::ReadKeys;
using parsing::ValueCount;

// What to parse, with each group's first output.
struct SequenceConfig {
  std::vector<std::string> context_sparse_keys, context_dense_keys,
      context_ragged_keys, list_sparse_keys, list_dense_keys, list_ragged_keys;
  std::vector<DataType> context_sparse_types, context_dense_types,
      context_ragged_value_types, context_ragged_split_types, list_sparse_types,
      list_dense_types, list_ragged_value_types, list_ragged_split_types;
  std::vector<TensorShape> context_dense_shapes, list_dense_shapes;
  // Dense lists that may be missing (then they have no steps).
  absl::flat_hash_set<std::string> missing_assumed_empty;
  bool has_ragged = false;   // V2's outputs
  bool has_lengths = false;  // the batch ops' dense list lengths
};

using Lists = std::vector<const FeatureLists*>;

// The list `key` of record `r`, or null if it has none.
const FeatureList* FindList(const FeatureLists& lists, const std::string& key) {
  auto it = lists.feature_list().find(key);
  return it == lists.feature_list().end() ? nullptr : &it->second;
}

// Step `i` of list `key` checked to hold `type`'s kind (an empty step
// holds no values of any kind).
absl::StatusOr<int64_t> StepCount(const FeatureList& list,
                                  const std::string& key, DataType type,
                                  int64_t record, int step) {
  const Feature& f = list.feature(step);
  if (f.kind_case() == Feature::KIND_NOT_SET) return 0;
  const int64_t count = ValueCount(f, type);
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("record ", record, ": feature list '", key, "', step ",
                     step, ": holds ",
                     f.has_float_list()   ? "float_list"
                     : f.has_int64_list() ? "int64_list"
                                          : "bytes_list",
                     " but the parser asks for ", KindName(type), " (",
                     DataTypeName(type), ")"));
  }
  return count;
}

void ParseDenseList(OpKernelContext* ctx, const SequenceConfig& config, int d,
                    const TensorShape& batch_shape, const Lists& lists,
                    int values_output, int lengths_output) {
  const std::string& key = config.list_dense_keys[d];
  const DataType type = config.list_dense_types[d];
  const TensorShape& shape = config.list_dense_shapes[d];
  OP_REQUIRES(ctx, shape.IsFullyDefined(),
              absl::InvalidArgumentError(absl::StrCat(
                  "dense feature list '", key, "' has shape ", shape.ToString(),
                  "; each step's shape must be fully "
                  "defined")));
  const int64_t per_step = shape.num_elements();
  const int64_t num_records = static_cast<int64_t>(lists.size());
  std::vector<const FeatureList*> found(num_records, nullptr);
  int64_t longest = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    found[r] = FindList(*lists[r], key);
    OP_REQUIRES(ctx,
                found[r] != nullptr || config.missing_assumed_empty.count(key),
                absl::InvalidArgumentError(absl::StrCat(
                    "record ", r, ": feature list '", key,
                    "' is required but could not be found (parse it with "
                    "allow_missing=True to read a missing list as empty)")));
    if (found[r] == nullptr) continue;
    for (int i = 0; i < found[r]->feature_size(); ++i) {
      absl::StatusOr<int64_t> count = StepCount(*found[r], key, type, r, i);
      OP_REQUIRES_OK(ctx, count.status());
      OP_REQUIRES(ctx, *count == per_step,
                  absl::InvalidArgumentError(absl::StrCat(
                      "record ", r, ": feature list '", key, "', step ", i,
                      ": has ", *count, " values but the step shape ",
                      shape.ToString(), " needs ", per_step)));
    }
    longest = std::max<int64_t>(longest, found[r]->feature_size());
  }
  TensorShape out_shape = batch_shape;
  out_shape.AddDim(longest);
  for (int k = 0; k < shape.rank(); ++k) out_shape.AddDim(shape.dim(k));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(values_output, out_shape, &out));
  if (type != DT_STRING && out->NumElements() > 0) {
    std::memset(out->raw_data(), 0, out->TotalBytes());  // the padding
  }
  Tensor* lengths = nullptr;
  if (lengths_output >= 0) {
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(lengths_output, batch_shape, &lengths));
  }
  for (int64_t r = 0; r < num_records; ++r) {
    const int steps = found[r] == nullptr ? 0 : found[r]->feature_size();
    for (int i = 0; i < steps; ++i) {
      if (per_step > 0) {
        CopyValues(found[r]->feature(i), type, out,
                   (r * longest + i) * per_step);
      }
    }
    if (lengths != nullptr) lengths->data<int64_t>()[r] = steps;
  }
}

void ParseSparseList(OpKernelContext* ctx, const std::string& key,
                     DataType type, int batch_rank, const Lists& lists,
                     int indices_output, int values_output, int shape_output) {
  const int64_t num_records = static_cast<int64_t>(lists.size());
  std::vector<const FeatureList*> found(num_records, nullptr);
  int64_t total = 0, longest_list = 0, longest_step = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    found[r] = FindList(*lists[r], key);
    if (found[r] == nullptr) continue;
    for (int i = 0; i < found[r]->feature_size(); ++i) {
      absl::StatusOr<int64_t> count = StepCount(*found[r], key, type, r, i);
      OP_REQUIRES_OK(ctx, count.status());
      total += *count;
      longest_step = std::max(longest_step, *count);
    }
    longest_list = std::max<int64_t>(longest_list, found[r]->feature_size());
  }
  const int width = batch_rank + 2;
  Tensor* indices = nullptr;
  Tensor* values = nullptr;
  Tensor* dense_shape = nullptr;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(indices_output, TensorShape({total, width}),
                                &indices));
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(values_output, TensorShape({total}), &values));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(shape_output, TensorShape({width}),
                                           &dense_shape));
  int64_t at = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    if (found[r] == nullptr) continue;
    for (int i = 0; i < found[r]->feature_size(); ++i) {
      const Feature& step = found[r]->feature(i);
      if (step.kind_case() == Feature::KIND_NOT_SET) continue;
      const int64_t count = ValueCount(step, type);
      CopyValues(step, type, values, at);
      for (int64_t j = 0; j < count; ++j, ++at) {
        int64_t* row = indices->data<int64_t>() + at * width;
        if (batch_rank == 1) *row++ = r;
        *row++ = i;
        *row = j;
      }
    }
  }
  int64_t* dims = dense_shape->data<int64_t>();
  if (batch_rank == 1) *dims++ = num_records;
  *dims++ = longest_list;
  *dims = longest_step;
}

void ParseRaggedList(OpKernelContext* ctx, const std::string& key,
                     DataType type, DataType split_type, int batch_rank,
                     const Lists& lists, int values_output, int outer_output,
                     int inner_output) {
  OP_REQUIRES(ctx, split_type == DT_INT32 || split_type == DT_INT64,
              absl::InvalidArgumentError(absl::StrCat(
                  "ragged feature list '", key, "' has row splits of ",
                  DataTypeName(split_type), "; they must be int32 or int64")));
  const int64_t num_records = static_cast<int64_t>(lists.size());
  std::vector<const FeatureList*> found(num_records, nullptr);
  int64_t total = 0, steps = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    found[r] = FindList(*lists[r], key);
    if (found[r] == nullptr) continue;
    for (int i = 0; i < found[r]->feature_size(); ++i) {
      absl::StatusOr<int64_t> count = StepCount(*found[r], key, type, r, i);
      OP_REQUIRES_OK(ctx, count.status());
      total += *count;
    }
    steps += found[r]->feature_size();
  }
  Tensor* values = nullptr;
  Tensor* outer = nullptr;
  Tensor* inner = nullptr;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_output(values_output, TensorShape({total}), &values));
  // A scalar record's outer splits are one zero (TensorFlow's shape []).
  OP_REQUIRES_OK(ctx, ctx->allocate_output(outer_output,
                                           batch_rank == 0
                                               ? TensorShape({})
                                               : TensorShape({num_records + 1}),
                                           &outer));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(inner_output,
                                           TensorShape({steps + 1}), &inner));
  parsing::SetSplit(outer, 0, 0);
  parsing::SetSplit(inner, 0, 0);
  int64_t at = 0, step_at = 0;
  for (int64_t r = 0; r < num_records; ++r) {
    const int n = found[r] == nullptr ? 0 : found[r]->feature_size();
    for (int i = 0; i < n; ++i) {
      const Feature& step = found[r]->feature(i);
      if (step.kind_case() != Feature::KIND_NOT_SET) {
        CopyValues(step, type, values, at);
        at += ValueCount(step, type);
      }
      parsing::SetSplit(inner, ++step_at, at);
    }
    if (batch_rank == 1) parsing::SetSplit(outer, r + 1, step_at);
  }
}

// Parses the serialized SequenceExamples of `serialized` (a scalar: one
// record, no batch dimension) into every output, in
// ParseSequenceExampleV2's order (the V1 ops skip the ragged groups, and
// ParseSingleSequenceExample the lengths); the context defaults are the
// inputs from `first_default` on.
void ParseSequences(OpKernelContext* ctx, const SequenceConfig& config,
                    const Tensor& serialized, int first_default) {
  const TensorShape& batch_shape = serialized.shape();
  const std::string* records = serialized.data<std::string>();
  const int64_t num_records = serialized.NumElements();
  std::vector<const Tensor*> context_defaults;
  for (size_t d = 0; d < config.context_dense_keys.size(); ++d) {
    context_defaults.push_back(
        &ctx->input(first_default + static_cast<int>(d)));
  }
  std::vector<SequenceExample> examples(num_records);
  parsing::Records contexts(num_records);
  Lists lists(num_records);
  for (int64_t r = 0; r < num_records; ++r) {
    OP_REQUIRES(ctx, examples[r].ParseFromString(records[r]),
                absl::InvalidArgumentError(absl::StrCat(
                    "record ", r, " is not a serialized tf.SequenceExample (",
                    records[r].size(), " bytes)")));
    contexts[r] = &examples[r].context();
    lists[r] = &examples[r].feature_lists();
  }
  const int rank = batch_shape.rank();
  int out = 0;
  const int cs = static_cast<int>(config.context_sparse_keys.size());
  for (int s = 0; s < cs; ++s) {
    parsing::ParseSparseFeature(ctx, config.context_sparse_keys[s],
                                config.context_sparse_types[s], rank, contexts,
                                out + s, out + cs + s, out + 2 * cs + s);
    if (!ctx->status().ok()) return;
  }
  out += 3 * cs;
  const int cd = static_cast<int>(config.context_dense_keys.size());
  for (int d = 0; d < cd; ++d) {
    parsing::ParseDenseFeature(ctx, config.context_dense_keys[d],
                               config.context_dense_types[d],
                               config.context_dense_shapes[d], batch_shape,
                               contexts, out + d, *context_defaults[d]);
    if (!ctx->status().ok()) return;
  }
  out += cd;
  if (config.has_ragged) {
    const int cr = static_cast<int>(config.context_ragged_keys.size());
    for (int k = 0; k < cr; ++k) {
      parsing::ParseRaggedFeature(ctx, config.context_ragged_keys[k],
                                  config.context_ragged_value_types[k],
                                  config.context_ragged_split_types[k], rank,
                                  contexts, out + k, out + cr + k);
      if (!ctx->status().ok()) return;
    }
    out += 2 * cr;
  }
  const int ls = static_cast<int>(config.list_sparse_keys.size());
  for (int s = 0; s < ls; ++s) {
    ParseSparseList(ctx, config.list_sparse_keys[s],
                    config.list_sparse_types[s], rank, lists, out + s,
                    out + ls + s, out + 2 * ls + s);
    if (!ctx->status().ok()) return;
  }
  out += 3 * ls;
  const int ld = static_cast<int>(config.list_dense_keys.size());
  for (int d = 0; d < ld; ++d) {
    ParseDenseList(ctx, config, d, batch_shape, lists, out + d,
                   config.has_lengths ? out + ld + d : -1);
    if (!ctx->status().ok()) return;
  }
  out += config.has_lengths ? 2 * ld : ld;
  if (config.has_ragged) {
    const int lr = static_cast<int>(config.list_ragged_keys.size());
    for (int k = 0; k < lr; ++k) {
      ParseRaggedList(ctx, config.list_ragged_keys[k],
                      config.list_ragged_value_types[k],
                      config.list_ragged_split_types[k], rank, lists, out + k,
                      out + lr + k, out + 2 * lr + k);
      if (!ctx->status().ok()) return;
    }
  }
}

// Whether the keys and the attrs that type them agree in number.
absl::Status CheckCounts(const SequenceConfig& c) {
  struct Group {
    const char* what;
    size_t keys, types;
  };
  const Group groups[] = {
      {"context sparse", c.context_sparse_keys.size(),
       c.context_sparse_types.size()},
      {"context dense", c.context_dense_keys.size(),
       c.context_dense_types.size()},
      {"context dense (shapes)", c.context_dense_keys.size(),
       c.context_dense_shapes.size()},
      {"context ragged", c.context_ragged_keys.size(),
       c.context_ragged_value_types.size()},
      {"context ragged (splits)", c.context_ragged_keys.size(),
       c.context_ragged_split_types.size()},
      {"feature list sparse", c.list_sparse_keys.size(),
       c.list_sparse_types.size()},
      {"feature list dense", c.list_dense_keys.size(),
       c.list_dense_types.size()},
      {"feature list dense (shapes)", c.list_dense_keys.size(),
       c.list_dense_shapes.size()},
      {"feature list ragged", c.list_ragged_keys.size(),
       c.list_ragged_value_types.size()},
      {"feature list ragged (splits)", c.list_ragged_keys.size(),
       c.list_ragged_split_types.size()},
  };
  for (const Group& g : groups) {
    if (g.keys != g.types) {
      return absl::InvalidArgumentError(
          absl::StrCat(g.what, ": ", g.keys, " keys but ", g.types,
                       " types or shapes in the attrs"));
    }
  }
  return absl::OkStatus();
}

// The attrs every form has.
void ReadTypes(OpKernelConstruction* ctx, SequenceConfig* c) {
  ctx->SetStatus(
      ctx->GetAttr("context_sparse_types", &c->context_sparse_types));
  ctx->SetStatus(ctx->GetAttr("Tcontext_dense", &c->context_dense_types));
  ctx->SetStatus(
      ctx->GetAttr("context_dense_shapes", &c->context_dense_shapes));
  ctx->SetStatus(
      ctx->GetAttr("feature_list_sparse_types", &c->list_sparse_types));
  ctx->SetStatus(
      ctx->GetAttr("feature_list_dense_types", &c->list_dense_types));
  ctx->SetStatus(
      ctx->GetAttr("feature_list_dense_shapes", &c->list_dense_shapes));
}

// ParseSequenceExampleV2: keys as inputs, ragged groups, dense lengths.
class ParseSequenceExampleV2Op : public OpKernel {
 public:
  explicit ParseSequenceExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadTypes(ctx, &config_);
    ctx->SetStatus(ctx->GetAttr("context_ragged_value_types",
                                &config_.context_ragged_value_types));
    ctx->SetStatus(ctx->GetAttr("context_ragged_split_types",
                                &config_.context_ragged_split_types));
    ctx->SetStatus(ctx->GetAttr("feature_list_ragged_value_types",
                                &config_.list_ragged_value_types));
    ctx->SetStatus(ctx->GetAttr("feature_list_ragged_split_types",
                                &config_.list_ragged_split_types));
    config_.has_ragged = true;
    config_.has_lengths = true;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "serialized must be a scalar or a vector of records, got ",
                    serialized.shape().ToString())));
    SequenceConfig config = config_;
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(2), "context_sparse_keys",
                                 &config.context_sparse_keys));
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(3), "context_dense_keys",
                                 &config.context_dense_keys));
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(4), "context_ragged_keys",
                                 &config.context_ragged_keys));
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(5), "feature_list_sparse_keys",
                                 &config.list_sparse_keys));
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(6), "feature_list_dense_keys",
                                 &config.list_dense_keys));
    OP_REQUIRES_OK(ctx, ReadKeys(ctx->input(7), "feature_list_ragged_keys",
                                 &config.list_ragged_keys));
    const Tensor& missing = ctx->input(8);
    OP_REQUIRES(
        ctx,
        missing.dtype() == DT_BOOL &&
            missing.NumElements() ==
                static_cast<int64_t>(config.list_dense_keys.size()),
        absl::InvalidArgumentError(absl::StrCat(
            "feature_list_dense_missing_assumed_empty must hold one "
            "bool per dense feature list (",
            config.list_dense_keys.size(), "), got ",
            DataTypeName(missing.dtype()), " ", missing.shape().ToString())));
    for (size_t d = 0; d < config.list_dense_keys.size(); ++d) {
      if (missing.data<bool>()[d]) {
        config.missing_assumed_empty.insert(config.list_dense_keys[d]);
      }
    }
    OP_REQUIRES_OK(ctx, CheckCounts(config));
    ParseSequences(ctx, config, serialized, /*first_default=*/9);
  }

 private:
  SequenceConfig config_;
};

// ParseSequenceExample (V1, a batch): keys as attrs.
class ParseSequenceExampleOp : public OpKernel {
 public:
  explicit ParseSequenceExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadTypes(ctx, &config_);
    ctx->SetStatus(
        ctx->GetAttr("context_sparse_keys", &config_.context_sparse_keys));
    ctx->SetStatus(
        ctx->GetAttr("context_dense_keys", &config_.context_dense_keys));
    ctx->SetStatus(
        ctx->GetAttr("feature_list_sparse_keys", &config_.list_sparse_keys));
    ctx->SetStatus(
        ctx->GetAttr("feature_list_dense_keys", &config_.list_dense_keys));
    std::vector<std::string> missing;
    ctx->SetStatus(
        ctx->GetAttr("feature_list_dense_missing_assumed_empty", &missing));
    config_.missing_assumed_empty.insert(missing.begin(), missing.end());
    config_.has_lengths = true;
    ctx->SetStatus(CheckCounts(config_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "ParseSequenceExample parses a vector of records, got ",
                    serialized.shape().ToString())));
    ParseSequences(ctx, config_, serialized, /*first_default=*/2);
  }

 private:
  SequenceConfig config_;
};

// ParseSingleSequenceExample (V1, one record): keys as scalar inputs, no
// lengths.
class ParseSingleSequenceExampleOp : public OpKernel {
 public:
  explicit ParseSingleSequenceExampleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ReadTypes(ctx, &config_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "ParseSingleSequenceExample parses one record (a "
                    "scalar), got ",
                    serialized.shape().ToString())));
    SequenceConfig config = config_;
    std::vector<std::string> missing;
    OP_REQUIRES_OK(
        ctx, ReadKeys(ctx->input(1), "feature_list_dense_missing_assumed_empty",
                      &missing));
    config.missing_assumed_empty.insert(missing.begin(), missing.end());
    // The key lists follow, one scalar input per key, in OpDef order.
    int in = 2;
    // Each group has as many key inputs as its types attr has entries.
    const std::pair<std::vector<std::string>*, size_t> groups[] = {
        {&config.context_sparse_keys, config.context_sparse_types.size()},
        {&config.context_dense_keys, config.context_dense_types.size()},
        {&config.list_sparse_keys, config.list_sparse_types.size()},
        {&config.list_dense_keys, config.list_dense_types.size()}};
    for (const auto& [keys, n] : groups) {
      for (size_t k = 0; k < n; ++k, ++in) {
        const Tensor& key = ctx->input(in);
        OP_REQUIRES(ctx, key.dtype() == DT_STRING && key.NumElements() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input ", in, " must be one key (a string scalar)")));
        keys->push_back(key.data<std::string>()[0]);
      }
    }
    OP_REQUIRES_OK(ctx, CheckCounts(config));
    ParseSequences(ctx, config, serialized, /*first_default=*/in);
  }

 private:
  SequenceConfig config_;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParseSequenceExampleV2").Device(kDeviceCpu),
    ParseSequenceExampleV2Op);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParseSequenceExample").Device(kDeviceCpu),
    ParseSequenceExampleOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ParseSingleSequenceExample").Device(kDeviceCpu),
    ParseSingleSequenceExampleOp);

}  // namespace
}  // namespace dflow
