// Partitioning: splits a placed graph into one graph per device.
//
// After placement every node has an assigned device. The runtime runs one
// executor per device, so the graph is cut along device boundaries and every
// edge that crosses one becomes a transfer made of graph nodes (so the
// executor, the step stats and the timeline see transfers like any op):
//
//   data edge  src:k (device A) -> dst (device B)
//     A: _Send(src:k)               tensor_name "src:k", A -> B
//     B: _Recv() -> dst             the same key; dst reads the _Recv
//   One pair per (source tensor, destination device): every consumer of
//   src:k on B reads the one _Recv.
//
//   control edge  src (A) -> ^dst (B)
//     A: Const "ctrl_dummy/src" (^src), then _Send of it to B
//     B: _Recv, then ^_Recv -> dst
//   One dummy per source node, one pair per (source node, destination
//   device). A control edge is dropped when dst already reads a data output
//   of src (the data transfer orders them already).
//
// Reference outputs (variables) read as values on another device are sent
// as values of the base type (TensorFlow does the same). A reference
// consumed *as a reference* on another device (Assign on B of a variable on
// A) cannot cross: the placer colocates such pairs, so it is an error that
// names both nodes.
//
// Names of the added nodes are derived from the source's name and the
// destination device ("_send_<src>_<k>_to_CPU_1", "_recv_..._to_CPU_1"),
// made unique against every node of the graph, so the output is the same
// for the same graph, byte for byte (under protobuf's deterministic
// serialization, which orders attrs), and partitions can be merged again
// (timelines, debugging) without clashes.
//
// Host and device memory (PartitionOptions::kernels given): on a device
// with memory of its own (every type but "CPU", see partition_memory.h), a
// data edge between two of its nodes whose producer keeps the value in host
// memory and whose consumer wants it in device memory (or the other way
// round) gets a copy node on that device:
//
//   Shape (output on host) -> Cast (x on device), both on GPU:0
//     GPU:0: Shape -> _HostToDevice -> Cast
//
// One copy per (tensor, direction), shared by every consumer that needs it
// (as one _Recv is). Copies are named "_host_to_device_<src>_<k>" and
// "_device_to_host_<src>_<k>" (made unique like the transfers) and carry
// `_src` (the tensor copied, "Shape:0") and `_dst` (the inputs that read
// the copy, "Cast:0") for messages and timelines.
//
// _Send and _Recv move values in the memory their kernel definitions
// declare: device memory on a GPU. A cross-device edge gets no copy here
// even when an end keeps its value in host memory: the GPU transfer
// implementation stages such values itself (a GPU-to-CPU _Send copies to
// host memory before it hands the value over), which avoids a copy to the
// device and straight back. One exception: a _Recv on a device with memory
// of its own whose readers want the value both in host and in device
// memory delivers device memory, and its host-memory readers share one
// _DeviceToHost of it. The control-edge dummy is a Const, which the
// GPU kernels keep in device memory; nothing reads its value.
//
// Loops across devices: a transfer inside a loop runs once per iteration,
// so its key gets the frame instance and iteration at run time (the
// kernels add them, runtime/rendezvous.h's FrameRendezvousKey), and the
// receiving side needs the loop's iterations too. A device that receives
// inside frame F gets a control loop for F (and for F's enclosing frames):
//
//   Const [0] (root) or the enclosing control loop's Merge
//     -> Enter(frame F) -> Merge <- NextIteration <- Switch:1
//                            `-> Switch(pred: F's LoopCond, or its _Recv)
//
// Its Enter also waits (a control edge) for what one of F's loop variable
// Enters reads, so it is dead when the real loop's Enters are: in the last
// iteration of an enclosing loop, or in a conditional branch not taken,
// neither loop starts. Then
// it iterates as F's real loop does: F's LoopCond decides every iteration,
// sent from the device that holds it. The Merge fires once per iteration
// (in the last one too, when the predicate is false), and every _Recv of
// that device inside F waits for it, so each runs in F, once per
// iteration, like the _Send it meets; a _Send of a dead value sends the
// deadness. This is TensorFlow's construction (its "frame leader"
// broadcasting the predicate). Nodes are named
// "control_loop/<frame>/<device tag>/{start,enter,merge,switch,
// next_iteration}".
#ifndef DFLOW_COMPILER_PARTITION_H_
#define DFLOW_COMPILER_PARTITION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/kernel_query.h"
#include "graph/graph.h"
#include "graph/tensor_shape.h"
#include "proto/graph.pb.h"

namespace dflow {

inline constexpr char kSendOp[] = "_Send";
inline constexpr char kRecvOp[] = "_Recv";
// Set (true) on every _Recv of a graph that has a Switch: only then may a
// transfer carry a dead tensor, and only then must the receiving executor
// track deadness (runtime/executor.h) -- other graphs pay nothing for it.
inline constexpr char kRecvMayBeDeadAttr[] = "_may_be_dead";
// Copies between host and device memory on one device (see the top).
inline constexpr char kHostToDeviceOp[] = "_HostToDevice";
inline constexpr char kDeviceToHostOp[] = "_DeviceToHost";

struct PartitionOptions {
  // Added in front of every rendezvous key (e.g. a session-unique prefix so
  // two sessions sharing a rendezvous never meet); the runtime appends the
  // step. Stored in the `key_prefix` attr of every _Send and _Recv.
  std::string key_prefix;
  // The kernels' memory types. Null: no host<->device copies are inserted
  // (every edge inside a device is left as it is). Not owned; must outlive
  // the PartitionGraph call.
  const KernelQuery* kernels = nullptr;
  // Optional, by node id of the partitioned graph: its output shapes under
  // the compile call's feed shapes (ShapesUnderFeedHints). A _Recv whose
  // static shape is partial ([?,784] split across towers) but whose hinted
  // one is complete gets it as `_feed_shape`, the hint memory planning
  // sizes its figures with. Not owned.
  const std::vector<std::vector<TensorShape>>* hinted_shapes = nullptr;
};

// One device's partition as a Graph, what the session's executors run: its
// nodes are copies of the placed graph's (with their inferred shapes and
// assigned device), built without a GraphDef in between.
struct DevicePartition {
  // Full device name, as in Node::assigned_device().
  std::string device;
  // The device's nodes plus its _Send/_Recv nodes, control dummies and
  // host<->device copies; every node's requested and assigned device is
  // `device`. Carries the graph's versions and function library.
  std::unique_ptr<Graph> graph;
};

// The same partition written as a GraphDef (nodes in the order the Graph
// holds them: the device's own nodes in id order, then the nodes
// partitioning added), for tests, tools and dumps.
struct GraphPartition {
  // Full device name, as in Node::assigned_device().
  std::string device;
  // The device's nodes plus its _Send/_Recv nodes, control dummies and
  // host<->device copies; every node's `device` field is `device`. Carries
  // the graph's versions and function library.
  GraphDef graph;
};

struct PartitionStats {
  // _Send and _Recv nodes added (data and control transfers together).
  int sends = 0;
  int recvs = 0;
  // The transfers among those that carry a control edge.
  int control_transfers = 0;
  // Control loops added for loops cut across devices (one per frame and
  // device that receives inside the frame).
  int control_loops = 0;
  // Copy nodes added between host and device memory on one device.
  int host_to_device = 0;
  int device_to_host = 0;
};

// The key a _Send and its _Recv meet under in the rendezvous, before the
// runtime adds the step:
//   key_prefix + send_device + ";" + recv_device + ";" + tensor_name
// The kernels build it from their node's attrs (`key_prefix`, `send_device`,
// `recv_device`, `tensor_name`), so the pass and the runtime always agree.
std::string RendezvousKey(absl::string_view send_device,
                          absl::string_view recv_device,
                          absl::string_view tensor_name,
                          absl::string_view key_prefix = "");

// Checks the _Send and _Recv nodes a graph holds before partitioning (a
// GraphDef may carry them, e.g. one TensorFlow partitioned): every _Recv
// needs exactly one _Send under its rendezvous key in the same graph, and a
// key may be sent and received once. A _Recv whose _Send is missing (or
// pruned from the run) would wait for the rest of the step; this makes it
// InvalidArgument naming the node, its device and its key instead.
absl::Status CheckTransfersMatch(const Graph& graph);

// Splits placed `graph` (every node has an assigned device) into one
// partition per device that holds nodes, ordered by device (job, replica,
// task, type, id). A single-device graph gives one partition without
// transfers (but with its host<->device copies, given `options.kernels`).
// Errors name the node: unplaced node, unconnected input, a
// reference input fed from another device. `stats`, when given, is
// overwritten with the counts.
absl::StatusOr<std::vector<DevicePartition>> PartitionIntoGraphs(
    const Graph& graph, const PartitionOptions& options,
    PartitionStats* stats = nullptr);
// PartitionIntoGraphs, each partition written as a GraphDef.
absl::StatusOr<std::vector<GraphPartition>> PartitionGraph(
    const Graph& graph, const PartitionOptions& options,
    PartitionStats* stats = nullptr);

}  // namespace dflow

#endif  // DFLOW_COMPILER_PARTITION_H_
