#include "runtime/run_metadata_proto.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dflow {

RunMetadataProto RunMetadataToProto(const RunMetadata& metadata,
                                    int64_t step_start_micros) {
  RunMetadataProto proto;
  StepStats* step = proto.mutable_step_stats();
  absl::flat_hash_map<std::string, DeviceStepStats*> by_device;
  for (const NodeExecStats& node : metadata.step_stats) {
    DeviceStepStats*& device = by_device[node.device];
    if (device == nullptr) {
      device = step->add_dev_stats();
      device->set_device(node.device);
    }
    NodeExecStatsProto* stats = device->add_node_stats();
    stats->set_node_name(node.node);
    const int64_t start = step_start_micros + node.start_us;
    const int64_t duration = node.end_us - node.start_us;
    stats->set_all_start_micros(start);
    stats->set_scheduled_micros(start);
    stats->set_op_start_rel_micros(0);
    stats->set_op_end_rel_micros(duration);
    stats->set_all_end_rel_micros(duration);
    stats->set_thread_id(static_cast<uint32_t>(node.thread_id));
    // TensorFlow's label: "name = Op(inputs)", control inputs left out.
    std::vector<std::string> data_inputs;
    for (const std::string& input : node.inputs) {
      if (input.empty() || input[0] != '^') data_inputs.push_back(input);
    }
    stats->set_timeline_label(absl::StrCat(
        node.node, " = ", node.op, "(", absl::StrJoin(data_inputs, ", "), ")"));
    for (size_t slot = 0; slot < node.output_shapes.size(); ++slot) {
      NodeOutput* output = stats->add_output();
      output->set_slot(static_cast<int>(slot));
      TensorShapeProto* shape =
          output->mutable_tensor_description()->mutable_shape();
      for (int64_t d : node.output_shapes[slot].dims()) {
        shape->add_dim()->set_size(d);
      }
    }
  }
  return proto;
}

}  // namespace dflow
