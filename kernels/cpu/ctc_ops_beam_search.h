// The CTC prefix beam search of CTCBeamSearchDecoder (ctc_ops_decoder.cc):
// a tree of label prefixes, each with the log probability of ending in a
// blank and in its last label, of which the beam_width best survive each
// time step (GravesTh ch. 7.5; TensorFlow 2.21's ctc_beam_search.h, whose
// algorithm this repeats exactly: which prefixes enter and leave the beam,
// in which order, and with which arithmetic, so that ties and near-ties
// resolve as in TensorFlow and the decoded paths are TensorFlow's).
#ifndef DFLOW_KERNELS_CPU_CTC_OPS_BEAM_SEARCH_H_
#define DFLOW_KERNELS_CPU_CTC_OPS_BEAM_SEARCH_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "kernels/cpu/ctc_ops_common.h"

namespace dflow {
namespace ctc {

template <typename T>
struct BeamProbability {
  T total = LogZero<T>();
  T blank = LogZero<T>();
  T label = LogZero<T>();
  void Reset() { total = blank = label = LogZero<T>(); }
};

// One prefix: its last label, its parent prefix and the probabilities at
// the previous (oldp) and the current (newp) step.
template <typename T>
struct BeamEntry {
  BeamEntry* parent = nullptr;
  int label = -1;
  absl::flat_hash_map<int, BeamEntry*> children;
  BeamProbability<T> oldp, newp;
  bool Active() const { return newp.total != LogZero<T>(); }
};

// "a ranks above b": a greater current probability.
template <typename T>
struct BeamGreater {
  bool operator()(const BeamEntry<T>* a, const BeamEntry<T>* b) const {
    return a->newp.total > b->newp.total;
  }
};

// The best `limit` entries pushed so far. It keeps them the way
// TensorFlow's gtl::TopN does (unordered until the limit is passed, then a
// heap with the lowest on top; the lowest found on demand), because which
// of two equal entries survives and the order they come out in depend on
// it.
template <typename T>
class TopBeams {
 public:
  explicit TopBeams(size_t limit) : limit_(limit) {}
  size_t size() const { return elements_.size(); }
  const std::vector<BeamEntry<T>*>& unsorted() const { return elements_; }

  void Push(BeamEntry<T>* v) {
    if (limit_ == 0) return;
    if (state_ != kHeap) {
      elements_.push_back(v);
      if (elements_.size() == limit_ + 1) {
        std::make_heap(elements_.begin(), elements_.end(), cmp_);
        std::pop_heap(elements_.begin(), elements_.end(), cmp_);
        elements_.pop_back();
        state_ = kHeap;
      } else if (state_ == kBottomKnown &&
                 !cmp_(elements_.back(), elements_.front())) {
        // Keep the lowest at the front.
        std::swap(elements_.front(), elements_.back());
      }
    } else if (cmp_(v, elements_.front())) {
      std::pop_heap(elements_.begin(), elements_.end(), cmp_);
      elements_.back() = v;
      std::push_heap(elements_.begin(), elements_.end(), cmp_);
    }
  }

  // The lowest entry (the container must not be empty).
  BeamEntry<T>* Bottom() {
    if (state_ == kUnordered) {
      size_t lowest = 0;
      for (size_t i = 1; i < elements_.size(); ++i) {
        if (cmp_(elements_[lowest], elements_[i])) lowest = i;
      }
      if (lowest != 0) std::swap(elements_[0], elements_[lowest]);
      state_ = kBottomKnown;
    }
    return elements_.front();
  }

  // All entries, best first; leaves the container empty.
  std::vector<BeamEntry<T>*> Extract() {
    std::vector<BeamEntry<T>*> out;
    out.swap(elements_);
    if (state_ != kHeap) {
      std::sort(out.begin(), out.end(), cmp_);
    } else {
      std::sort_heap(out.begin(), out.end(), cmp_);
    }
    state_ = kUnordered;
    return out;
  }

  void Reset() {
    elements_.clear();
    state_ = kUnordered;
  }

 private:
  enum State { kUnordered, kBottomKnown, kHeap };
  std::vector<BeamEntry<T>*> elements_;
  size_t limit_;
  BeamGreater<T> cmp_;
  State state_ = kUnordered;
};

// Beam search over one batch entry's steps: Reset, Step per time step,
// then TopPaths.
template <typename T>
class BeamSearch {
 public:
  BeamSearch(int num_classes, int beam_width)
      : num_classes_(num_classes),
        blank_(num_classes - 1),
        beam_width_(beam_width),
        leaves_(beam_width) {
    Reset();
  }

  void Reset() {
    leaves_.Reset();
    entries_.clear();
    BeamEntry<T>* root = NewEntry(nullptr, -1);
    root->newp.total = T(0);  // log(1)
    root->newp.blank = T(0);
    leaves_.Push(root);
  }

  size_t num_leaves() const { return leaves_.size(); }

  // One time step of `logits` (num_classes values).
  void Step(const T* logits) {
    T max_coeff = logits[0];
    for (int j = 1; j < num_classes_; ++j) {
      max_coeff = std::max(max_coeff, logits[j]);
    }
    T sum = T(0);
    for (int j = 0; j < num_classes_; ++j) sum += std::exp(logits[j] - max_coeff);
    // log softmax(x)_j = x_j - norm.
    const T norm = max_coeff + std::log(sum);

    std::vector<BeamEntry<T>*> branches = leaves_.Extract();
    leaves_.Reset();
    for (BeamEntry<T>* b : branches) b->oldp = b->newp;
    // Extend each surviving prefix by a blank or by its own last label.
    for (BeamEntry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->Active()) {
          // A repeated label needs a blank between: only the parent's
          // paths ending in a blank continue into it.
          const T previous = b->label == b->parent->label
                                 ? b->parent->oldp.blank
                                 : b->parent->oldp.total;
          b->newp.label = LogSumExp(b->newp.label, previous);
        }
        b->newp.label += logits[b->label] - norm;
      }
      b->newp.blank = b->oldp.total + logits[blank_] - norm;
      b->newp.total = LogSumExp(b->newp.blank, b->newp.label);
      leaves_.Push(b);
    }
    // Grow new prefixes, best parents first.
    auto is_candidate = [this](const BeamProbability<T>& p) {
      return p.total > LogZero<T>() &&
             (leaves_.size() < static_cast<size_t>(beam_width_) ||
              p.total > leaves_.Bottom()->newp.total);
    };
    for (BeamEntry<T>* b : branches) {
      if (!is_candidate(b->oldp)) continue;
      for (int label = 0; label < num_classes_ - 1; ++label) {
        BeamEntry<T>* c = Child(b, label);
        if (c->Active()) continue;  // already in the beam this step
        c->newp.blank = LogZero<T>();
        const T previous = c->label == b->label ? b->oldp.blank : b->oldp.total;
        c->newp.label = logits[label] - norm + previous;
        c->newp.total = c->newp.label;
        if (is_candidate(c->newp)) {
          if (leaves_.size() == static_cast<size_t>(beam_width_)) {
            // The lowest leaves the beam: mark it inactive.
            leaves_.Bottom()->newp.Reset();
          }
          leaves_.Push(c);
        } else {
          c->oldp.Reset();
          c->newp.Reset();
        }
      }
    }
  }

  // The n best prefixes (n <= number of leaves) as label sequences, and
  // their log probabilities.
  void TopPaths(int n, bool merge_repeated, std::vector<std::vector<int>>* paths,
                std::vector<T>* log_probs) const {
    TopBeams<T> top(n);
    for (BeamEntry<T>* e : leaves_.unsorted()) top.Push(e);
    std::vector<BeamEntry<T>*> best = top.Extract();
    paths->clear();
    log_probs->clear();
    for (int i = 0; i < n && i < static_cast<int>(best.size()); ++i) {
      paths->push_back(Labels(best[i], merge_repeated));
      log_probs->push_back(best[i]->newp.total);
    }
  }

 private:
  BeamEntry<T>* NewEntry(BeamEntry<T>* parent, int label) {
    entries_.push_back(std::make_unique<BeamEntry<T>>());
    BeamEntry<T>* e = entries_.back().get();
    e->parent = parent;
    e->label = label;
    return e;
  }

  BeamEntry<T>* Child(BeamEntry<T>* b, int label) {
    auto [it, inserted] = b->children.emplace(label, nullptr);
    if (inserted) it->second = NewEntry(b, label);
    return it->second;
  }

  static std::vector<int> Labels(const BeamEntry<T>* e, bool merge_repeated) {
    std::vector<int> labels;
    int prev = -1;
    for (; e->parent != nullptr; e = e->parent) {
      if (!merge_repeated || e->label != prev) labels.push_back(e->label);
      prev = e->label;
    }
    std::reverse(labels.begin(), labels.end());
    return labels;
  }

  int num_classes_;
  int blank_;
  int beam_width_;
  TopBeams<T> leaves_;
  std::vector<std::unique_ptr<BeamEntry<T>>> entries_;
};

}  // namespace ctc
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CTC_OPS_BEAM_SEARCH_H_
