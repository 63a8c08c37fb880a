#include "distributed/step_stats_wire.h"

#include "absl/strings/str_cat.h"

namespace dflow {

void NodeStatsToProto(const NodeExecStats& stats, NodeStats* proto) {
  proto->set_node(stats.node);
  proto->set_op(stats.op);
  proto->set_device(stats.device);
  proto->set_frame(stats.frame);
  proto->set_iteration(stats.iteration);
  proto->set_start_us(stats.start_us);
  proto->set_end_us(stats.end_us);
  proto->set_thread_id(stats.thread_id);
  for (const TensorShape& shape : stats.output_shapes) {
    shape.ToProto(proto->add_output_shapes());
  }
  proto->set_output_bytes(stats.output_bytes);
  for (const std::string& input : stats.inputs) proto->add_inputs(input);
  for (const auto& [key, value] : stats.details) {
    NodeStats::Detail* detail = proto->add_details();
    detail->set_key(key);
    detail->set_value(value);
  }
  for (const NodeExecStats::Phase& phase : stats.phases) {
    NodeStats::Phase* p = proto->add_phases();
    p->set_name(phase.name);
    p->set_start_us(phase.start_us);
    p->set_end_us(phase.end_us);
  }
}

absl::StatusOr<NodeExecStats> NodeStatsFromProto(const NodeStats& proto,
                                                 int64_t shift_us) {
  NodeExecStats stats;
  stats.node = proto.node();
  stats.op = proto.op();
  stats.device = proto.device();
  stats.frame = proto.frame();
  stats.iteration = proto.iteration();
  stats.start_us = proto.start_us() + shift_us;
  stats.end_us = proto.end_us() + shift_us;
  stats.thread_id = proto.thread_id();
  for (const TensorShapeProto& shape_proto : proto.output_shapes()) {
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(shape_proto);
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("step stats of node '", proto.node(), "' on ",
                       proto.device(), ": ", shape.status().message()));
    }
    stats.output_shapes.push_back(*shape);
  }
  stats.output_bytes = proto.output_bytes();
  stats.inputs.assign(proto.inputs().begin(), proto.inputs().end());
  for (const NodeStats::Detail& detail : proto.details()) {
    stats.details.emplace_back(detail.key(), detail.value());
  }
  for (const NodeStats::Phase& phase : proto.phases()) {
    stats.phases.push_back(
        {phase.name(), phase.start_us() + shift_us, phase.end_us() + shift_us});
  }
  return stats;
}

}  // namespace dflow
