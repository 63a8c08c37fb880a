"""Keras-written graphs in dflow: the op probe's harness over models built
with tf_keras (Keras 2, what `tf.compat.v1` graph-mode programs use) in
TensorFlow 2.21's graph mode.

Each case builds layers, a loss and (for training cases) an optimizer's
update ops in a tf.Graph, runs it in TensorFlow, writes the GraphDef and
runs it in `bazel-bin/tools/dflow`, comparing every fetch (op_probe.py's
harness: build, run_case, report). Keras writes graphs differently from
hand-written tf.compat.v1 code (resource variables read through
ReadVariableOp, its own initializers, loss reductions, `keras_learning_phase`
placeholders, While loops for recurrent layers), which is why it is a corpus
of its own.

    python3 tools/tf_probe/keras_probe.py [case ...]   # report in /tmp/kerasprobe
"""
import os
import sys

os.environ.setdefault("PROBE_DIR", "/tmp/kerasprobe")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import op_probe as H  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

tf1 = tf.compat.v1
L = keras.layers
H.CASES.clear()
case = H.case


def _init(C):
    C.init.append(tf1.global_variables_initializer())


def _seeded():
    # Seeded initializers: the same values in every run of TensorFlow, so a
    # failure names dflow, not the draw.
    return dict(kernel_initializer=keras.initializers.GlorotUniform(seed=7))


def _train(C, loss, params, opt):
    """Keras optimizer updates in graph mode (the legacy optimizers'
    get_updates, what a v1 program's model.fit builds)."""
    updates = opt.get_updates(loss, params)
    C.targets.append(tf.group(*updates, name="train_op"))
    _init(C)


# ---------------------------------------------------------------- forward
@case("keras_dense_mlp")
def _(C):
    x = C.f(8, 20, name="x")
    m = keras.Sequential([
        L.Dense(32, activation="relu", **_seeded()),
        L.Dropout(0.5),
        L.Dense(16, activation="tanh", **_seeded()),
        L.Dense(5, activation="softmax", **_seeded()),
    ])
    y = m(x, training=False)
    _init(C)
    return dict(y=y)


@case("keras_conv_layers")
def _(C):
    x = C.f(2, 12, 12, 3, name="x")
    s = _seeded()
    a = L.Conv2D(4, 3, padding="same", activation="relu", **s)(x)
    b = L.SeparableConv2D(4, 3, padding="valid", depthwise_initializer=keras.initializers.GlorotUniform(seed=3),
                          pointwise_initializer=keras.initializers.GlorotUniform(seed=4))(x)
    c = L.DepthwiseConv2D(3, strides=2, padding="same",
                          depthwise_initializer=keras.initializers.GlorotUniform(seed=5))(x)
    d = L.Conv2DTranspose(2, 3, strides=2, padding="same", **s)(a)
    e = L.UpSampling2D(2)(c)
    f = L.ZeroPadding2D(((1, 2), (0, 1)))(x)
    g = L.Cropping2D(((1, 1), (2, 0)))(x)
    h = L.GlobalAveragePooling2D()(a)
    i = L.GlobalMaxPooling2D()(b)
    j = L.AveragePooling2D(2)(a)
    k = L.MaxPooling2D(3, strides=2, padding="same")(a)
    _init(C)
    return dict(conv=a, sep=b, dw=c, convT=d, up=e, zpad=f, crop=g, gap=h, gmp=i, avg=j, maxp=k)


@case("keras_conv1d_3d")
def _(C):
    x = C.f(2, 16, 3, name="x1")
    v = C.f(1, 6, 6, 6, 2, name="x3")
    s = _seeded()
    a = L.Conv1D(4, 3, dilation_rate=2, padding="causal", **s)(x)
    b = L.MaxPooling1D(2)(a)
    c = L.GlobalAveragePooling1D()(a)
    d = L.Conv3D(3, 3, padding="same", **s)(v)
    e = L.MaxPooling3D(2)(d)
    f = L.UpSampling1D(2)(x)
    g = L.Conv3DTranspose(2, 2, strides=2, **s)(e)
    _init(C)
    return dict(conv1d=a, pool1d=b, gap1d=c, conv3d=d, pool3d=e, up1d=f, conv3dT=g)


@case("keras_activations")
def _(C):
    x = C.f(4, 10, lo=-3, hi=3, name="x")
    out = {}
    for name in ["relu", "sigmoid", "tanh", "softmax", "softplus", "softsign", "selu", "elu",
                 "exponential", "hard_sigmoid", "swish", "gelu", "linear", "relu6", "mish"]:
        try:
            out[name] = keras.activations.get(name)(x)
        except Exception:  # an activation this Keras lacks
            pass
    out["gelu_approx"] = keras.activations.gelu(x, approximate=True)
    out["prelu"] = L.PReLU(alpha_initializer=keras.initializers.Constant(0.2))(x)
    out["leaky"] = L.LeakyReLU(0.1)(x)
    out["elu_layer"] = L.ELU(0.7)(x)
    out["relu_max"] = L.ReLU(max_value=1.5, negative_slope=0.05, threshold=0.2)(x)
    out["thresholded"] = L.ThresholdedReLU(0.5)(x)
    out["softmax_axis0"] = L.Softmax(axis=0)(x)
    _init(C)
    return out


@case("keras_norm_layers")
def _(C):
    x = C.n(4, 6, 6, 3, name="x")
    t = C.n(3, 5, 8, name="t")
    bn = L.BatchNormalization(momentum=0.9, epsilon=1e-3)
    y_inf = bn(x, training=False)
    ln = L.LayerNormalization(axis=-1)
    z = ln(t)
    ln2 = L.LayerNormalization(axis=[1, 2])
    z2 = ln2(t)
    gn = None
    if hasattr(L, "GroupNormalization"):
        gn = L.GroupNormalization(groups=2, axis=-1)(t)
    un = L.UnitNormalization()(t) if hasattr(L, "UnitNormalization") else None
    out = dict(bn_inf=y_inf, ln=z, ln2=z2)
    if gn is not None:
        out["gn"] = gn
    if un is not None:
        out["unit"] = un
    _init(C)
    return out


@case("keras_shape_merge_layers")
def _(C):
    a = C.f(3, 4, 5, name="a")
    b = C.f(3, 4, 5, name="b")
    v = C.f(3, 6, name="v")
    out = dict(
        flat=L.Flatten()(a), reshape=L.Reshape((5, 4))(a), permute=L.Permute((2, 1))(a),
        repeat=L.RepeatVector(3)(v), concat=L.Concatenate(axis=1)([a, b]), add=L.Add()([a, b]),
        sub=L.Subtract()([a, b]), mul=L.Multiply()([a, b]), avg=L.Average()([a, b]),
        mx=L.Maximum()([a, b]), mn=L.Minimum()([a, b]),
        dot=L.Dot(axes=(2, 2))([a, b]), dot_norm=L.Dot(axes=2, normalize=True)([a, b]),
        lam=L.Lambda(lambda t: tf.reduce_sum(t * t, -1))(a),
        mask=L.Masking(0.0)(tf.concat([a, tf.zeros([3, 1, 5])], 1)),
        crop1d=L.Cropping1D((1, 2))(a), zpad1d=L.ZeroPadding1D(2)(a),
        rescale=L.Rescaling(1.0 / 255, offset=-0.5)(a),
    )
    _init(C)
    return out


@case("keras_embedding_attention")
def _(C):
    ids = C.i(2, 7, lo=0, hi=20, name="ids")
    q = C.f(2, 5, 8, name="q")
    kv = C.f(2, 7, 8, name="kv")
    emb = L.Embedding(20, 8, embeddings_initializer=keras.initializers.RandomUniform(-1, 1, seed=2))(ids)
    mha = L.MultiHeadAttention(num_heads=2, key_dim=4, kernel_initializer=keras.initializers.GlorotUniform(seed=9))
    att, scores = mha(q, kv, return_attention_scores=True)
    dot_att = L.Attention()([q, kv])
    add_att = L.AdditiveAttention()([q, kv])
    _init(C)
    return dict(emb=emb, mha=att, scores=scores, dot_att=dot_att, add_att=add_att)


@case("keras_rnn_layers")
def _(C):
    x = C.f(3, 6, 4, name="x")
    s = dict(kernel_initializer=keras.initializers.GlorotUniform(seed=11),
             recurrent_initializer=keras.initializers.Orthogonal(seed=12))
    lstm = L.LSTM(5, return_sequences=True, **s)(x)
    gru = L.GRU(5, return_state=True, **s)(x)
    rnn = L.SimpleRNN(5, **s)(x)
    bi = L.Bidirectional(L.LSTM(3, **s))(x)
    _init(C)
    return dict(lstm=lstm, gru=gru[0], gru_state=gru[1], rnn=rnn, bi=bi)


@case("keras_mobilenet_v2_infer")
def _(C):
    x = C.f(1, 32, 32, 3, name="image")
    tf1.set_random_seed(3)
    m = keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None, classes=10)
    y = m(x, training=False)
    _init(C)
    return dict(probs=y)


# ---------------------------------------------------------------- training
@case("keras_mlp_train_optimizers", steps=2)
def _(C):
    x = C.f(16, 10, name="x")
    y = C.i(16, lo=0, hi=3, name="y")
    out = {}
    opts = dict(sgd=keras.optimizers.legacy.SGD(0.1, momentum=0.9, nesterov=True),
                adam=keras.optimizers.legacy.Adam(0.01, amsgrad=True),
                rms=keras.optimizers.legacy.RMSprop(0.01, centered=True, momentum=0.5),
                adagrad=keras.optimizers.legacy.Adagrad(0.1),
                adadelta=keras.optimizers.legacy.Adadelta(1.0),
                adamax=keras.optimizers.legacy.Adamax(0.01),
                nadam=keras.optimizers.legacy.Nadam(0.01),
                ftrl=keras.optimizers.legacy.Ftrl(0.1, l1_regularization_strength=0.01))
    updates = []
    for name, opt in opts.items():
        with tf1.variable_scope(name):
            d1 = L.Dense(8, activation="relu", **_seeded())
            d2 = L.Dense(3, **_seeded())
            logits = d2(d1(x))
            loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
            updates += opt.get_updates(loss, d1.trainable_weights + d2.trainable_weights)
            out["loss_" + name] = loss
    C.targets.append(tf.group(*updates, name="train_op"))
    _init(C)
    return out


@case("keras_cnn_bn_train", steps=2)
def _(C):
    x = C.f(4, 8, 8, 3, name="x")
    y = C.i(4, lo=0, hi=4, name="y")
    inp = keras.Input(tensor=x)
    h = L.Conv2D(6, 3, padding="same", use_bias=False, **_seeded())(inp)
    bn = L.BatchNormalization()
    h = bn(h, training=True)
    h = L.Activation("relu")(h)
    h = L.MaxPooling2D()(h)
    h = L.Flatten()(h)
    logits = L.Dense(4, **_seeded())(h)
    model = keras.Model(inp, logits)
    loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    opt = keras.optimizers.legacy.Adam(0.01)
    updates = opt.get_updates(loss, model.trainable_weights)
    train_op = tf.group(*(updates + model.updates), name="train_op")
    C.targets.append(train_op)
    _init(C)
    # Read after the step's updates: a read nothing orders races the
    # moving averages' update (TensorFlow itself gives either value).
    with tf.control_dependencies([train_op]):
        moving_mean = tf.reduce_sum(bn.moving_mean.read_value())
        moving_var = tf.reduce_sum(bn.moving_variance.read_value())
    return dict(loss=loss, moving_mean=moving_mean, moving_var=moving_var)


@case("keras_lstm_train", steps=2)
def _(C):
    ids = C.i(4, 6, lo=0, hi=30, name="ids")
    y = C.f(4, 1, name="y")
    e = L.Embedding(30, 8, embeddings_initializer=keras.initializers.RandomUniform(-0.5, 0.5, seed=1))
    lstm = L.LSTM(6, kernel_initializer=keras.initializers.GlorotUniform(seed=2),
                  recurrent_initializer=keras.initializers.Orthogonal(seed=3))
    d = L.Dense(1, **_seeded())
    pred = d(lstm(e(ids)))
    loss = tf.reduce_mean(keras.losses.mean_squared_error(y, pred))
    params = e.trainable_weights + lstm.trainable_weights + d.trainable_weights
    _train(C, loss, params, keras.optimizers.legacy.Adam(0.01))
    return dict(loss=loss)


@case("keras_losses")
def _(C):
    yt = C.f(6, 4, lo=0, hi=1, name="yt")
    yp = C.f(6, 4, lo=0.05, hi=0.95, name="yp")
    lab = C.i(6, lo=0, hi=4, name="lab")
    logits = C.n(6, 4, name="logits")
    kl = keras.losses
    out = dict(
        cce=kl.categorical_crossentropy(yt, yp), cce_logits=kl.categorical_crossentropy(yt, logits, from_logits=True,
                                                                                        label_smoothing=0.1),
        scce=kl.sparse_categorical_crossentropy(lab, yp), bce=kl.binary_crossentropy(yt, yp),
        bce_logits=kl.binary_crossentropy(yt, logits, from_logits=True), mse=kl.mean_squared_error(yt, yp),
        mae=kl.mean_absolute_error(yt, yp), mape=kl.mean_absolute_percentage_error(yt, yp),
        msle=kl.mean_squared_logarithmic_error(yt, yp), huber=kl.Huber(0.5)(yt, logits),
        kld=kl.kl_divergence(yt, yp), poisson=kl.poisson(yt, yp), logcosh=kl.log_cosh(yt, logits),
        hinge=kl.hinge(yt, logits), sq_hinge=kl.squared_hinge(yt, logits),
        cos=kl.cosine_similarity(yt, logits), cat_hinge=kl.categorical_hinge(yt, logits),
    )
    return out


@case("keras_metrics_functions")
def _(C):
    yt = C.i(8, 3, lo=0, hi=2, name="yt")
    yp = C.f(8, 3, lo=0, hi=1, name="yp")
    lab = C.i(8, lo=0, hi=3, name="lab")
    km = keras.metrics
    return dict(bin_acc=km.binary_accuracy(tf.cast(yt, tf.float32), yp),
                cat_acc=km.categorical_accuracy(tf.cast(yt, tf.float32), yp),
                sparse_acc=km.sparse_categorical_accuracy(lab, yp),
                topk=km.sparse_top_k_categorical_accuracy(lab, yp, k=2))


@case("keras_resnet_regularized_train", steps=2)
def _(C):
    x = C.f(2, 8, 8, 4, name="x")
    y = C.i(2, lo=0, hi=3, name="y")
    reg = keras.regularizers.l2(1e-3)
    inp = keras.Input(tensor=x)
    h = L.Conv2D(4, 3, padding="same", kernel_regularizer=reg, **_seeded())(inp)
    h = L.BatchNormalization()(h, training=True)
    h = L.ReLU()(h)
    h = L.Conv2D(4, 3, padding="same", kernel_regularizer=keras.regularizers.l1_l2(1e-4, 1e-3), **_seeded())(h)
    h = L.Add()([h, inp])
    h = L.GlobalAveragePooling2D()(h)
    logits = L.Dense(3, activity_regularizer=keras.regularizers.l2(1e-2), **_seeded())(h)
    model = keras.Model(inp, logits)
    loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    loss = tf.add_n([loss] + model.losses, name="total_loss")
    opt = keras.optimizers.legacy.SGD(0.05, momentum=0.9)
    updates = opt.get_updates(loss, model.trainable_weights)
    C.targets.append(tf.group(*(updates + model.updates), name="train_op"))
    _init(C)
    return dict(loss=loss)


@case("keras_time_distributed_convlstm")
def _(C):
    x = C.f(2, 3, 6, 6, 2, name="frames")
    s = dict(kernel_initializer=keras.initializers.GlorotUniform(seed=21),
             recurrent_initializer=keras.initializers.GlorotUniform(seed=22))
    td = L.TimeDistributed(L.Conv2D(3, 3, padding="same", **_seeded()))(x)
    cl = L.ConvLSTM2D(2, 3, padding="same", return_sequences=False, **s)(x)
    seq = C.f(2, 5, 4, name="seq")
    tdd = L.TimeDistributed(L.Dense(3, **_seeded()))(seq)
    _init(C)
    return dict(td=td, convlstm=cl, td_dense=tdd)


@case("keras_gru_train", steps=2)
def _(C):
    x = C.f(4, 5, 3, name="x")
    y = C.f(4, 2, name="y")
    gru = L.GRU(4, reset_after=True, kernel_initializer=keras.initializers.GlorotUniform(seed=31),
                recurrent_initializer=keras.initializers.Orthogonal(seed=32))
    rnn = L.SimpleRNN(4, return_sequences=True, kernel_initializer=keras.initializers.GlorotUniform(seed=33),
                      recurrent_initializer=keras.initializers.Orthogonal(seed=34))
    d = L.Dense(2, **_seeded())
    pred = d(gru(rnn(x)))
    loss = tf.reduce_mean(keras.losses.mean_squared_error(y, pred))
    _train(C, loss, rnn.trainable_weights + gru.trainable_weights + d.trainable_weights,
           keras.optimizers.legacy.RMSprop(0.01))
    return dict(loss=loss)


@case("keras_preprocessing_layers")
def _(C):
    x = C.f(5, 3, lo=0, hi=10, name="x")
    ids = C.i(5, 2, lo=0, hi=6, name="ids")
    words = C.ph(np.array([b"a", b"b", b"zz", b"c", b"a"]), name="words")
    norm = L.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0])(x)
    disc = L.Discretization(bin_boundaries=[2.0, 5.0, 7.5])(x)
    onehot = L.CategoryEncoding(num_tokens=6, output_mode="multi_hot")(ids)
    counts = L.CategoryEncoding(num_tokens=6, output_mode="count")(ids)
    hashed = L.Hashing(num_bins=7)(words)
    lookup = L.StringLookup(vocabulary=["a", "b", "c"])(words)
    ilookup = L.IntegerLookup(vocabulary=[1, 3, 5])(ids)
    _init(C)
    C.init.append(tf1.tables_initializer())
    return dict(norm=norm, disc=disc, onehot=onehot, counts=counts, hashed=hashed, lookup=lookup, ilookup=ilookup)


@case("keras_dropout_noise_training", random=("drop", "sdrop", "gnoise", "adrop"))
def _(C):
    x = C.f(4, 6, 6, 3, name="x")
    return dict(drop=L.Dropout(0.3, seed=1)(x, training=True),
                sdrop=L.SpatialDropout2D(0.3, seed=2)(x, training=True),
                gnoise=L.GaussianNoise(0.1, seed=3)(x, training=True),
                adrop=L.AlphaDropout(0.2, seed=4)(x, training=True),
                drop_off=L.Dropout(0.3)(x, training=False))


@case("keras_masked_lstm_text")
def _(C):
    ids = C.ph(np.array([[3, 5, 2, 0, 0], [7, 1, 0, 0, 0], [4, 4, 4, 4, 9]], np.int32), name="ids")
    e = L.Embedding(10, 6, mask_zero=True, embeddings_initializer=keras.initializers.RandomUniform(-1, 1, seed=41))
    h = e(ids)
    lstm = L.LSTM(4, return_sequences=True, kernel_initializer=keras.initializers.GlorotUniform(seed=42),
                  recurrent_initializer=keras.initializers.Orthogonal(seed=43))(h)
    gru = L.GRU(3, reset_after=False, kernel_initializer=keras.initializers.GlorotUniform(seed=44),
                recurrent_initializer=keras.initializers.Orthogonal(seed=45))(h)
    unrolled = L.SimpleRNN(3, unroll=True, kernel_initializer=keras.initializers.GlorotUniform(seed=46),
                           recurrent_initializer=keras.initializers.Orthogonal(seed=47))(h)
    pooled = L.GlobalAveragePooling1D()(lstm, mask=e.compute_mask(ids))
    _init(C)
    return dict(lstm=lstm, gru=gru, unrolled=unrolled, pooled=pooled)


@case("keras_conv_variants_more")
def _(C):
    x = C.f(2, 10, 10, 4, name="x")
    s = _seeded()
    grouped = L.Conv2D(4, 3, groups=2, padding="same", **s)(x)
    dilated = L.Conv2D(3, 3, dilation_rate=2, padding="same", **s)(x)
    strided = L.Conv2D(3, (3, 2), strides=(2, 3), padding="valid", **s)(x)
    sep1d = L.SeparableConv1D(3, 3, depthwise_initializer=keras.initializers.GlorotUniform(seed=51),
                              pointwise_initializer=keras.initializers.GlorotUniform(seed=52))(C.f(2, 9, 4, name="x1"))
    up_bilinear = L.UpSampling2D(2, interpolation="bilinear")(x)
    lc = L.LocallyConnected1D(2, 3, **s)(C.f(2, 7, 3, name="x2")) if hasattr(L, "LocallyConnected1D") else None
    out = dict(grouped=grouped, dilated=dilated, strided=strided, sep1d=sep1d, up_bilinear=up_bilinear)
    if lc is not None:
        out["local1d"] = lc
    _init(C)
    return out


@case("keras_attention_masks")
def _(C):
    q = C.f(2, 4, 8, name="q")
    v = C.f(2, 6, 8, name="v")
    mask = C.ph(np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]], bool), name="vmask")
    att = L.Attention(use_scale=True, score_mode="dot")
    a = att([q, v], mask=[None, mask])
    causal = L.Attention()([q, q], use_causal_mask=True)
    mha = L.MultiHeadAttention(2, 4, kernel_initializer=keras.initializers.GlorotUniform(seed=61))
    m = mha(q, v, attention_mask=tf.tile(mask[:, None, :], [1, 4, 1]))
    self_causal = L.MultiHeadAttention(2, 4, kernel_initializer=keras.initializers.GlorotUniform(seed=62))(
        q, q, use_causal_mask=True)
    sm = L.Softmax()(tf.matmul(q, v, transpose_b=True), mask=tf.tile(mask[:, None, :], [1, 4, 1]))
    _init(C)
    return dict(att=a, causal=causal, mha=m, self_causal=self_causal, masked_softmax=sm)


@case("keras_norm_variants_train", steps=2)
def _(C):
    x = C.n(8, 5, 5, 4, name="x")
    y = C.i(8, lo=0, hi=2, name="y")
    inp = keras.Input(tensor=x)
    h = L.BatchNormalization(momentum=0.8, center=False)(inp, training=True)
    h = L.BatchNormalization(virtual_batch_size=4)(h, training=True)
    h = L.LayerNormalization(center=False, scale=False)(h)
    h = L.Conv2D(3, 1, **_seeded())(h)
    h = L.BatchNormalization(renorm=True)(h, training=True)
    logits = L.Dense(2, **_seeded())(L.Flatten()(h))
    model = keras.Model(inp, logits)
    loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    # SGD: Adam's m / sqrt(v) turns float32 rounding in near-zero gradients
    # of this chain of normalizations into visible differences (each layer
    # alone matches TensorFlow under Adam too).
    opt = keras.optimizers.legacy.SGD(0.1)
    updates = opt.get_updates(loss, model.trainable_weights)
    C.targets.append(tf.group(*(updates + model.updates), name="train_op"))
    _init(C)
    return dict(loss=loss)


@case("keras_text_vectorization")
def _(C):
    text = C.ph(np.array([b"The cat sat", b"a dog, a CAT!", b"sat"]), name="text")
    tv = L.TextVectorization(output_mode="int", output_sequence_length=4,
                             vocabulary=["the", "cat", "sat", "a", "dog"])
    tv_split = L.TextVectorization(output_mode="int", vocabulary=["cat", "sat", "a"], standardize="lower",
                                   split="whitespace")
    _init(C)
    C.init.append(tf1.tables_initializer())
    return dict(ints=tv(text), ragged_pad=tv_split(text))


@case("keras_mixed_precision_dense")
def _(C):
    x = C.f(4, 6, name="x")
    d = L.Dense(5, dtype=keras.mixed_precision.Policy("mixed_float16"), **_seeded())
    c = L.Conv1D(2, 3, dtype=keras.mixed_precision.Policy("mixed_float16"), **_seeded())
    y = d(x)
    z = c(tf.reshape(x, [4, 6, 1]))
    # 4-D, so Keras writes a FusedBatchNormV3 of half x.
    bn = L.BatchNormalization(dtype=keras.mixed_precision.Policy("mixed_float16"))(
        tf.reshape(z, [4, 2, 2, 2]), training=True)
    _init(C)
    for k in ("y", "z", "bn"):
        C.tol[k] = (2e-3, 2e-3)
    return dict(y=y, z=z, y32=tf.cast(y, tf.float32), bn=bn)


@case("keras_losses_weighted")
def _(C):
    yt = C.f(6, 4, lo=0, hi=1, name="yt")
    logits = C.n(6, 4, name="logits")
    w = C.f(6, lo=0, hi=2, name="w")
    lab = C.i(6, lo=0, hi=4, name="lab")
    kl = keras.losses
    return dict(
        cce_sum=kl.CategoricalCrossentropy(from_logits=True, reduction="sum")(yt, logits, sample_weight=w),
        scce_none=kl.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(lab, logits),
        scce_weighted=kl.SparseCategoricalCrossentropy(from_logits=True)(lab, logits, sample_weight=w),
        bce_focal=kl.BinaryFocalCrossentropy(gamma=2.0, from_logits=True)(yt, logits),
        mse_weighted=kl.MeanSquaredError()(yt, logits, sample_weight=w),
        huber_sum=kl.Huber(reduction="sum_over_batch_size")(yt, logits),
    )


if __name__ == "__main__":
    H.main()
