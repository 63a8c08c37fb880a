// A serial loop: a frame the loop step (runtime/executor_frame_step.h) may
// run as one straight-line program per iteration instead of through its
// iteration tables, pending counts and ready lists. Internal to the
// executor.
//
// Why: a scalar `while i < n: i += 1` spends most of its time in the frame
// step's generic machinery (activating edges, counting pending inputs,
// queueing ready nodes, making and freeing iterations), not in its kernels.
// When a frame is a plain loop of cheap nodes, that machinery decides
// nothing: every iteration runs the same nodes in the same order, one after
// the other. The program runs them so, under the step's lock (where the
// loop plumbing runs anyway), iteration after iteration, until the loop
// condition is false.
//
// A frame qualifies (BuildSerialLoops) when it is TensorFlow's plain loop:
//   - no loop nested in it, every node of it is computed by the frame step
//     itself (LoopNodeInfo::forward) or a small kernel
//     (LoopNodeInfo::small_kernel: synchronous, stateless, CPU, no
//     transfer);
//   - one LoopCond, whose value every Switch takes as its predicate, and
//     every Exit reads a Switch's output 0 (so the Exits are live in the
//     last iteration only, all together);
//   - every Merge joins one Enter that is not a constant and one
//     NextIteration, with no control inputs, and such Enters feed only
//     Merges.
// At run time an instance runs serially only when no stats are recorded (a
// timeline shows every node's run) and every kernel of the body was
// measured cheaper than a hand-off (Executor::inline_): a body of large
// MatMuls keeps the usual path and its parallelism.
//
// Semantics kept: dead values (a Switch's untaken output; a dead Enter, as
// in a loop inside an untaken branch), nodes that never run in an iteration
// (a Merge whose NextIteration did not come), the Exits handed to the
// parent as they become live (dead ones when the frame ends, by the usual
// path), kernel errors naming the node, frame and iteration, and the step's
// deadline, cancellation and peers' aborts checked every iteration.
#ifndef DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_
#define DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_

#include <vector>

#include "runtime/executor.h"

namespace dflow {

struct Executor::SerialLoop {
  // Where a step's input (or control input) comes from.
  struct Source {
    int step = -1;   // the producing step, or -1: an Enter
    int enter = -1;  // with step == -1: the index in `enters`
    int output = 0;
    // The value's last reader in an iteration takes it (moved, so an
    // element-wise kernel may reuse its buffer); others copy it.
    bool last_use = false;
  };
  struct Step {
    int node = 0;                  // the node's index in the executor
    std::vector<Source> inputs;    // by input slot
    std::vector<Source> controls;  // control inputs
    // A Merge: its Enter (index in `enters`) and that input's slot, and
    // the step of the NextIteration on its back edge and that slot.
    bool is_merge = false;
    int merge_enter = -1;
    int merge_enter_slot = 0;
    int merge_next_slot = 0;
    // A NextIteration: the step of the Merge it feeds.
    int next_merge = -1;
    bool is_exit = false;
    bool is_kernel = false;  // a small kernel (else computed by the step)
    bool is_const = false;   // its value, made once, stays for every iteration
    // A Merge: whether any step reads its value_index output.
    bool index_read = false;
    // The outputs other steps read (a kernel must have produced them).
    std::vector<int> read_outputs;
  };
  std::vector<int> enters;    // the Enter nodes into the frame
  std::vector<Step> program;  // one iteration, in dependency order
  std::vector<int> kernels;   // the nodes of the kernel steps
  int max_inputs = 0;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_
