// A serial loop: a frame the loop step (runtime/executor_frame_step.h) may
// run as one straight-line program per iteration instead of through its
// iteration tables, pending counts and ready lists. Internal to the
// executor.
//
// Why: a scalar `while i < n: i += 1` spends most of its time in the frame
// step's generic machinery (activating edges, counting pending inputs,
// queueing ready nodes, making and freeing iterations), not in its kernels.
// When a frame is a plain loop, that machinery decides nothing: every
// iteration runs the same nodes in the same order, one after the other.
//
// A frame qualifies (BuildSerialLoops) when it is TensorFlow's plain loop:
//   - no loop nested in it; every node of it is loop plumbing the frame
//     step computes itself (LoopNodeInfo::forward) or a kernel a serial
//     loop may run (LoopNodeInfo::serial_kernel: synchronous, CPU, no
//     transfer, no reference input; stateful ops such as a TF1 loop's
//     stacks and TensorArrays are fine);
//   - one LoopCond, whose value every Switch takes as its predicate;
//   - every Merge joins one Enter that is not a constant and one
//     NextIteration, with no control inputs, and nothing reads its
//     value_index; such Enters feed only Merges;
//   - every node falls in one part of the iteration, by what it reads: the
//     condition part (what the Merges and constant Enters reach without a
//     Switch, run in every iteration), the body (behind a Switch's output 1:
//     iterations whose predicate holds; every NextIteration is there) or the
//     exits (the Exits, each on a Switch's output 0: the last iteration).
// It is then compiled into the program below: the plumbing disappears
// (Identity, LoopCond, Switch, Merge, NextIteration and Exit name the value
// of their input; Consts are made once), values live in slots, and an
// iteration is the condition part's kernels, the predicate, then either the
// body's kernels and the carries to the next iteration, or the exits.
// Once every Enter has brought a live value, no value inside such a loop
// can be dead (only a Switch makes dead values, and its untaken output is
// read only in the part that does not run), so no deadness is tracked.
//
// At run time an instance runs serially only when no stats are recorded (a
// timeline shows every node's run), and every kernel of the loop was
// measured cheaper than a hand-off (Executor::inline_) or the step has one
// thread (nothing to hand off to): a body of large MatMuls keeps the usual
// path and its parallelism on more threads. An instance whose Enters bring
// a dead value (a loop inside an untaken branch) takes the usual path after
// all.
//
// Semantics kept: the Exits handed to the parent as they become live (dead
// ones when the frame ends, by the usual path), kernel errors naming the
// node, frame and iteration, and the step's deadline, cancellation and
// peers' aborts checked every iteration.
#ifndef DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_
#define DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_

#include <utility>
#include <vector>

#include "graph/tensor.h"
#include "runtime/executor.h"

namespace dflow {

struct Executor::SerialLoop {
  // A read of a value slot. `take`: the slot's last read in the iteration
  // (whichever way it ends), so the reader takes the value itself (moved:
  // an element-wise kernel may reuse its buffer); else a copy.
  struct Read {
    int slot = 0;
    bool take = false;
  };
  struct KernelRun {
    int node = 0;              // the node's index in the executor
    std::vector<Read> inputs;  // by input slot
    // (output index, slot) of each output something in the loop reads.
    std::vector<std::pair<int, int>> outputs;
  };
  struct Carry {  // a NextIteration: its value becomes a Merge's
    int variable = 0;
    Read value;
  };
  struct ExitRun {
    int node = 0;
    Read value;
  };

  // Slots [0, enters.size()) hold the Enters' values (a constant Enter's
  // stays for every iteration); then one slot per Merge (a loop
  // variable), per Const and per kernel output read.
  std::vector<int> enters;  // the Enter nodes into the frame, by slot
  int num_slots = 0;
  // Iteration 0: (variable slot, entered slot) of each Merge.
  std::vector<std::pair<int, int>> starts;
  std::vector<std::pair<int, Tensor>> constants;  // (slot, value), set once
  std::vector<KernelRun> condition;  // every iteration, the last one too
  int predicate = 0;            // the LoopCond's value's slot (never taken)
  int predicate_switch = 0;     // a Switch reading it (named by its error)
  std::vector<KernelRun> body;  // iterations whose predicate holds
  std::vector<Carry> carries;   // then, to the next iteration
  std::vector<ExitRun> exits;   // the last iteration, in node order
  std::vector<int> kernels;     // every KernelRun's node
  int max_inputs = 0;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_EXECUTOR_SERIAL_LOOP_H_
