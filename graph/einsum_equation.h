// An Einsum equation ("ij,jk->ik", "...ij,...jk->...ik", "ii->i", "ij->")
// resolved against its inputs' ranks: every input dimension and output
// dimension gets a label number. Letters are labels 0-51; the dimensions an
// ellipsis stands for are labels kFirstEllipsisLabel + j, aligned from the
// right across inputs as NumPy broadcasting aligns them (an input whose
// ellipsis covers fewer dimensions lacks the leading ones). Without "->"
// the output is the ellipsis dimensions, then every letter used exactly
// once, in alphabetical order (NumPy's and TensorFlow's implicit mode). A
// label the output repeats puts values on that diagonal, zeros elsewhere
// ("i->ii": TensorFlow's gradient of a diagonal).
// The Einsum op's shape function and its CPU kernel both use it.
#ifndef DFLOW_GRAPH_EINSUM_EQUATION_H_
#define DFLOW_GRAPH_EINSUM_EQUATION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dflow {

inline constexpr int kFirstEllipsisLabel = 52;

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // a label per input dimension
  std::vector<int> output;               // a label per output dimension
};

// Parses `equation` for inputs of `ranks` (-1: unknown, then the input must
// have no ellipsis for the result to be known: an error otherwise, which
// a shape function treats as "unknown"). Errors name what is wrong: a
// character that is no letter, a second ellipsis, a rank that does not
// match the subscripts, an output label no input has, the number of
// inputs.
absl::StatusOr<EinsumEquation> ParseEinsumEquation(
    absl::string_view equation, const std::vector<int>& ranks);

// True when the equation has an ellipsis anywhere.
bool EinsumHasEllipsis(absl::string_view equation);

}  // namespace dflow

#endif  // DFLOW_GRAPH_EINSUM_EQUATION_H_
