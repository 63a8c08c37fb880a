// SparseCross, SparseCrossHashed and SparseCrossV2 on the CPU: the crosses
// of tf.sparse.cross / cross_hashed and of feature columns' crossed_column,
// bit for bit TensorFlow 2.21's (core/kernels/sparse_cross_op.cc).
//
// For each batch row, every combination of one feature from each input
// (sparse inputs [batch, ?] first, then dense [batch, k]), the last input
// varying fastest, becomes one output entry [row, n]. A string cross joins
// the features (int64 as decimal) with the separator ("_X_" for SparseCross);
// a hashed cross chains FarmHash's Fingerprint64 of each string feature (an
// int64 feature as itself) with FingerprintCat64, starting from hash_key
// (SparseCross) or from the first feature (SparseCrossHashed), then takes it
// modulo num_buckets (or modulo INT64_MAX when num_buckets is 0).
// SparseCrossHashed hashes an int64 feature of a sparse input as
// Fingerprint64 of its 4 low-order bytes, as TensorFlow's kernel does (it
// passes sizeof(DataType) bytes). A sparse input's features of a row are
// its consecutive entries of that row, as TensorFlow counts them (so inputs
// must be in row-major order). strong_hash (SipHash) is not implemented.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "farmhash.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// TensorFlow's FingerprintCat64 (tensorflow/core/platform/fingerprint.h):
// Murmur-style mixing of two fingerprints.
uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }
uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  uint64_t result = fp1 ^ kMul;
  result ^= ShiftMix(fp2 * kMul) * kMul;
  result *= kMul;
  result = ShiftMix(result) * kMul;
  result = ShiftMix(result);
  return result;
}

enum class Kind { kV1, kHashed, kV2 };

// One input column: per batch row, its features' positions in `values`.
struct Column {
  const Tensor* values = nullptr;
  bool dense = false;
  std::vector<int64_t> start, count;  // sparse: per row
  int64_t Count(int64_t b) const {
    return dense ? values->shape().dim(1) : count[b];
  }
  int64_t Position(int64_t b, int64_t n) const {
    return dense ? b * values->shape().dim(1) + n : start[b] + n;
  }
  bool IsString() const { return values->dtype() == DT_STRING; }
};

template <Kind kKind>
class SparseCrossOp : public OpKernel {
 public:
  explicit SparseCrossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("N", &n_);
    if (s.ok() && kKind == Kind::kV1) {
      bool hashed = false;
      s = ctx->GetAttr("hashed_output", &hashed);
      if (s.ok()) s = ctx->GetAttr("num_buckets", &num_buckets_);
      if (s.ok()) s = ctx->GetAttr("hash_key", &hash_key_);
      hashed_ = hashed;
      DataType internal = DT_INVALID;
      if (s.ok()) s = ctx->GetAttr("internal_type", &internal);
      string_internal_ = internal == DT_STRING;
    }
    hashed_ = hashed_ || kKind == Kind::kHashed;
    ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = static_cast<int>(n_);
    const int extra = kKind == Kind::kV1 ? 0 : kKind == Kind::kV2 ? 1 : 3;
    const int dense_count = ctx->num_inputs() - 3 * n - extra;
    const int first_dense = 3 * n;
    std::string sep = "_X_";
    int64_t num_buckets = num_buckets_;
    if (kKind == Kind::kV2) {
      const Tensor& sep_t = ctx->input(ctx->num_inputs() - 1);
      OP_REQUIRES(ctx, sep_t.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input separator should be a scalar, but has shape ",
                      sep_t.shape().ToString())));
      sep = *sep_t.data<std::string>();
    }
    if (kKind == Kind::kHashed) {
      const int last = ctx->num_inputs();
      const Tensor& nb = ctx->input(last - 3);
      const Tensor& strong = ctx->input(last - 2);
      const Tensor& salt = ctx->input(last - 1);
      OP_REQUIRES(ctx,
                  nb.NumElements() == 1 && strong.NumElements() == 1 &&
                      salt.NumElements() == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "num_buckets and strong_hash must be scalars and salt "
                      "of length 2, but have shapes ",
                      nb.shape().ToString(), ", ", strong.shape().ToString(),
                      " and ", salt.shape().ToString())));
      OP_REQUIRES(ctx, !*strong.data<bool>(),
                  absl::UnimplementedError(
                      "SparseCrossHashed with strong_hash=true (SipHash) is "
                      "not implemented in dflow"));
      num_buckets = *nb.data<int64_t>();
    }
    // Checks, as TensorFlow's ValidateInput.
    for (int i = 0; i < n; ++i) {
      const Tensor& idx = ctx->input(i);
      const Tensor& val = ctx->input(n + i);
      const Tensor& shp = ctx->input(2 * n + i);
      OP_REQUIRES(ctx, idx.shape().rank() == 2 && idx.shape().dim(1) == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input indices should be a matrix [?, 2] but received "
                      "shape ",
                      idx.shape().ToString(), " at position ", i)));
      OP_REQUIRES(ctx,
                  val.shape().rank() == 1 &&
                      val.shape().dim(0) == idx.shape().dim(0),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input values should be a vector of one value per "
                      "index, but have shape ",
                      val.shape().ToString(), " for indices ",
                      idx.shape().ToString(), " at position ", i)));
      OP_REQUIRES(ctx, shp.shape().rank() == 1 && shp.NumElements() == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "shape should imply a 2D tensor, but got ",
                      shp.shape().ToString(), " at position ", i)));
      // As TensorFlow: internal_type string refuses int64 features.
      OP_REQUIRES(ctx, !string_internal_ || val.dtype() != DT_INT64,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Input values should be of internal type string but "
                      "received int64 at position ", i)));
    }
    for (int i = 0; i < dense_count; ++i) {
      const Tensor& d = ctx->input(first_dense + i);
      OP_REQUIRES(ctx, d.shape().rank() == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Dense inputs should be a matrix but received shape ",
                      d.shape().ToString(), " at position ", i)));
      OP_REQUIRES(ctx, !string_internal_ || d.dtype() != DT_INT64,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Dense inputs should be of internal type string but "
                      "received int64 at position ", i)));
    }
    int64_t batch = 0;
    if (n > 0) {
      batch = ctx->input(2 * n).data<int64_t>()[0];
    } else if (dense_count > 0) {
      batch = ctx->input(first_dense).shape().dim(0);
    }
    OP_REQUIRES(ctx, batch >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "the batch size ", batch, " is negative")));
    for (int i = 0; i < n; ++i) {
      const int64_t b = ctx->input(2 * n + i).data<int64_t>()[0];
      OP_REQUIRES(ctx, b == batch,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Expected batch size ", batch, " got ", b,
                      " at position ", i)));
    }
    for (int i = 0; i < dense_count; ++i) {
      const int64_t b = ctx->input(first_dense + i).shape().dim(0);
      OP_REQUIRES(ctx, b == batch,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Expected batch size ", batch, " got ", b,
                      " at dense tensor ", i)));
    }
    std::vector<Column> columns(n + dense_count);
    for (int i = 0; i < n; ++i) {
      Column& c = columns[i];
      c.values = &ctx->input(n + i);
      const Tensor& idx = ctx->input(i);
      const int64_t* x = idx.data<int64_t>();
      const int64_t rows = idx.shape().dim(0);
      // A row's features: the run of consecutive entries with that row.
      int64_t at = 0;
      for (int64_t b = 0; b < batch; ++b) {
        c.start.push_back(at);
        while (at < rows && x[2 * at] == b) ++at;
        c.count.push_back(at - c.start.back());
      }
    }
    for (int i = 0; i < dense_count; ++i) {
      columns[n + i].values = &ctx->input(first_dense + i);
      columns[n + i].dense = true;
    }
    std::vector<int64_t> row_start(batch + 1, 0);
    int64_t widest = 0;
    for (int64_t b = 0; b < batch; ++b) {
      int64_t crosses = columns.empty() ? 0 : 1;
      for (const Column& c : columns) crosses *= c.Count(b);
      widest = std::max(widest, crosses);
      row_start[b + 1] = row_start[b] + crosses;
    }
    const int64_t total = row_start[batch];
    Tensor *oi = nullptr, *ov = nullptr, *os = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total, 2}), &oi));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &ov));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &os));
    os->data<int64_t>()[0] = batch;
    os->data<int64_t>()[1] = widest;
    const size_t k = columns.size();
    std::vector<int64_t> pick(k);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t crosses = row_start[b + 1] - row_start[b];
      std::fill(pick.begin(), pick.end(), 0);
      for (int64_t cross = 0; cross < crosses; ++cross) {
        const int64_t at = row_start[b] + cross;
        oi->data<int64_t>()[2 * at] = b;
        oi->data<int64_t>()[2 * at + 1] = cross;
        if (hashed_) {
          ov->data<int64_t>()[at] =
              static_cast<int64_t>(Hash(columns, b, pick, num_buckets));
        } else {
          std::vector<std::string> parts(k);
          for (size_t c = 0; c < k; ++c) {
            const int64_t p = columns[c].Position(b, pick[c]);
            parts[c] = columns[c].IsString()
                           ? columns[c].values->data<std::string>()[p]
                           : std::to_string(
                                 columns[c].values->data<int64_t>()[p]);
          }
          ov->data<std::string>()[at] = absl::StrJoin(parts, sep);
        }
        // The next combination: the last column varies fastest.
        for (size_t c = k; c-- > 0;) {
          if (++pick[c] < columns[c].Count(b)) break;
          pick[c] = 0;
        }
      }
    }
  }

 private:
  uint64_t FeatureHash(const Column& c, int64_t p) const {
    if (c.IsString()) {
      const std::string& s = c.values->data<std::string>()[p];
      return util::Fingerprint64(s.data(), s.size());
    }
    const int64_t v = c.values->data<int64_t>()[p];
    if (kKind == Kind::kHashed && !c.dense) {
      // TensorFlow hashes sizeof(DataType) = 4 bytes of the int64 (its
      // low-order half on little-endian hosts).
      char bytes[sizeof(int64_t)];
      std::memcpy(bytes, &v, sizeof(v));
      return util::Fingerprint64(bytes, 4);
    }
    return static_cast<uint64_t>(v);
  }

  uint64_t Hash(const std::vector<Column>& columns, int64_t b,
                const std::vector<int64_t>& pick, int64_t num_buckets) const {
    uint64_t h = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
      const uint64_t f =
          FeatureHash(columns[c], columns[c].Position(b, pick[c]));
      if (kKind == Kind::kHashed && c == 0) {
        h = f;
      } else {
        h = FingerprintCat64(c == 0 ? static_cast<uint64_t>(hash_key_) : h, f);
      }
    }
    return num_buckets > 0
               ? h % static_cast<uint64_t>(num_buckets)
               : h % static_cast<uint64_t>(
                         std::numeric_limits<int64_t>::max());
  }

  int64_t n_ = 0;
  bool hashed_ = false;
  bool string_internal_ = false;
  int64_t num_buckets_ = 0;
  int64_t hash_key_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseCross").Device(kDeviceCpu),
                      SparseCrossOp<Kind::kV1>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseCrossHashed").Device(kDeviceCpu),
                      SparseCrossOp<Kind::kHashed>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SparseCrossV2").Device(kDeviceCpu),
                      SparseCrossOp<Kind::kV2>);

}  // namespace
}  // namespace dflow
