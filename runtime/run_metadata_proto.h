// A step's RunMetadata (runtime/session.h) in TensorFlow's encoding
// (proto/step_stats.proto): per device, every node's start, end, thread and
// output shapes, as TensorFlow's step stats hold them. TensorBoard reads it
// from an event file (EventFileWriter::AddRunMetadata: its graph page then
// colors nodes by compute time), and TensorFlow's own timeline and
// profiler tools parse the same bytes as a tensorflow.RunMetadata.
//
//   RunOptions options;
//   options.collect_step_stats = true;
//   RunMetadata metadata;
//   const int64_t start = absl::ToUnixMicros(absl::Now());
//   session->Run(options, feeds, fetches, targets, &out, &metadata);
//   writer->AddRunMetadata("step100", RunMetadataToProto(metadata, start),
//                          100);
#ifndef DFLOW_RUNTIME_RUN_METADATA_PROTO_H_
#define DFLOW_RUNTIME_RUN_METADATA_PROTO_H_

#include <cstdint>

#include "proto/step_stats.pb.h"
#include "runtime/session.h"

namespace dflow {

// `step_start_micros` (microseconds since the epoch) is when the step
// began: dflow's stats are relative to it, TensorFlow's all_start_micros
// absolute. Devices appear in the order their first node does.
RunMetadataProto RunMetadataToProto(const RunMetadata& metadata,
                                    int64_t step_start_micros);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_RUN_METADATA_PROTO_H_
