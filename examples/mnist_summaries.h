// Seed 001's TensorBoard summaries, added to a built training graph: the
// loss as a scalar, and a histogram of every variable and of the gradient
// each ApplyGradientDescent applies to it (tags "<variable>" and
// "<variable>/gradients"), merged into one MergeSummary on /cpu:0 whose
// output a step fetches every few steps for an event file
// (formats/event_file_writer.h), as the seed's merge_all + FileWriter do.
#ifndef DFLOW_EXAMPLES_MNIST_SUMMARIES_H_
#define DFLOW_EXAMPLES_MNIST_SUMMARIES_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"

namespace dflow {
namespace mnist {

// Adds the summaries to `graph`; returns the merged summary's tensor name.
absl::StatusOr<std::string> AddSeedSummaries(const std::string& loss,
                                             GraphDef* graph);

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_SUMMARIES_H_
