// Gradients of the nn ops (graph/ops/): filled in by the gradient work.
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {}  // namespace
}  // namespace dflow
