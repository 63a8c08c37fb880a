// The `dflow` command line: one binary, one verb per subcommand.
#include <iostream>
#include <string>
#include <vector>

#include "tools/convert.h"
#include "tools/dot.h"
#include "tools/inspect.h"
#include "tools/place.h"
#include "tools/run.h"
#include "tools/worker.h"

namespace {

constexpr char kUsage[] =
    "dflow: a dataflow graph compiler and executor\n"
    "\n"
    "Usage: dflow VERB [flags]    (dflow VERB --help for the flags)\n"
    "\n"
    "Verbs:\n"
    "  inspect   summarize and validate a GraphDef (.pb or .pbtxt)\n"
    "  convert   rewrite a GraphDef as binary or text\n"
    "  run       run a graph once: feeds from .npy files, fetches printed\n"
    "            and saved as .npy\n"
    "  place     show where each node would go on a (simulated) device set,\n"
    "            and why (e.g. --devices CPU:1,GPU:4 --soft_placement)\n"
    "  dot       draw the graph with Graphviz (.svg or .dot): name scopes as\n"
    "            clusters, nodes colored by device (--placed: as placed)\n"
    "  worker    serve one task of a cluster (--cluster, --job, --task), so\n"
    "            other processes place graphs over its devices\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
      args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string verb = args[0];
  args.erase(args.begin());
  if (verb == "inspect") return dflow::RunInspect(args, std::cout, std::cerr);
  if (verb == "convert") return dflow::RunConvert(args, std::cout, std::cerr);
  if (verb == "run") return dflow::RunRun(args, std::cout, std::cerr);
  if (verb == "place") return dflow::RunPlace(args, std::cout, std::cerr);
  if (verb == "dot") return dflow::RunDot(args, std::cout, std::cerr);
  if (verb == "worker") return dflow::RunWorker(args, std::cout, std::cerr);
  std::cerr << "dflow: unknown verb '" << verb << "'\n\n" << kUsage;
  return 2;
}
