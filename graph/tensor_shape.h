// TensorShape: the shape of a tensor, possibly only partly known. Graph
// construction and shape inference work with partial shapes ("[?,784]",
// or even an unknown rank); a Tensor that holds values always has a fully
// defined one.
//
// Shapes often come from user files (GraphDefs, the command line), so the
// entry points that read them (FromProto, Parse) validate and return errors;
// the mutators are for trusted code and only assert in debug builds.

#ifndef DFLOW_GRAPH_TENSOR_SHAPE_H_
#define DFLOW_GRAPH_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/tensor_shape.pb.h"

namespace dflow {

class TensorShape {
 public:
  // The size of a dimension that is not known yet.
  static constexpr int64_t kUnknownDim = -1;

  // A scalar: rank 0, fully defined, one element.
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims)
      : dims_(dims.begin(), dims.end()) {}
  explicit TensorShape(absl::Span<const int64_t> dims)
      : dims_(dims.data(), dims.data() + dims.size()) {}

  TensorShape(const TensorShape& other) = default;
  TensorShape(TensorShape&& other) noexcept = default;
  TensorShape& operator=(const TensorShape& other) = default;
  TensorShape& operator=(TensorShape&& other) noexcept = default;

  // Nothing known, not even the rank.
  static TensorShape Unknown();
  // `rank` dimensions, all unknown.
  static TensorShape UnknownWithRank(int rank);

  // -1 when the rank is unknown.
  int rank() const {
    return unknown_rank_ ? -1 : static_cast<int>(dims_.size());
  }
  bool unknown_rank() const { return unknown_rank_; }
  // Requires a known rank and 0 <= i < rank(). kUnknownDim if unknown.
  int64_t dim(int i) const;
  // Empty when the rank is unknown.
  absl::Span<const int64_t> dims() const {
    return absl::Span<const int64_t>(dims_.begin(), dims_.size());
  }

  // Known rank and every dimension known.
  bool IsFullyDefined() const;
  // Product of the dimensions; -1 when not fully defined or when the
  // product does not fit in int64 (shapes come from user files).
  int64_t num_elements() const;

  // Becomes [0], the shape of an empty Tensor, without building one: the
  // executor empties a tensor per input slot and node run.
  void SetEmptyVector() {
    dims_.assign(1, 0);
    unknown_rank_ = false;
  }

  // Mutators for trusted code. Sizes must be >= 0 or kUnknownDim. AddDim
  // and InsertDim on a shape of unknown rank are invalid.
  void AddDim(int64_t size);
  void set_dim(int i, int64_t size);
  void RemoveDim(int i);
  void InsertDim(int i, int64_t size);

  // "[2,?,3]"; "[]" for a scalar; "<unknown>" for an unknown rank.
  std::string ToString() const;

  // Fails on dimensions below -1, naming the dimension. Also fails on an
  // unknown_rank proto that lists dimensions, which is contradictory.
  static absl::StatusOr<TensorShape> FromProto(const TensorShapeProto& proto);
  void ToProto(TensorShapeProto* proto) const;

  // Reads what ToString writes ("[2,?,3]", "[]", "<unknown>"), plus the
  // bracket-less "2,3" form used on command lines; "-1" also means unknown.
  // Whitespace around tokens is ignored. An empty string is a scalar.
  static absl::StatusOr<TensorShape> Parse(absl::string_view text);

  // True when some fully defined shape could satisfy both: unknown ranks and
  // unknown dimensions match anything.
  bool IsCompatibleWith(const TensorShape& other) const;
  // The most specific shape compatible with both, or an error showing both
  // shapes when they are incompatible.
  absl::StatusOr<TensorShape> Merge(const TensorShape& other) const;

  // Structural equality: "[?,3]" equals "[?,3]" even though the tensors it
  // describes may differ. Use IsCompatibleWith for the semantic question.
  friend bool operator==(const TensorShape& a, const TensorShape& b) {
    return a.unknown_rank_ == b.unknown_rank_ && a.dims() == b.dims();
  }
  friend bool operator!=(const TensorShape& a, const TensorShape& b) {
    return !(a == b);
  }

 private:
  // The dimensions: up to kInline in place (most shapes in real graphs have
  // rank <= 4), more on the heap. Hand-written rather than
  // absl::InlinedVector because tensors copy their shapes on every hop
  // through the executor, and copying a short shape here is a few moves
  // (InlinedVector's generic copy was 15% of a scalar op's time).
  class Dims {
   public:
    Dims() = default;
    Dims(const int64_t* begin, const int64_t* end) { assign(begin, end); }
    Dims(const Dims& other) { assign(other.begin(), other.end()); }
    Dims(Dims&& other) noexcept { *this = std::move(other); }
    Dims& operator=(const Dims& other) {
      if (this != &other) assign(other.begin(), other.end());
      return *this;
    }
    Dims& operator=(Dims&& other) noexcept {
      if (this == &other) return *this;
      if (other.heap_ != nullptr) {
        heap_ = std::move(other.heap_);
        capacity_ = other.capacity_;
        size_ = other.size_;
        other.capacity_ = kInline;
        other.size_ = 0;
      } else {
        assign(other.begin(), other.end());
      }
      return *this;
    }

    size_t size() const { return size_; }
    int64_t* begin() { return heap_ != nullptr ? heap_.get() : inline_; }
    int64_t* end() { return begin() + size_; }
    const int64_t* begin() const {
      return heap_ != nullptr ? heap_.get() : inline_;
    }
    const int64_t* end() const { return begin() + size_; }
    int64_t& operator[](size_t i) { return begin()[i]; }
    int64_t operator[](size_t i) const { return begin()[i]; }

    void assign(const int64_t* first, const int64_t* last) {
      const size_t n = static_cast<size_t>(last - first);
      Reserve(n);
      int64_t* out = begin();
      for (size_t i = 0; i < n; ++i) out[i] = first[i];
      size_ = n;
    }
    void assign(size_t n, int64_t value) {
      Reserve(n);
      int64_t* out = begin();
      for (size_t i = 0; i < n; ++i) out[i] = value;
      size_ = n;
    }
    void push_back(int64_t value) { insert(size_, value); }
    void insert(size_t i, int64_t value) {
      Reserve(size_ + 1);
      int64_t* d = begin();
      for (size_t k = size_; k > i; --k) d[k] = d[k - 1];
      d[i] = value;
      ++size_;
    }
    void erase(size_t i) {
      int64_t* d = begin();
      for (size_t k = i; k + 1 < size_; ++k) d[k] = d[k + 1];
      --size_;
    }

   private:
    static constexpr size_t kInline = 4;
    void Reserve(size_t n) {
      if (n <= capacity_) return;
      size_t capacity = capacity_ * 2;
      if (capacity < n) capacity = n;
      std::unique_ptr<int64_t[]> grown(new int64_t[capacity]);
      const int64_t* old = begin();
      for (size_t k = 0; k < size_; ++k) grown[k] = old[k];
      heap_ = std::move(grown);
      capacity_ = capacity;
    }

    int64_t inline_[kInline] = {};
    std::unique_ptr<int64_t[]> heap_;  // when more than kInline dimensions
    size_t capacity_ = kInline;
    size_t size_ = 0;
  };

  Dims dims_;
  bool unknown_rank_ = false;
};

// For GoogleTest and logging.
std::ostream& operator<<(std::ostream& os, const TensorShape& shape);

}  // namespace dflow

#endif  // DFLOW_GRAPH_TENSOR_SHAPE_H_
