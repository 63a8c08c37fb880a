#!/usr/bin/env python3
"""A corpus of TensorFlow-written training graphs, with TensorFlow's numbers.

Rerun from the repository root (needs `tools/tf_reference/setup_tf.sh`):

    python3 tools/tf_reference/make_corpus.py [--out tests/testdata/tf_corpus]
        [--only NAME ...] [--batch_scale K]

Every model is written by TensorFlow 2.21 itself (`tf.compat.v1` graph mode)
in the two variable styles users have: `ref` (reference variables and
Switch/Merge conditionals, as under `disable_v2_behavior()`: VariableV2,
Assign, Identity reads) and `res` (TensorFlow 2's graph-mode defaults:
resource variables, VarHandleOp/AssignVariableOp/ReadVariableOp, and
functional If conditionals). Both
styles of each model go into `<out>/<model>_<style>/`:

graph.pb         the GraphDef, binary, exactly as `sess.graph.as_graph_def()`
model.meta       the MetaGraphDef of the same graph (saver_def, collections)
inputs/*.npy     the feeds of the training step (a fixed batch)
reference.txt    what the tests compare against, one fact per line:
    feed <tensor> <npy file>  the feeds of the training step
    init <node>               the initializer (global_variables_initializer,
                              grouped with local_variables_initializer for
                              a model with local variables)
    train <node>              the training target
    loss <tensor>             the loss fetched with it
    loss_value <step> <v>     the loss TensorFlow fetched with the training
                              target in each of STEPS steps after the
                              initializer (same feeds every step)
    placement <devices> <node> <device>
                              TensorFlow's logged placement
                              (log_device_placement, allow_soft_placement)
                              of every node, with device_count={'CPU': 1}
                              ("CPU:1") and {'CPU': N} ("CPU:N", N: the
                              model's towers; a tower's /gpu:i request
                              falls back as TensorFlow decides)
    op <type>                 the op types of the GraphDef
ops.txt          every op type of the corpus

Models (what TensorFlow puts into real training graphs):

mlp_towers       seed 001: 784-500-10 MLP on 4 towers (/gpu:i, variables on
                 /cpu:0), L2 regularization into 'losses', exponential decay,
                 tower-averaged gradients (ExpandDims/ConcatV2/Mean), SGD,
                 moving averages of trainable and moving-average variables,
                 histogram summaries, merge_all, Saver
cifar10_towers   seed 003 / cifar10_multi_gpu_train: conv-LRN-pool x2, two
                 fully connected layers, 2 towers splitting the batch,
                 weight decay, staircase decay, loss moving averages,
                 activation summaries, variable moving averages, Saver
layers_cnn       tf.layers CNN: conv2d, fused batch normalization (training,
                 UPDATE_OPS), max pooling, dropout, dense, tf.losses, Adam,
                 top_k / in_top_k accuracy, scalar summaries
deep_mnist       the Deep-MNIST tutorial CNN: keep_prob placeholder dropout,
                 tf.losses.softmax_cross_entropy on one-hot labels, Adam,
                 argmax accuracy
embed_<opt>      embedding_lookup + dense layer, clip_by_global_norm, with
                 opt in adam, rmsprop, adagrad, momentum (sparse updates)
estimator_like   what tf.estimator builds around a model: global-step
                 initializer, report_uninitialized_variables, ready ops, a
                 sharded Saver, merged summaries, exponential decay (staircase)
input_queue      seed 001's input pipeline (string_input_producer,
                 TFRecordReader, parse_single_example, shuffle_batch) in
                 front of an MLP, reading a file that does not exist: the
                 graph loads, places and initializes
input_fifo       the same pipeline in its deterministic form
                 (string_input_producer(shuffle=False), one reader thread,
                 train.batch) over input_fifo.tfrecords, which this script
                 writes next to the graph; TensorFlow runs its queue
                 runners in the model's directory (the graph names the file
                 relatively), and so must the test. reference.txt then has
                 `queue_runners 1` and no feeds.
input_epochs     input_fifo with string_input_producer(num_epochs=2): a
                 local `epochs` variable and CountUpTo end the input after
                 two passes (OutOfRange); `init` also initializes the local
                 variables, and reference.txt has `epoch_steps N`: how many
                 training steps TensorFlow ran before the input ended.
"""

import argparse
import contextlib
import os
import re
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers
# Plain Eigen kernels rather than oneDNN's: closer to what users compare.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
STEPS = 3
SEED = 1234


# ----------------------------------------------------------------- models
# Each builder runs inside a fresh graph with the variable style set, and
# returns a dict: feeds {placeholder: np.ndarray}, train (op), loss (tensor),
# towers (int), and optionally "extra" facts.


def mlp_towers(rng, batch_scale):
    # Every tower gets the whole fed batch (seed 001 feeds them one batch).
    return seed_mlp(rng, n_gpu=4, rows=100 * batch_scale)


def mlp(rng, batch_scale):
    """Seed 001's model and training step on one device, batch 100 (at
    --batch_scale 4): issue 21's mlp_train_step_ms."""
    return seed_mlp(rng, n_gpu=1, rows=25 * batch_scale)


def seed_mlp(rng, n_gpu, rows):
    regularizer_rate, decay, lr_base = 1e-4, 0.99, 0.1

    def inference(x, regularizer):
        with v1.variable_scope("layer1"):
            w = v1.get_variable(
                "weights", [784, 500],
                initializer=v1.truncated_normal_initializer(stddev=0.1))
            v1.add_to_collection("losses", regularizer(w))
            b = v1.get_variable("biases", [500],
                                initializer=v1.constant_initializer(0.0))
            layer1 = tf.nn.relu(tf.matmul(x, w) + b)
        with v1.variable_scope("layer2"):
            w = v1.get_variable(
                "weights", [500, 10],
                initializer=v1.truncated_normal_initializer(stddev=0.1))
            v1.add_to_collection("losses", regularizer(w))
            b = v1.get_variable("biases", [10],
                                initializer=v1.constant_initializer(0.0))
            return tf.matmul(layer1, w) + b

    def l2_regularizer(scale):
        return lambda w: tf.multiply(scale, tf.nn.l2_loss(w))

    with tf.device("/cpu:0"):
        x = v1.placeholder(tf.float32, [None, 784], name="x-input")
        y_ = v1.placeholder(tf.int32, [None], name="y-input")
        regularizer = l2_regularizer(regularizer_rate)
        global_step = v1.get_variable(
            "global_step", [], initializer=v1.constant_initializer(0),
            trainable=False)
        learning_rate = v1.train.exponential_decay(
            lr_base, global_step, 60000 / 100, decay)
        opt = v1.train.GradientDescentOptimizer(learning_rate)
        tower_grads = []
        reuse = False
        for i in range(n_gpu):
            with tf.device("/gpu:%d" % i):
                with tf.name_scope("GPU_%d" % i) as scope:
                    with v1.variable_scope(v1.get_variable_scope(),
                                           reuse=reuse):
                        y = inference(x, regularizer)
                    cross_entropy = tf.reduce_mean(
                        tf.nn.sparse_softmax_cross_entropy_with_logits(
                            logits=y, labels=y_))
                    reg = tf.add_n(v1.get_collection("losses", scope))
                    cur_loss = cross_entropy + reg
                    reuse = True
                    tower_grads.append(opt.compute_gradients(cur_loss))
        grads = average_gradients(tower_grads)
        for grad, var in grads:
            v1.summary.histogram("gradients_on_average/%s" % var.op.name,
                                 grad)
        apply_op = opt.apply_gradients(grads, global_step=global_step)
        for var in v1.trainable_variables():
            v1.summary.histogram(var.op.name, var)
        ema = v1.train.ExponentialMovingAverage(0.99, global_step)
        ema_op = ema.apply(v1.trainable_variables() +
                           v1.moving_average_variables())
        train_op = tf.group(apply_op, ema_op, name="train")
        v1.train.Saver(v1.global_variables())
        v1.summary.merge_all()
    feeds = {x: rng.rand(rows, 784).astype(np.float32),
             y_: rng.randint(0, 10, rows).astype(np.int32)}
    return dict(feeds=feeds, train=train_op, loss=cur_loss, towers=n_gpu)


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(grads, 0), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def cifar10_towers(rng, batch_scale):
    return seed_cifar10(rng, n_gpu=2, batch=8 * batch_scale)


def cifar10(rng, batch_scale):
    """Seed 003's model and training step on one device, batch 128 (at
    --batch_scale 4): issue 21's cifar10_train_step_ms."""
    return seed_cifar10(rng, n_gpu=1, batch=32 * batch_scale)


def seed_cifar10(rng, n_gpu, batch):

    def var_on_cpu(name, shape, initializer):
        with tf.device("/cpu:0"):
            return v1.get_variable(name, shape, initializer=initializer,
                                   dtype=tf.float32)

    def var_with_weight_decay(name, shape, stddev, wd):
        var = var_on_cpu(name, shape,
                         v1.truncated_normal_initializer(stddev=stddev))
        if wd is not None:
            v1.add_to_collection(
                "losses", tf.multiply(tf.nn.l2_loss(var), wd,
                                      name="weight_loss"))
        return var

    def activation_summary(x):
        name = re.sub("tower_[0-9]*/", "", x.op.name)
        v1.summary.histogram(name + "/activations", x)
        v1.summary.scalar(name + "/sparsity", tf.nn.zero_fraction(x))

    def inference(images):
        with v1.variable_scope("conv1") as scope:
            kernel = var_with_weight_decay("weights", [5, 5, 3, 64], 5e-2,
                                           None)
            conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1],
                                padding="SAME")
            biases = var_on_cpu("biases", [64], v1.constant_initializer(0.0))
            conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases),
                               name=scope.name)
            activation_summary(conv1)
        pool1 = tf.nn.max_pool2d(conv1, ksize=[1, 3, 3, 1],
                                 strides=[1, 2, 2, 1], padding="SAME",
                                 name="pool1")
        norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75,
                          name="norm1")
        with v1.variable_scope("conv2") as scope:
            kernel = var_with_weight_decay("weights", [5, 5, 64, 64], 5e-2,
                                           None)
            conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1],
                                padding="SAME")
            biases = var_on_cpu("biases", [64], v1.constant_initializer(0.1))
            conv2 = tf.nn.relu(tf.nn.bias_add(conv, biases),
                               name=scope.name)
            activation_summary(conv2)
        norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75,
                          name="norm2")
        pool2 = tf.nn.max_pool2d(norm2, ksize=[1, 3, 3, 1],
                                 strides=[1, 2, 2, 1], padding="SAME",
                                 name="pool2")
        with v1.variable_scope("local3") as scope:
            reshape = tf.reshape(pool2, [tf.shape(images)[0], -1])
            dim = 6 * 6 * 64
            reshape.set_shape([None, dim])
            weights = var_with_weight_decay("weights", [dim, 384], 0.04,
                                            0.004)
            biases = var_on_cpu("biases", [384], v1.constant_initializer(0.1))
            local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases,
                                name=scope.name)
            activation_summary(local3)
        with v1.variable_scope("local4") as scope:
            weights = var_with_weight_decay("weights", [384, 192], 0.04,
                                            0.004)
            biases = var_on_cpu("biases", [192], v1.constant_initializer(0.1))
            local4 = tf.nn.relu(tf.matmul(local3, weights) + biases,
                                name=scope.name)
            activation_summary(local4)
        with v1.variable_scope("softmax_linear") as scope:
            weights = var_with_weight_decay("weights", [192, 10], 1 / 192.0,
                                            None)
            biases = var_on_cpu("biases", [10], v1.constant_initializer(0.0))
            softmax_linear = tf.add(tf.matmul(local4, weights), biases,
                                    name=scope.name)
            activation_summary(softmax_linear)
        return softmax_linear

    def loss_fn(logits, labels):
        labels = tf.cast(labels, tf.int64)
        cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="cross_entropy_per_example")
        mean = tf.reduce_mean(cross_entropy, name="cross_entropy")
        v1.add_to_collection("losses", mean)
        return tf.add_n(v1.get_collection("losses"), name="total_loss")

    with tf.device("/cpu:0"):
        images = v1.placeholder(tf.float32, [None, 24, 24, 3], name="images")
        labels = v1.placeholder(tf.int32, [None], name="labels")
        global_step = v1.get_variable(
            "global_step", [], initializer=v1.constant_initializer(0),
            trainable=False)
        lr = v1.train.exponential_decay(0.1, global_step, 350 * 390, 0.1,
                                        staircase=True)
        opt = v1.train.GradientDescentOptimizer(lr)
        image_splits = tf.split(images, n_gpu, 0)
        label_splits = tf.split(labels, n_gpu, 0)
        tower_grads, tower_losses = [], []
        with v1.variable_scope(v1.get_variable_scope()):
            for i in range(n_gpu):
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("tower_%d" % i) as scope:
                        logits = inference(image_splits[i])
                        _ = loss_fn(logits, label_splits[i])
                        losses = v1.get_collection("losses", scope)
                        total_loss = tf.add_n(losses, name="total_loss")
                        for l in losses + [total_loss]:
                            v1.summary.scalar(l.op.name, l)
                        tower_losses.append(total_loss)
                        v1.get_variable_scope().reuse_variables()
                        tower_grads.append(opt.compute_gradients(total_loss))
        # cifar10.train's loss moving averages, of every tower's loss.
        loss_averages = v1.train.ExponentialMovingAverage(0.9, name="avg")
        loss_averages_op = loss_averages.apply(tower_losses)
        grads = average_gradients(tower_grads)
        apply_op = opt.apply_gradients(grads, global_step=global_step)
        for var in v1.trainable_variables():
            v1.summary.histogram(var.op.name, var)
        variable_averages = v1.train.ExponentialMovingAverage(0.9999,
                                                               global_step)
        averages_op = variable_averages.apply(v1.trainable_variables())
        train_op = tf.group(apply_op, averages_op, loss_averages_op,
                            name="train")
        v1.train.Saver(v1.global_variables())
        v1.summary.merge_all()
    feeds = {images: rng.rand(batch * n_gpu, 24, 24, 3).astype(np.float32),
             labels: rng.randint(0, 10, batch * n_gpu).astype(np.int32)}
    return dict(feeds=feeds, train=train_op, loss=total_loss, towers=n_gpu)


def layers_cnn(rng, batch_scale):
    batch = 16 * batch_scale
    layers = v1.layers
    x = v1.placeholder(tf.float32, [None, 28, 28, 1], name="images")
    y = v1.placeholder(tf.int64, [None], name="labels")
    global_step = v1.train.get_or_create_global_step()
    net = layers.conv2d(x, 8, 3, padding="same", use_bias=False, name="conv1")
    net = layers.batch_normalization(net, training=True, fused=True,
                                     name="bn1")
    net = tf.nn.relu(net)
    net = layers.max_pooling2d(net, 2, 2, name="pool1")
    net = layers.conv2d(net, 16, 3, padding="same", activation=tf.nn.relu,
                        name="conv2")
    net = layers.max_pooling2d(net, 2, 2, name="pool2")
    net = layers.flatten(net)
    net = layers.dense(net, 32, activation=tf.nn.relu, name="fc1")
    net = layers.dropout(net, rate=0.25, training=True, name="dropout")
    logits = layers.dense(net, 10, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    _, top = tf.nn.top_k(logits, k=3)
    in_top = v1.nn.in_top_k(logits, y, 3)
    accuracy = tf.reduce_mean(tf.cast(in_top, tf.float32), name="accuracy")
    v1.summary.scalar("loss", loss)
    v1.summary.scalar("accuracy", accuracy)
    update_ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = v1.train.AdamOptimizer(1e-3).minimize(
            loss, global_step=global_step, name="train")
    v1.train.Saver()
    v1.summary.merge_all()
    feeds = {x: rng.rand(batch, 28, 28, 1).astype(np.float32),
             y: rng.randint(0, 10, batch).astype(np.int64)}
    return dict(feeds=feeds, train=train_op, loss=loss, towers=1,
                fetch_also=[accuracy.name, top.name])


def deep_mnist(rng, batch_scale):
    batch = 16 * batch_scale

    def weight(shape):
        return tf.Variable(v1.truncated_normal(shape, stddev=0.1))

    def bias(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    x = v1.placeholder(tf.float32, [None, 784], name="x")
    y_ = v1.placeholder(tf.float32, [None, 10], name="y_")
    keep_prob = v1.placeholder(tf.float32, name="keep_prob")
    x_image = tf.reshape(x, [-1, 28, 28, 1])
    h = tf.nn.relu(tf.nn.conv2d(x_image, weight([5, 5, 1, 16]),
                                [1, 1, 1, 1], "SAME") + bias([16]))
    h = tf.nn.max_pool2d(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.relu(tf.nn.conv2d(h, weight([5, 5, 16, 32]), [1, 1, 1, 1],
                                "SAME") + bias([32]))
    h = tf.nn.max_pool2d(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.reshape(h, [-1, 7 * 7 * 32])
    h = tf.nn.relu(tf.matmul(h, weight([7 * 7 * 32, 64])) + bias([64]))
    h = v1.nn.dropout(h, keep_prob=keep_prob)
    logits = tf.matmul(h, weight([64, 10])) + bias([10])
    loss = v1.losses.softmax_cross_entropy(onehot_labels=y_, logits=logits)
    train_op = v1.train.AdamOptimizer(1e-4).minimize(loss, name="train")
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    v1.train.Saver()
    labels = rng.randint(0, 10, batch)
    feeds = {x: rng.rand(batch, 784).astype(np.float32),
             y_: np.eye(10, dtype=np.float32)[labels],
             keep_prob: np.float32(0.5)}
    return dict(feeds=feeds, train=train_op, loss=loss, towers=1,
                fetch_also=[accuracy.name])


def lstm(rng, batch_scale):
    """An LSTM dynamic_rnn over a sequence, a dense layer on its last
    output, softmax cross-entropy and Adam: the training step of issue 18's
    lstm_train_step_ms benchmark (gradients through the loop). Benchmark
    only: not in the committed corpus."""
    batch, steps, features, units = 16 * batch_scale, 20, 32, 64
    x = v1.placeholder(tf.float32, [None, steps, features], name="x")
    y = v1.placeholder(tf.int32, [None], name="y")
    cell = v1.nn.rnn_cell.LSTMCell(
        units, initializer=v1.glorot_uniform_initializer(seed=SEED))
    outputs, _ = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w = v1.get_variable("out_w", [units, 10],
                        initializer=v1.glorot_uniform_initializer(seed=SEED))
    b = v1.get_variable("out_b", [10], initializer=v1.zeros_initializer())
    logits = tf.matmul(outputs[:, -1, :], w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits), name="loss")
    train_op = v1.train.AdamOptimizer(1e-3).minimize(loss, name="train")
    feeds = {x: rng.rand(batch, steps, features).astype(np.float32) - 0.5,
             y: rng.randint(0, 10, batch).astype(np.int32)}
    return dict(feeds=feeds, train=train_op, loss=loss, towers=1)


def matmul1024(rng, batch_scale):
    """One 1024x1024x1024 float product of two variables (issue 21's
    matmul1024_gflops: 2.15 GFLOP per step); the loss is one element of it,
    so the whole product is computed."""
    del batch_scale
    a = v1.get_variable("a", [1024, 1024],
                        initializer=v1.random_uniform_initializer(-1, 1))
    b = v1.get_variable("b", [1024, 1024],
                        initializer=v1.random_uniform_initializer(-1, 1))
    product = tf.matmul(a, b)
    loss = tf.identity(product[0, 0], name="loss")
    train = tf.group(product, name="train")
    return dict(feeds={}, train=train, loss=loss, towers=1)


def conv2(rng, batch_scale):
    """Seed 003's second convolution forward, batch 128 (at --batch_scale
    4): [128,12,12,64] * [5,5,64,64], SAME (issue 21's conv2_gflops: 3.77
    GFLOP per step)."""
    x = v1.get_variable("x", [32 * batch_scale, 12, 12, 64],
                        initializer=v1.random_uniform_initializer(0, 1))
    k = v1.get_variable("k", [5, 5, 64, 64],
                        initializer=v1.truncated_normal_initializer(
                            stddev=5e-2))
    y = tf.nn.conv2d(x, k, [1, 1, 1, 1], padding="SAME")
    loss = tf.identity(y[0, 0, 0, 0], name="loss")
    train = tf.group(y, name="train")
    return dict(feeds={}, train=train, loss=loss, towers=1)


def embed(optimizer):
    def build(rng, batch_scale):
        batch = 16 * batch_scale
        ids = v1.placeholder(tf.int32, [None, 4], name="ids")
        labels = v1.placeholder(tf.int32, [None], name="labels")
        table = v1.get_variable(
            "embedding", [50, 8],
            initializer=v1.random_uniform_initializer(-0.5, 0.5))
        emb = tf.nn.embedding_lookup(table, ids)
        pooled = tf.reduce_mean(emb, 1)
        w = v1.get_variable("dense/kernel", [8, 10],
                            initializer=v1.glorot_uniform_initializer())
        b = v1.get_variable("dense/bias", [10],
                            initializer=v1.zeros_initializer())
        logits = v1.nn.xw_plus_b(pooled, w, b)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.one_hot(labels, 10), logits=logits), name="loss")
        global_step = v1.train.get_or_create_global_step()
        opt = {
            "adam": lambda: v1.train.AdamOptimizer(0.01),
            "rmsprop": lambda: v1.train.RMSPropOptimizer(0.01, momentum=0.9),
            "adagrad": lambda: v1.train.AdagradOptimizer(0.1),
            "momentum": lambda: v1.train.MomentumOptimizer(
                0.1, 0.9, use_nesterov=True),
        }[optimizer]()
        grads_and_vars = opt.compute_gradients(loss)
        grads, variables = zip(*grads_and_vars)
        clipped, _ = tf.clip_by_global_norm(grads, 1.0)
        train_op = opt.apply_gradients(zip(clipped, variables),
                                       global_step=global_step, name="train")
        v1.train.Saver()
        feeds = {ids: rng.randint(0, 50, (batch, 4)).astype(np.int32),
                 labels: rng.randint(0, 10, batch).astype(np.int32)}
        return dict(feeds=feeds, train=train_op, loss=loss, towers=1)
    return build


def estimator_like(rng, batch_scale):
    batch = 16 * batch_scale
    features = v1.placeholder(tf.float32, [None, 13], name="features")
    target = v1.placeholder(tf.float32, [None, 1], name="target")
    global_step = v1.train.get_or_create_global_step()
    with v1.variable_scope("linear"):
        w = v1.get_variable("weights", [13, 1],
                            initializer=v1.zeros_initializer())
        b = v1.get_variable("bias", [1], initializer=v1.zeros_initializer())
    predictions = tf.matmul(features, w) + b
    loss = v1.losses.mean_squared_error(target, predictions)
    lr = v1.train.exponential_decay(0.05, global_step, 2, 0.5,
                                    staircase=True)
    train_op = v1.train.GradientDescentOptimizer(lr).minimize(
        loss, global_step=global_step, name="train")
    v1.summary.scalar("loss", loss)
    v1.summary.scalar("learning_rate", lr)
    with tf.device("/cpu:0"):
        # What tf.train.Scaffold adds.
        ready = v1.report_uninitialized_variables()
        v1.add_to_collection(v1.GraphKeys.READY_OP, ready)
        v1.add_to_collection(
            v1.GraphKeys.LOCAL_INIT_OP,
            tf.group(v1.local_variables_initializer(),
                     v1.tables_initializer(), name="local_init"))
        v1.add_to_collection(v1.GraphKeys.SUMMARY_OP, v1.summary.merge_all())
        v1.train.Saver(sharded=True, max_to_keep=3)
    feeds = {features: rng.rand(batch, 13).astype(np.float32),
             target: rng.rand(batch, 1).astype(np.float32)}
    return dict(feeds=feeds, train=train_op, loss=loss, towers=1,
                fetch_also=[ready.name])


def input_queue(rng, batch_scale):
    files = v1.train.string_input_producer(["/tmp/does-not-exist.tfrecords"])
    reader = v1.TFRecordReader()
    _, serialized = reader.read(files)
    parsed = v1.parse_single_example(serialized, features={
        "image_raw": v1.FixedLenFeature([], tf.string),
        "label": v1.FixedLenFeature([], tf.int64)})
    image = tf.cast(tf.reshape(v1.decode_raw(parsed["image_raw"], tf.uint8),
                               [784]), tf.float32)
    label = tf.cast(parsed["label"], tf.int32)
    x, y = v1.train.shuffle_batch([image, label], batch_size=16,
                                  capacity=1000, min_after_dequeue=500)
    w = v1.get_variable("weights", [784, 10],
                        initializer=v1.truncated_normal_initializer(0.1))
    logits = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits), name="loss")
    train_op = v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, name="train")
    v1.train.Saver()
    # No training reference: its step needs the queue (issue 22). The test
    # checks the graph loads and its initializer runs.
    return dict(feeds={}, train=train_op, loss=loss, towers=1,
                run_steps=False)


def input_pipeline(file_name, num_epochs):
    """input_fifo (num_epochs None) and input_epochs: the builder."""

    def build(rng, batch_scale):
        records = []
        for i in range(48):
            label = i % 10
            pixels = (rng.rand(784) * 60 + label * 19).astype(np.uint8)
            example = tf.train.Example(features=tf.train.Features(feature={
                "image_raw": tf.train.Feature(
                    bytes_list=tf.train.BytesList(value=[pixels.tobytes()])),
                "label": tf.train.Feature(
                    int64_list=tf.train.Int64List(value=[label])),
                "pixels": tf.train.Feature(
                    int64_list=tf.train.Int64List(value=[784]))}))
            records.append(example.SerializeToString())
        files = v1.train.string_input_producer([file_name], shuffle=False,
                                               num_epochs=num_epochs)
        reader = v1.TFRecordReader()
        _, serialized = reader.read(files)
        parsed = v1.parse_single_example(serialized, features={
            "image_raw": v1.FixedLenFeature([], tf.string),
            "label": v1.FixedLenFeature([], tf.int64),
            "pixels": v1.FixedLenFeature([], tf.int64)})
        image = tf.cast(tf.reshape(v1.decode_raw(parsed["image_raw"], tf.uint8),
                                   [784]), tf.float32) / 255.0
        label = tf.cast(parsed["label"], tf.int32)
        x, y = v1.train.batch([image, label], batch_size=8 * batch_scale,
                              num_threads=1, capacity=64)
        w = v1.get_variable("weights", [784, 10],
                            initializer=v1.truncated_normal_initializer(
                                stddev=0.05, seed=SEED))
        b = v1.get_variable("biases", [10], initializer=v1.zeros_initializer())
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits), name="loss")
        train_op = v1.train.GradientDescentOptimizer(0.05).minimize(
            loss, name="train")
        v1.train.Saver()
        return dict(feeds={}, train=train_op, loss=loss, towers=1,
                    record_file=(file_name, records),
                    count_epoch_steps=num_epochs is not None)
    return build


MODELS = {
    "mlp_towers": mlp_towers,
    "cifar10_towers": cifar10_towers,
    "layers_cnn": layers_cnn,
    "deep_mnist": deep_mnist,
    "embed_adam": embed("adam"),
    "embed_rmsprop": embed("rmsprop"),
    "embed_adagrad": embed("adagrad"),
    "embed_momentum": embed("momentum"),
    "estimator_like": estimator_like,
    "input_queue": input_queue,
    "input_fifo": input_pipeline("input_fifo.tfrecords", None),
    "input_epochs": input_pipeline("input_epochs.tfrecords", 2),
}
# Written only when asked for (--only NAME): the benchmarks' graphs
# (bench/compare_tf.sh, bench/compare_tf_cpu.sh).
BENCH_MODELS = {"lstm": lstm, "mlp": mlp, "cifar10": cifar10,
                "matmul1024": matmul1024, "conv2": conv2}


# ------------------------------------------------------------ recording


@contextlib.contextmanager
def captured_output():
    """Everything written to file descriptors 1 and 2 (TensorFlow's C++ log
    and its placement lines)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        out = {}
        try:
            yield out
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in ((1, saved[0]), (2, saved[1])):
                os.dup2(copy, fd)
                os.close(copy)
            tmp.seek(0)
            out["text"] = tmp.read().decode("utf-8", "replace")


PLACEMENT_LINE = re.compile(
    r"^(?:.*\] )?(\S+): \((\S+)\): (/job:\S+/device:[A-Z]+:\d+)\s*$")


def parse_placement(text):
    placed = {}
    for line in text.splitlines():
        m = PLACEMENT_LINE.match(line.strip())
        if m:
            placed[m.group(1)] = m.group(3)
    return placed


def build(name, style, batch_scale):
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(SEED)
        # What disable_v2_behavior() gives a graph (reference variables,
        # tf.cond as Switch/Merge), or TensorFlow 2's graph-mode defaults
        # (resource variables, tf.cond as a functional If).
        if style == "ref":
            v1.disable_resource_variables()
            v1.disable_control_flow_v2()
        else:
            v1.enable_resource_variables()
            v1.enable_control_flow_v2()
        rng = np.random.RandomState(sum(map(ord, name)))
        model = {**MODELS, **BENCH_MODELS}[name](rng, batch_scale)
        init = v1.global_variables_initializer()
        if v1.local_variables():
            init = tf.group(init, v1.local_variables_initializer(),
                            name="init")
    return graph, init, model


def run_reference(graph, init, model, cpus, model_dir):
    config = v1.ConfigProto(allow_soft_placement=True,
                            log_device_placement=True,
                            device_count={"CPU": cpus},
                            inter_op_parallelism_threads=1,
                            intra_op_parallelism_threads=1)
    losses, also = [], []
    queue_runners = "record_file" in model
    cwd = os.getcwd()
    # A model with an input pipeline reads its file relative to its
    # directory, as the test does.
    if queue_runners:
        os.chdir(model_dir)
    try:
        with captured_output() as log:
            with v1.Session(graph=graph, config=config) as sess:
                sess.run(init)
                coord = v1.train.Coordinator() if queue_runners else None
                threads = (v1.train.start_queue_runners(sess=sess,
                                                        coord=coord)
                           if queue_runners else [])
                if model.get("run_steps", True):
                    fetches = [model["train"], model["loss"]]
                    for _ in range(STEPS):
                        out = sess.run(fetches, feed_dict=model["feeds"])
                        losses.append(float(out[1]))
                if model.get("count_epoch_steps"):
                    # Steps until the input ends (OutOfRange).
                    epoch_steps = len(losses)
                    try:
                        while True:
                            sess.run(model["train"], feed_dict=model["feeds"])
                            epoch_steps += 1
                    except tf.errors.OutOfRangeError:
                        also.append("epoch_steps %d" % epoch_steps)
                if coord is not None:
                    coord.request_stop()
                    coord.join(threads)
    finally:
        os.chdir(cwd)
    return losses, also, parse_placement(log["text"])


def write_model(out_dir, name, style, batch_scale):
    graph, init, model = build(name, style, batch_scale)
    d = os.path.join(out_dir, "%s_%s" % (name, style))
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    graph_def = graph.as_graph_def()
    with open(os.path.join(d, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    with graph.as_default():
        savers = graph.get_collection(v1.GraphKeys.SAVERS)
        saver_def = savers[0].as_saver_def() if savers else None
        v1.train.export_meta_graph(
            filename=os.path.join(d, "model.meta"), graph=graph,
            saver_def=saver_def, as_text=False, clear_devices=False)
    feeds = {}
    for tensor, value in model["feeds"].items():
        fname = tensor.op.name.replace("/", "_") + ".npy"
        np.save(os.path.join(d, "inputs", fname), np.asarray(value))
        feeds[tensor.name] = "inputs/" + fname
    if "record_file" in model:
        name_, records = model["record_file"]
        with tf.io.TFRecordWriter(os.path.join(d, name_)) as writer:
            for record in records:
                writer.write(record)
    losses, also, placed1 = run_reference(graph, init, model, 1, d)
    # A second run with the same seeds must give the same numbers, or the
    # reference is not one.
    losses_again, _, _ = run_reference(graph, init, model, 1, d)
    if losses != losses_again:
        raise SystemExit("%s_%s: TensorFlow's losses differ between two runs:"
                         " %r vs %r" % (name, style, losses, losses_again))
    placement = {"CPU:1": placed1}
    if model["towers"] > 1:
        _, _, placed_n = run_reference(graph, init, model, model["towers"], d)
        placement["CPU:%d" % model["towers"]] = placed_n
    lines = [
        "# Written by tools/tf_reference/make_corpus.py with TensorFlow %s."
        % tf.__version__,
        "# One fact per line: <key> <values...>, names have no spaces.",
        "model %s" % name,
        "style %s" % style,
        "towers %d" % model["towers"],
        "init %s" % init.name,
        "train %s" % model["train"].name,
        "loss %s" % model["loss"].name,
        "steps %d" % (STEPS if model.get("run_steps", True) else 0),
    ]
    if "record_file" in model:
        lines.append("queue_runners 1")
    lines.extend(also)
    for tensor_name in sorted(feeds):
        lines.append("feed %s %s" % (tensor_name, feeds[tensor_name]))
    for step, value in enumerate(losses):
        lines.append("loss_value %d %s" % (step + 1, repr(value)))
    for extra in model.get("fetch_also", []):
        lines.append("fetch_also %s" % extra)
    for op in sorted({n.op for n in graph_def.node}):
        lines.append("op %s" % op)
    for devices in sorted(placement):
        for node, device in sorted(placement[devices].items()):
            lines.append("placement %s %s %s" % (devices, node, device))
    with open(os.path.join(d, "reference.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    reference = {"ops": sorted({n.op for n in graph_def.node})}
    print("%s_%s: %d nodes, %d op types, losses %s" % (
        name, style, len(graph_def.node), len(reference["ops"]),
        ", ".join("%.6g" % l for l in losses)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/testdata/tf_corpus")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--styles", nargs="*", default=["ref", "res"])
    parser.add_argument("--batch_scale", type=int, default=1,
                        help="multiply every model's batch (benchmarks)")
    args = parser.parse_args()
    v1.disable_eager_execution()
    names = args.only or list(MODELS)
    for name in names:
        for style in args.styles:
            write_model(args.out, name, style, args.batch_scale)
    all_ops = set()
    for entry in sorted(os.listdir(args.out)):
        path = os.path.join(args.out, entry, "reference.txt")
        if os.path.exists(path):
            with open(path) as f:
                all_ops.update(line.split()[1] for line in f
                               if line.startswith("op "))
    with open(os.path.join(args.out, "ops.txt"), "w") as f:
        f.write("# Every op type in the corpus (make_corpus.py).\n")
        for op in sorted(all_ops):
            f.write(op + "\n")


if __name__ == "__main__":
    main()
