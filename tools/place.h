// `dflow place`: where a graph's nodes would go on a given device set.
//
// Loads a GraphDef (.pb or .pbtxt), imports it and runs the placer against
// a simulated device set ("CPU:1,GPU:4"; default CPU:1, the devices dflow
// has today: there is no GPU backend yet). Prints one line per node in
// TensorFlow's log_device_placement format, then a summary with every
// soft-placement fallback and its reason; --json also writes the placement
// record. Exit code 0 on success, 1 when the graph does not load or cannot
// be placed (the error on `err`, prefixed "error: "), 2 for a usage error.
//
// The placer asks the kernel registry which device types can run each op:
// the caller links the kernel definitions (//kernels/cpu:cpu_kernels, which
// brings in the GPU kernel definitions too).
#ifndef DFLOW_TOOLS_PLACE_H_
#define DFLOW_TOOLS_PLACE_H_

#include <ostream>
#include <string>
#include <vector>

namespace dflow {

// The verb: parses `args` (after "place") and runs it.
int RunPlace(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err);

}  // namespace dflow

#endif  // DFLOW_TOOLS_PLACE_H_
