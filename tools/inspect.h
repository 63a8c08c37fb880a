// `dflow inspect`: what a GraphDef file holds and whether it is valid.
//
// Prints the node count, an op histogram, the placeholders with dtype and
// shape, the requested devices, a name-scope tree summary, the ops dflow
// cannot run yet (with counts and why) and every validation error with its
// node. Exit code 0 when the graph is valid (with `strict`, also every node
// runnable), 1 when it is not (or cannot be read), 2 for a usage error.
#ifndef DFLOW_TOOLS_INSPECT_H_
#define DFLOW_TOOLS_INSPECT_H_

#include <ostream>
#include <string>
#include <vector>

namespace dflow {

struct InspectOptions {
  // Only the summary line and the validation result.
  bool brief = false;
  // Exit 1 when some node's op or attrs are ones dflow cannot run (they
  // are listed either way).
  bool strict = false;
  // Validation errors printed at most (all are counted).
  int max_errors = 100;
};

int InspectGraphFile(const std::string& path, const InspectOptions& options,
                     std::ostream& out);

// The verb: parses `args` (after "inspect") and runs it.
int RunInspect(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

}  // namespace dflow

#endif  // DFLOW_TOOLS_INSPECT_H_
