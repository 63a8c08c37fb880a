#!/usr/bin/env python3
"""Loads a log directory dflow wrote with TensorBoard's own reader
(tensorboard.backend.event_processing.event_accumulator) and prints what
TensorBoard sees, one fact per line, for tests/formats/event_file_writer_test:

    scalar <tag> <step> <value>
    histogram <tag> <step> <count> <min> <max> <sum>
    graph <number of nodes>
    run_metadata <tag> <devices> <node stats> <nodes with a positive time>

    python3 tools/tf_reference/check_event_file.py LOGDIR

Exits 77 when TensorBoard cannot be imported (the test then skips).
"""

import sys

try:
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.compat.proto import graph_pb2
except ImportError as e:
    print("cannot import tensorboard: %s" % e)
    sys.exit(77)


def main():
    acc = event_accumulator.EventAccumulator(
        sys.argv[1], size_guidance={event_accumulator.SCALARS: 0,
                                    event_accumulator.HISTOGRAMS: 0})
    acc.Reload()
    tags = acc.Tags()
    for tag in sorted(tags["scalars"]):
        for e in acc.Scalars(tag):
            print("scalar %s %d %.6g" % (tag, e.step, e.value))
    for tag in sorted(tags["histograms"]):
        for e in acc.Histograms(tag):
            h = e.histogram_value
            print("histogram %s %d %g %g %g %g" % (tag, e.step, h.num, h.min,
                                                   h.max, h.sum))
    if tags["graph"]:
        graph = graph_pb2.GraphDef()
        graph.ParseFromString(acc.Graph().SerializeToString())
        print("graph %d" % len(graph.node))
    for tag in sorted(tags["run_metadata"]):
        metadata = acc.RunMetadata(tag)
        stats = [n for d in metadata.step_stats.dev_stats for n in d.node_stats]
        timed = [n for n in stats if n.all_end_rel_micros > 0]
        print("run_metadata %s %d %d %d" % (
            tag, len(metadata.step_stats.dev_stats), len(stats), len(timed)))


if __name__ == "__main__":
    main()
