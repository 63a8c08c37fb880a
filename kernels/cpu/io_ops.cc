// CPU kernels of the checkpoint ops: SaveV2, RestoreV2 and
// MergeV2Checkpoints over formats/tensor_bundle.h, and the file-name string
// ops of a tf.compat.v1.train.Saver graph (ShardedFilename, ShardedFilespec,
// StringJoin). CPU only, as in TensorFlow: the placer puts these ops on a
// CPU and the variables' values travel to them.
#include <unistd.h>

#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "formats/file_util.h"
#include "formats/tensor_bundle.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// "node 'save/SaveV2' (SaveV2): <message>", keeping the status code.
absl::Status AtNode(const OpKernelContext* ctx, const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("node '", ctx->kernel().name(),
                                             "' (", ctx->kernel().type_string(),
                                             "): ", s.message()));
}

absl::Status ScalarString(const OpKernelContext* ctx, int i,
                          absl::string_view what, std::string* out) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_STRING || t.NumElements() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input '", what, "' must be one string, not ",
                           t.DebugString(3))));
  }
  *out = t.flat<std::string>()[0];
  return absl::OkStatus();
}

// tensor_names and shape_and_slices, checked against the expected count.
absl::Status NamesAndSlices(const OpKernelContext* ctx, size_t count,
                            std::vector<std::string>* names) {
  const Tensor& n = ctx->input(1);
  const Tensor& s = ctx->input(2);
  if (n.dtype() != DT_STRING || s.dtype() != DT_STRING ||
      static_cast<size_t>(n.NumElements()) != count ||
      static_cast<size_t>(s.NumElements()) != count) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "expects ", count,
                           " tensor names and as many shape_and_slices; got ",
                           n.NumElements(), " and ", s.NumElements())));
  }
  auto slices = s.flat<std::string>();
  for (size_t i = 0; i < count; ++i) {
    if (!slices[i].empty()) {
      return AtNode(ctx,
                    absl::UnimplementedError(absl::StrCat(
                        "tensor '", n.flat<std::string>()[i],
                        "' comes with shape_and_slices '", slices[i],
                        "': dflow saves and restores whole tensors only; "
                        "save the variable unpartitioned")));
    }
  }
  names->assign(n.flat<std::string>().begin(), n.flat<std::string>().end());
  return absl::OkStatus();
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string prefix;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    const size_t count = static_cast<size_t>(ctx->num_inputs() - 3);
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, NamesAndSlices(ctx, count, &names));
    BundleWriter writer(prefix);
    for (size_t i = 0; i < count; ++i) {
      OP_REQUIRES_OK(ctx, AtNode(ctx, writer.Add(names[i],
                                                 ctx->input(3 + i))));
    }
    OP_REQUIRES_OK(ctx, AtNode(ctx, writer.Finish()));
  }
};

class RestoreV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string prefix;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    const size_t count = static_cast<size_t>(ctx->num_outputs());
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, NamesAndSlices(ctx, count, &names));
    absl::StatusOr<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open(prefix);
    OP_REQUIRES_OK(ctx, AtNode(ctx, reader.status()));
    for (size_t i = 0; i < count; ++i) {
      const DataType want = ctx->kernel().output_type(static_cast<int>(i));
      absl::StatusOr<BundleTensorInfo> info = (*reader)->Lookup(names[i]);
      OP_REQUIRES_OK(ctx, AtNode(ctx, info.status()));
      OP_REQUIRES(ctx, info->dtype == want,
                  AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                                  "tensor '", names[i], "' is ",
                                  DataTypeName(info->dtype), " in checkpoint '",
                                  prefix, "' but output ", i, " is ",
                                  DataTypeName(want),
                                  "; restore with the dtypes it was saved "
                                  "with"))));
      absl::StatusOr<Tensor> value = (*reader)->Read(names[i]);
      OP_REQUIRES_OK(ctx, AtNode(ctx, value.status()));
      ctx->set_output(static_cast<int>(i), *std::move(value));
    }
  }
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    ctx->SetStatus(ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dtype() == DT_STRING && in.shape().rank() <= 1,
                AtNode(ctx, absl::InvalidArgumentError(
                                "input 'checkpoint_prefixes' must be a string "
                                "scalar or vector")));
    std::vector<std::string> prefixes(in.flat<std::string>().begin(),
                                      in.flat<std::string>().end());
    std::string merged;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 1, "destination_prefix", &merged));
    OP_REQUIRES_OK(ctx, AtNode(ctx, MergeBundles(prefixes, merged,
                                                 allow_missing_files_)));
    if (!delete_old_dirs_) return;
    // A sharded save writes its parts in a temporary directory; remove it
    // when it is empty now (rmdir refuses a non-empty one), as TF does.
    const std::string merged_dir = file_util::SplitPath(merged).first;
    std::set<std::string> dirs;
    for (const std::string& p : prefixes) {
      dirs.insert(file_util::SplitPath(p).first);
    }
    for (const std::string& dir : dirs) {
      if (dir != merged_dir && !dir.empty()) rmdir(dir.c_str());
    }
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

absl::Status ScalarInt(const OpKernelContext* ctx, int i,
                       absl::string_view what, int32_t* out) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_INT32 || t.NumElements() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input '", what, "' must be one int32, not ",
                           t.DebugString(3))));
  }
  *out = t.flat<int32_t>()[0];
  return absl::OkStatus();
}

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string basename;
    int32_t shard = 0, num_shards = 0;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "basename", &basename));
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 1, "shard", &shard));
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 2, "num_shards", &num_shards));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->flat<std::string>()[0] =
        absl::StrFormat("%s-%05d-of-%05d", basename, shard, num_shards);
  }
  bool IsExpensive() const override { return false; }
};

class ShardedFilespecOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string basename;
    int32_t num_shards = 0;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "basename", &basename));
    OP_REQUIRES_OK(ctx, ScalarInt(ctx, 1, "num_shards", &num_shards));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->flat<std::string>()[0] =
        absl::StrFormat("%s-?\?\?\?\?-of-%05d", basename, num_shards);
  }
  bool IsExpensive() const override { return false; }
};

// std::regex (ECMAScript) stands in for TensorFlow's RE2: the patterns a
// Saver graph uses ("^s3://.*") mean the same in both.
class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    absl::Status s = ctx->GetAttr("pattern", &pattern);
    if (s.ok()) {
      try {
        regex_ = std::regex(pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        s = absl::InvalidArgumentError(absl::StrCat(
            "attr 'pattern' '", pattern, "' is not a valid regex: ", e.what()));
      }
    }
    ctx->SetStatus(s);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    auto strings = in.flat<std::string>();
    auto matches = out->flat<bool>();
    for (size_t i = 0; i < strings.size(); ++i) {
      matches[i] = std::regex_match(strings[i], regex_);
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  std::regex regex_;
};

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }
  void Compute(OpKernelContext* ctx) override {
    // Scalars broadcast over the shape the non-scalar inputs share.
    TensorShape shape;
    bool have_shape = false;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.shape().rank() == 0) continue;
      if (!have_shape) {
        shape = t.shape();
        have_shape = true;
      } else {
        OP_REQUIRES(ctx, t.shape() == shape,
                    AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                                    "input ", i, " has shape ",
                                    t.shape().ToString(), " but an earlier "
                                    "one has ", shape.ToString(),
                                    "; non-scalar inputs must agree"))));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    auto result = out->flat<std::string>();
    for (size_t j = 0; j < result.size(); ++j) {
      std::string& s = result[j];
      s.clear();
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        const Tensor& t = ctx->input(i);
        if (i > 0) s += separator_;
        s += t.flat<std::string>()[t.shape().rank() == 0 ? 0 : j];
      }
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string separator_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SaveV2").Device(kDeviceCpu), SaveV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RestoreV2").Device(kDeviceCpu),
                      RestoreV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MergeV2Checkpoints").Device(kDeviceCpu),
                      MergeV2CheckpointsOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShardedFilename").Device(kDeviceCpu),
                      ShardedFilenameOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ShardedFilespec").Device(kDeviceCpu),
                      ShardedFilespecOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("StaticRegexFullMatch").Device(kDeviceCpu),
    StaticRegexFullMatchOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StringJoin").Device(kDeviceCpu),
                      StringJoinOp);

}  // namespace
}  // namespace dflow
