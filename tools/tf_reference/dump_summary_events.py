#!/usr/bin/env python3
"""Reads every event file of a log directory with TensorBoard's own event
reader (tensorboard.backend.event_processing.event_file_loader) and prints
what each event holds, one line per event, sorted (the Write ops of one
session run have no fixed order), without wall times:

    <step> summary <tag> simple <value>
    <step> summary <tag> histo <num> <min> <max> <sum> <sum_squares> <buckets>
    <step> summary <tag> image <h> <w> <colorspace> pixels <md5 of pixels>
    <step> summary <tag> audio <rate> <channels> <frames> <type> <md5 of wav>
    <step> summary <tag> tensor <dtype> <shape> <values> plugin <name> <content hex>
    <step> graph <node count>:<md5 of sorted node names>

The reader migrates TF1's values (simple, histo, image, audio, the graph)
into TensorBoard's tensor form, so most lines show tensors: what
TensorBoard's plugins read.

PNGs are compared by their decoded pixels (zlib builds may compress the
same pixels differently). make_summary_more_reference.py writes TF's lines
to tests/testdata/tf_summary_more/events.txt; summary_more_ops_test runs
this on dflow's log directory and compares.

    python3 tools/tf_reference/dump_summary_events.py LOGDIR

Exits 77 when TensorBoard (or a PNG decoder) cannot be imported.
"""

import glob
import hashlib
import io
import os
import sys

try:
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.util import tensor_util
    from PIL import Image
    import numpy as np
except ImportError as e:
    print("cannot import tensorboard, PIL or numpy: %s" % e)
    sys.exit(77)


def md5(b):
    return hashlib.md5(b).hexdigest()[:12]


def pixels(png):
    img = Image.open(io.BytesIO(png))
    img.load()
    return "%s:%s" % (img.mode, md5(np.asarray(img).tobytes()))


def looks_png(b):
    return b[:8] == b"\x89PNG\r\n\x1a\n"


def graph_line(serialized):
    from tensorboard.compat.proto import graph_pb2
    g = graph_pb2.GraphDef()
    g.ParseFromString(serialized)
    names = "\n".join(sorted(n.name for n in g.node))
    return "%d:%s" % (len(g.node), md5(names.encode()))


def value_line(v):
    kind = v.WhichOneof("value")
    if kind == "simple_value":
        return "%s simple %.9g" % (v.tag, v.simple_value)
    if kind == "histo":
        h = v.histo
        return "%s histo %g %.9g %.9g %.9g %.9g %d:%s" % (
            v.tag, h.num, h.min, h.max, h.sum, h.sum_squares,
            len(h.bucket), md5(np.asarray(list(h.bucket_limit) +
                                          list(h.bucket)).tobytes()))
    if kind == "image":
        i = v.image
        return "%s image %d %d %d pixels %s" % (
            v.tag, i.height, i.width, i.colorspace,
            pixels(i.encoded_image_string))
    if kind == "audio":
        a = v.audio
        return "%s audio %.9g %d %d %s %s" % (
            v.tag, a.sample_rate, a.num_channels, a.length_frames,
            a.content_type, md5(a.encoded_audio_string))
    if kind == "tensor":
        arr = tensor_util.make_ndarray(v.tensor)
        if v.metadata.plugin_data.plugin_name == "graphs":
            # TensorBoard re-serializes the graph (map order varies): its
            # nodes instead of its bytes.
            return "%s graph-tensor %s" % (v.tag, " ".join(
                graph_line(x) for x in arr.flat))
        if arr.dtype.kind in "SO":
            vals = " ".join(
                ("png:" + pixels(x)) if looks_png(x) else x.hex() or "-"
                for x in arr.flat)
        else:
            vals = " ".join("%.9g" % x for x in arr.flat)
        md = v.metadata
        return "%s tensor %s [%s] %s plugin %s %s node %s" % (
            v.tag, arr.dtype.name, ",".join(str(d) for d in arr.shape), vals,
            md.plugin_data.plugin_name or "-",
            md.plugin_data.content.hex() or "-", v.node_name or "-")
    return "%s %s" % (v.tag, kind)


def main():
    lines = []
    files = sorted(glob.glob(os.path.join(sys.argv[1], "events.out.tfevents.*")))
    for path in files:
        for event in event_file_loader.EventFileLoader(path).Load():
            what = event.WhichOneof("what")
            if what == "file_version":
                continue
            if what == "summary":
                for v in event.summary.value:
                    lines.append("%d summary %s" % (event.step, value_line(v)))
            elif what == "graph_def":
                lines.append("%d graph %s" % (event.step,
                                              graph_line(event.graph_def)))
            else:
                lines.append("%d %s" % (event.step, what))
    print("files %d" % len(files))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
