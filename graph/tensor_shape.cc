#include "graph/tensor_shape.h"

#include <cassert>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dflow {
namespace {

bool IsValidDimSize(int64_t size) {
  return size >= 0 || size == TensorShape::kUnknownDim;
}

}  // namespace

TensorShape TensorShape::Unknown() {
  TensorShape shape;
  shape.unknown_rank_ = true;
  return shape;
}

TensorShape TensorShape::UnknownWithRank(int rank) {
  assert(rank >= 0);
  TensorShape shape;
  shape.dims_.assign(static_cast<size_t>(rank < 0 ? 0 : rank), kUnknownDim);
  return shape;
}

int64_t TensorShape::dim(int i) const {
  assert(!unknown_rank_ && i >= 0 && i < rank());
  return dims_[i];
}

bool TensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t TensorShape::num_elements() const {
  if (unknown_rank_) return -1;
  int64_t product = 1;
  for (int64_t d : dims_) {
    if (d < 0 || __builtin_mul_overflow(product, d, &product)) return -1;
  }
  return product;
}

void TensorShape::AddDim(int64_t size) {
  assert(!unknown_rank_ && IsValidDimSize(size));
  dims_.push_back(size);
}

void TensorShape::set_dim(int i, int64_t size) {
  assert(!unknown_rank_ && i >= 0 && i < rank() && IsValidDimSize(size));
  dims_[i] = size;
}

void TensorShape::RemoveDim(int i) {
  assert(!unknown_rank_ && i >= 0 && i < rank());
  dims_.erase(static_cast<size_t>(i));
}

void TensorShape::InsertDim(int i, int64_t size) {
  assert(!unknown_rank_ && i >= 0 && i <= rank() && IsValidDimSize(size));
  dims_.insert(static_cast<size_t>(i), size);
}

std::string TensorShape::ToString() const {
  if (unknown_rank_) return "<unknown>";
  return absl::StrCat("[",
                      absl::StrJoin(dims_, ",",
                                    [](std::string* out, int64_t d) {
                                      if (d == kUnknownDim) {
                                        out->push_back('?');
                                      } else {
                                        absl::StrAppend(out, d);
                                      }
                                    }),
                      "]");
}

absl::StatusOr<TensorShape> TensorShape::FromProto(
    const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorShapeProto says unknown_rank but lists ", proto.dim_size(),
          " dimensions; clear either unknown_rank or dim"));
    }
    return Unknown();
  }
  TensorShape shape;
  for (int i = 0; i < proto.dim_size(); ++i) {
    const int64_t size = proto.dim(i).size();
    if (!IsValidDimSize(size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorShapeProto dimension ", i, " has size ", size,
                       "; sizes must be >= 0, or -1 for an unknown dimension"));
    }
    shape.dims_.push_back(size);
  }
  return shape;
}

void TensorShape::ToProto(TensorShapeProto* proto) const {
  proto->Clear();
  if (unknown_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

absl::StatusOr<TensorShape> TensorShape::Parse(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (body == "<unknown>") return Unknown();
  if (absl::ConsumePrefix(&body, "[")) {
    if (!absl::ConsumeSuffix(&body, "]")) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape '", text, "' opens '[' but does not end in ']'"));
    }
    body = absl::StripAsciiWhitespace(body);
  }
  TensorShape shape;
  if (body.empty()) return shape;  // "[]" or "": a scalar

  const std::vector<absl::string_view> tokens = absl::StrSplit(body, ',');
  for (size_t i = 0; i < tokens.size(); ++i) {
    const absl::string_view token = absl::StripAsciiWhitespace(tokens[i]);
    int64_t size = 0;
    if (token == "?") {
      size = kUnknownDim;
    } else if (!absl::SimpleAtoi(token, &size) || !IsValidDimSize(size)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " ('", token, "') of shape '", text,
          "' is not a size; write a non-negative integer, or ? (or -1) "
          "for an unknown dimension, e.g. [2,?,3]"));
    }
    shape.dims_.push_back(size);
  }
  return shape;
}

bool TensorShape::IsCompatibleWith(const TensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const int64_t a = dims_[i];
    const int64_t b = other.dims_[i];
    if (a != kUnknownDim && b != kUnknownDim && a != b) return false;
  }
  return true;
}

absl::StatusOr<TensorShape> TensorShape::Merge(const TensorShape& other) const {
  if (!IsCompatibleWith(other)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shapes ", ToString(), " and ", other.ToString(),
                     " are incompatible: they differ in rank or in a "
                     "dimension both know"));
  }
  if (unknown_rank_) return other;
  if (other.unknown_rank_) return *this;
  TensorShape merged = *this;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (merged.dims_[i] == kUnknownDim) merged.dims_[i] = other.dims_[i];
  }
  return merged;
}

std::ostream& operator<<(std::ostream& os, const TensorShape& shape) {
  return os << shape.ToString();
}

}  // namespace dflow
