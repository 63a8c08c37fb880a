// Short, human-readable descriptions of a tensor's values for the command
// line (`dflow run`): its type and shape, its first values, and for
// floating-point tensors the min, max and mean. Deterministic text: the same
// tensor always prints the same way.
#ifndef DFLOW_TOOLS_TENSOR_SUMMARY_H_
#define DFLOW_TOOLS_TENSOR_SUMMARY_H_

#include <ostream>
#include <string>
#include <vector>

#include "graph/tensor.h"

namespace dflow {

// "float [3,10]".
std::string DescribeTensorType(const Tensor& tensor);

// The first `max_values` values in row-major order, then how many there are
// in all when some are not shown: "0.167399 0.0585212 ... (30 values)".
// Floats print with 6 significant digits; "(no values)" when empty.
std::string PreviewTensorValues(const Tensor& tensor, int max_values = 6);

// "min -1.5  max 2.25  mean 0.375" for half, bfloat16, float and double
// tensors with elements; NaNs are left out of all three and counted
// ("  nan 2"). Empty for other types and for empty tensors.
std::string FloatTensorStats(const Tensor& tensor);

// How `dflow run` prints a fetched tensor: "fetch NAME: TYPE", its values
// and, for floats, its stats, each line starting with `indent`.
void PrintFetch(const std::string& name, const Tensor& tensor,
                const std::string& indent, std::ostream& out);

// "steps: N, first F ms, warm median M ms (steps 2..N)" for the step times
// of a run of more than one step (the warm steps are all but the first).
std::string StepTimesLine(const std::vector<double>& step_ms);

}  // namespace dflow

#endif  // DFLOW_TOOLS_TENSOR_SUMMARY_H_
