#include "graph/einsum_equation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dflow {
namespace {

int LetterLabel(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// One side's subscripts: letters and at most one "...".
struct Subscripts {
  std::vector<int> before;  // letter labels before the ellipsis (all if none)
  std::vector<int> after;   // letter labels after it
  bool ellipsis = false;
};

absl::StatusOr<Subscripts> ParseSubscripts(absl::string_view text,
                                           absl::string_view equation) {
  Subscripts out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ') continue;
    if (absl::StartsWith(text.substr(i), "...")) {
      if (out.ellipsis) {
        return absl::InvalidArgumentError(
            absl::StrCat("Einsum equation '", equation, "': '", text,
                         "' has two ellipses; each operand may have one"));
      }
      out.ellipsis = true;
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    if (label < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum equation '", equation, "': subscript '", text.substr(i, 1),
          "' is not a letter; subscripts are a-z, A-Z and '...'"));
    }
    (out.ellipsis ? out.after : out.before).push_back(label);
  }
  return out;
}

}  // namespace

bool EinsumHasEllipsis(absl::string_view equation) {
  return absl::StrContains(equation, "...");
}

absl::StatusOr<EinsumEquation> ParseEinsumEquation(
    absl::string_view equation, const std::vector<int>& ranks) {
  std::vector<absl::string_view> sides = absl::StrSplit(equation, "->");
  if (sides.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Einsum equation '", equation, "' has more than one '->'"));
  }
  std::vector<absl::string_view> operands = absl::StrSplit(sides[0], ',');
  if (operands.size() != ranks.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum equation '", equation, "' has ", operands.size(),
                     " operands but the op has ", ranks.size(), " inputs"));
  }
  std::vector<Subscripts> parsed;
  int ellipsis_rank = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    absl::StatusOr<Subscripts> s = ParseSubscripts(operands[i], equation);
    if (!s.ok()) return s.status();
    const int letters = static_cast<int>(s->before.size() + s->after.size());
    if (ranks[i] >= 0) {
      if (s->ellipsis ? ranks[i] < letters : ranks[i] != letters) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Einsum equation '", equation, "': input ", i, " has rank ",
            ranks[i], " but its subscripts '", operands[i], "' name ", letters,
            s->ellipsis ? " or more" : "", " dimensions"));
      }
      if (s->ellipsis)
        ellipsis_rank = std::max(ellipsis_rank, ranks[i] - letters);
    } else if (s->ellipsis) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum equation '", equation, "': input ", i,
          " has an unknown rank, so its ellipsis covers unknown dimensions"));
    }
    parsed.push_back(*std::move(s));
  }
  EinsumEquation out;
  std::vector<int> uses(kFirstEllipsisLabel, 0);
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Subscripts& s = parsed[i];
    std::vector<int>& labels = out.inputs.emplace_back(s.before);
    if (s.ellipsis) {
      const int covered =
          ranks[i] - static_cast<int>(s.before.size() + s.after.size());
      for (int j = 0; j < covered; ++j) {
        labels.push_back(kFirstEllipsisLabel + ellipsis_rank - covered + j);
      }
    }
    labels.insert(labels.end(), s.after.begin(), s.after.end());
    for (int label : s.before) ++uses[label];
    for (int label : s.after) ++uses[label];
  }
  if (sides.size() == 2) {
    absl::StatusOr<Subscripts> s = ParseSubscripts(sides[1], equation);
    if (!s.ok()) return s.status();
    out.output = s->before;
    if (s->ellipsis) {
      for (int j = 0; j < ellipsis_rank; ++j) {
        out.output.push_back(kFirstEllipsisLabel + j);
      }
    }
    out.output.insert(out.output.end(), s->after.begin(), s->after.end());
    for (int label : out.output) {
      if (label < kFirstEllipsisLabel && uses[label] == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Einsum equation '", equation, "': output subscript '",
            std::string(1, label < 26 ? 'a' + label : 'A' + label - 26),
            "' is in no input"));
      }
    }
  } else {
    for (int j = 0; j < ellipsis_rank; ++j) {
      out.output.push_back(kFirstEllipsisLabel + j);
    }
    // Letters in alphabetical order: a-z sort before A-Z in NumPy's order
    // of characters only for lower case; uppercase letters come first.
    for (int label = 26; label < kFirstEllipsisLabel; ++label) {
      if (uses[label] == 1) out.output.push_back(label);
    }
    for (int label = 0; label < 26; ++label) {
      if (uses[label] == 1) out.output.push_back(label);
    }
  }
  return out;
}

}  // namespace dflow
