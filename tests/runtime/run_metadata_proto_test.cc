// RunMetadataToProto: dflow's step stats in TensorFlow's StepStats fields
// (per device, absolute start, relative end, TensorFlow's timeline label,
// output shapes), which TensorBoard and TensorFlow's tools read.
#include "runtime/run_metadata_proto.h"

#include "gtest/gtest.h"

namespace dflow {
namespace {

NodeExecStats Stats(std::string node, std::string op, std::string device,
                    int64_t start, int64_t end) {
  NodeExecStats s;
  s.node = std::move(node);
  s.op = std::move(op);
  s.device = std::move(device);
  s.start_us = start;
  s.end_us = end;
  return s;
}

TEST(RunMetadataProtoTest, GroupsNodesByDeviceWithTensorFlowsTimes) {
  RunMetadata metadata;
  metadata.step_stats.push_back(Stats("a", "Const", "/cpu:0", 0, 2));
  metadata.step_stats.push_back(Stats("m", "MatMul", "/gpu:0", 5, 45));
  metadata.step_stats.back().inputs = {"a", "b:1", "^init"};
  metadata.step_stats.back().output_shapes = {TensorShape({2, 3})};
  metadata.step_stats.back().thread_id = 7;
  metadata.step_stats.push_back(Stats("s", "Sum", "/cpu:0", 50, 51));

  const RunMetadataProto proto = RunMetadataToProto(metadata, 1000000);
  ASSERT_EQ(proto.step_stats().dev_stats_size(), 2);
  const DeviceStepStats& cpu = proto.step_stats().dev_stats(0);
  const DeviceStepStats& gpu = proto.step_stats().dev_stats(1);
  EXPECT_EQ(cpu.device(), "/cpu:0");
  ASSERT_EQ(cpu.node_stats_size(), 2);
  EXPECT_EQ(cpu.node_stats(1).node_name(), "s");
  EXPECT_EQ(gpu.device(), "/gpu:0");
  ASSERT_EQ(gpu.node_stats_size(), 1);
  const NodeExecStatsProto& m = gpu.node_stats(0);
  EXPECT_EQ(m.all_start_micros(), 1000005);
  EXPECT_EQ(m.op_start_rel_micros(), 0);
  EXPECT_EQ(m.op_end_rel_micros(), 40);
  EXPECT_EQ(m.all_end_rel_micros(), 40);
  EXPECT_EQ(m.thread_id(), 7u);
  EXPECT_EQ(m.timeline_label(), "m = MatMul(a, b:1)");
  ASSERT_EQ(m.output_size(), 1);
  EXPECT_EQ(m.output(0).slot(), 0);
  const TensorShapeProto& shape = m.output(0).tensor_description().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).size(), 2);
  EXPECT_EQ(shape.dim(1).size(), 3);
}

TEST(RunMetadataProtoTest, AnUntracedStepHasNoDevices) {
  EXPECT_EQ(RunMetadataToProto(RunMetadata(), 0).step_stats().dev_stats_size(),
            0);
}

}  // namespace
}  // namespace dflow
