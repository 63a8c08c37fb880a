#include "tests/graph/all_ops_graph.h"

#include "graph/ops/ops.h"

namespace dflow {

void BuildGraphWithEveryOp(const Scope& root) {
  ActiveScope active(root);
  const Scope s = root;

  // Inputs and constants.
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({8, 32, 32, 3}));
  Output labels = ops::Placeholder(s.WithOpName("labels"), DT_INT32,
                                   ops::PlaceholderAttrs().Shape({8}));
  Output keep =
      ops::PlaceholderWithDefault(s.WithOpName("keep"), 1.0f, TensorShape());
  Output id = ops::Identity(s, x);
  OutputList idn = ops::IdentityN(s, {x, labels});
  ops::NoOp(s.WithOpName("noop").WithControlDependencies(idn[1]));
  Output frozen = ops::StopGradient(s, idn[0]);

  // Variables, both kinds.
  Scope vars = s.NewSubScope("vars");
  Output filter = ops::Variable(vars.WithOpName("filter"),
                                TensorShape({5, 5, 3, 16}), DT_FLOAT);
  Output init = ops::TruncatedNormal(vars, {5, 5, 3, 16}, DT_FLOAT,
                                     ops::RandomAttrs().Seed(1));
  ops::Assign(vars, filter, init);
  Output counter =
      ops::Variable(vars.WithOpName("counter"), TensorShape(), DT_FLOAT);
  ops::AssignAdd(vars, counter, 1.0f);
  ops::AssignSub(vars, counter, 1.0f);
  Output handle =
      ops::VarHandleOp(vars.WithOpName("w"), DT_FLOAT, TensorShape({1024, 10}));
  ops::AssignVariableOp(vars, handle,
                        ops::RandomStandardNormal(vars, {1024, 10}, DT_FLOAT));
  ops::AssignAddVariableOp(vars, handle,
                           ops::RandomUniform(vars, {1024, 10}, DT_FLOAT));
  ops::AssignSubVariableOp(vars, handle, ops::Fill(vars, {1024, 10}, 0.0f));
  ops::VariableShape(vars, handle);
  Output w = ops::ReadVariableOp(vars, handle, DT_FLOAT);

  // Optimizer updates, both variable kinds.
  Scope opt = s.NewSubScope("optimizer");
  Output slot_m = ops::Variable(opt.WithOpName("m"), TensorShape(), DT_FLOAT);
  Output slot_v = ops::Variable(opt.WithOpName("v"), TensorShape(), DT_FLOAT);
  ops::ApplyGradientDescent(opt, counter, 0.1f, 1.0f);
  ops::ApplyMomentum(opt, counter, slot_m, 0.1f, 1.0f, 0.9f,
                     ops::ApplyMomentumAttrs().UseNesterov(true));
  ops::ApplyAdam(opt, counter, slot_m, slot_v, 0.9f, 0.999f, 1e-3f, 0.9f,
                 0.999f, 1e-7f, 1.0f);
  Output accum_handle =
      ops::VarHandleOp(opt.WithOpName("accum"), DT_FLOAT, {1024, 10});
  Output update = ops::Fill(opt, {1024, 10}, 0.5f);
  ops::ResourceApplyGradientDescent(opt, handle, 0.1f, update);
  ops::ResourceApplyMomentum(opt, handle, accum_handle, 0.1f, update, 0.9f);
  ops::ResourceApplyAdam(opt, handle, accum_handle, accum_handle, 0.9f, 0.999f,
                         1e-3f, 0.9f, 0.999f, 1e-7f, update,
                         ops::ResourceApplyAdamAttrs().UseNesterov(true));
  ops::ApplyAdaMax(opt, counter, slot_m, slot_v, 0.9f, 1e-3f, 0.9f, 0.999f,
                   1e-7f, 1.0f);
  ops::ResourceApplyAdaMax(opt, handle, accum_handle, accum_handle, 0.9f, 1e-3f,
                           0.9f, 0.999f, 1e-7f, update);
  ops::ResourceApplyAdamWithAmsgrad(opt, handle, accum_handle, accum_handle,
                                    accum_handle, 0.9f, 0.999f, 1e-3f, 0.9f,
                                    0.999f, 1e-7f, update);

  ops::ApplyAdagrad(opt, counter, slot_m, 0.1f, 1.0f);
  ops::ApplyAdagradV2(opt, counter, slot_m, 0.1f, 1e-7f, 1.0f);
  ops::ApplyRMSProp(opt, counter, slot_m, slot_v, 0.1f, 0.9f, 0.0f, 1e-7f,
                    1.0f);
  ops::ApplyCenteredRMSProp(opt, counter, slot_m, slot_v, slot_v, 0.1f, 0.9f,
                            0.0f, 1e-7f, 1.0f);
  ops::ResourceApplyAdagrad(opt, handle, accum_handle, 0.1f, update);
  ops::ResourceApplyAdagradV2(opt, handle, accum_handle, 0.1f, 1e-7f, update);
  ops::ResourceApplyRMSProp(opt, handle, accum_handle, accum_handle, 0.1f, 0.9f,
                            0.0f, 1e-7f, update);
  ops::ResourceApplyCenteredRMSProp(opt, handle, accum_handle, accum_handle,
                                    accum_handle, 0.1f, 0.9f, 0.0f, 1e-7f,
                                    update);
  // Sparse updates and row access of an embedding table, both kinds.
  Output table =
      ops::Variable(opt.WithOpName("table"), TensorShape({1024, 10}), DT_FLOAT);
  Output table_slot = ops::Variable(opt.WithOpName("table_slot"),
                                    TensorShape({1024, 10}), DT_FLOAT);
  Output table_slot2 = ops::Variable(opt.WithOpName("table_slot2"),
                                     TensorShape({1024, 10}), DT_FLOAT);
  Output rows = ops::Const(opt, Tensor::FromVector<int32_t>({0, 3}));
  Output row_grad = ops::Fill(opt, {2, 10}, 0.5f);
  Output row_grad_dense = ops::Fill(opt, {1024, 10}, 0.5f);
  ops::SparseApplyAdagrad(opt, table, table_slot, 0.1f, row_grad, rows);
  ops::SparseApplyMomentum(opt, table, table_slot, 0.1f, row_grad, rows, 0.9f);
  ops::SparseApplyRMSProp(opt, table, table_slot, table_slot2, 0.1f, 0.9f, 0.0f,
                          1e-7f, row_grad, rows);
  ops::ResourceSparseApplyAdagrad(opt, handle, accum_handle, 0.1f, row_grad,
                                  rows);
  ops::ResourceSparseApplyMomentum(opt, handle, accum_handle, 0.1f, row_grad,
                                   rows, 0.9f);
  ops::ResourceApplyKerasMomentum(opt, handle, accum_handle, 0.1f, update,
                                  0.9f);
  ops::ResourceSparseApplyKerasMomentum(opt, handle, accum_handle, 0.1f,
                                        row_grad, rows, 0.9f);
  ops::ResourceSparseApplyRMSProp(opt, handle, accum_handle, accum_handle, 0.1f,
                                  0.9f, 0.0f, 1e-7f, row_grad, rows);
  ops::SparseApplyCenteredRMSProp(opt, table, table_slot, table_slot2,
                                  table_slot2, 0.1f, 0.9f, 0.0f, 1e-7f,
                                  row_grad, rows);
  ops::ResourceSparseApplyCenteredRMSProp(opt, handle, accum_handle,
                                          accum_handle, accum_handle, 0.1f,
                                          0.9f, 0.0f, 1e-7f, row_grad, rows);
  for (const char* op : {"SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2"}) {
    const bool ref = op[0] == 'S';
    OpBuilder(opt, op)
        .Input(ref ? table : handle)
        .Input(ref ? table_slot : accum_handle)
        .Input(0.1f)
        .Input(1e-7f)
        .Input(row_grad)
        .Input(rows)
        .Finalize();
  }
  // The regularized optimizers, each in its four forms.
  Output step = ops::Const(opt, Tensor::Scalar<int64_t>(3));
  ops::ApplyAdadelta(opt, table, table_slot, table_slot2, 1.0f, 0.95f, 1e-7f,
                     row_grad_dense);
  ops::ResourceApplyAdadelta(opt, handle, accum_handle, accum_handle, 1.0f,
                             0.95f, 1e-7f, update);
  ops::SparseApplyAdadelta(opt, table, table_slot, table_slot2, 1.0f, 0.95f,
                           1e-7f, row_grad, rows);
  ops::ResourceSparseApplyAdadelta(opt, handle, accum_handle, accum_handle,
                                   1.0f, 0.95f, 1e-7f, row_grad, rows);
  ops::ApplyFtrl(opt, table, table_slot, table_slot2, row_grad_dense, 0.1f,
                 0.01f, 0.01f, -0.5f);
  ops::ResourceApplyFtrl(opt, handle, accum_handle, accum_handle, update, 0.1f,
                         0.01f, 0.01f, -0.5f);
  ops::SparseApplyFtrl(opt, table, table_slot, table_slot2, row_grad, rows,
                       0.1f, 0.01f, 0.01f, -0.5f);
  ops::ResourceSparseApplyFtrl(opt, handle, accum_handle, accum_handle,
                               row_grad, rows, 0.1f, 0.01f, 0.01f, -0.5f);
  ops::ApplyFtrlV2(opt, table, table_slot, table_slot2, row_grad_dense, 0.1f,
                   0.01f, 0.01f, 0.1f, -0.5f);
  ops::ResourceApplyFtrlV2(
      opt, handle, accum_handle, accum_handle, update, 0.1f, 0.01f, 0.01f,
      0.1f, -0.5f, ops::ApplyRegularizedAttrs().MultiplyLinearByLr(true));
  ops::SparseApplyFtrlV2(opt, table, table_slot, table_slot2, row_grad, rows,
                         0.1f, 0.01f, 0.01f, 0.1f, -0.5f);
  ops::ResourceSparseApplyFtrlV2(opt, handle, accum_handle, accum_handle,
                                 row_grad, rows, 0.1f, 0.01f, 0.01f, 0.1f,
                                 -0.5f);
  ops::ApplyProximalAdagrad(opt, table, table_slot, 0.1f, 0.01f, 0.01f,
                            row_grad_dense);
  ops::ResourceApplyProximalAdagrad(opt, handle, accum_handle, 0.1f, 0.01f,
                                    0.01f, update);
  ops::SparseApplyProximalAdagrad(opt, table, table_slot, 0.1f, 0.01f, 0.01f,
                                  row_grad, rows);
  ops::ResourceSparseApplyProximalAdagrad(opt, handle, accum_handle, 0.1f,
                                          0.01f, 0.01f, row_grad, rows);
  ops::ApplyProximalGradientDescent(opt, table, 0.1f, 0.01f, 0.01f,
                                    row_grad_dense);
  ops::ResourceApplyProximalGradientDescent(opt, handle, 0.1f, 0.01f, 0.01f,
                                            update);
  ops::SparseApplyProximalGradientDescent(opt, table, 0.1f, 0.01f, 0.01f,
                                          row_grad, rows);
  ops::ResourceSparseApplyProximalGradientDescent(opt, handle, 0.1f, 0.01f,
                                                  0.01f, row_grad, rows);
  ops::ApplyAdagradDA(opt, table, table_slot, table_slot2, row_grad_dense,
                      0.1f, 0.01f, 0.01f, step);
  ops::ResourceApplyAdagradDA(opt, handle, accum_handle, accum_handle, update,
                              0.1f, 0.01f, 0.01f, step);
  ops::SparseApplyAdagradDA(opt, table, table_slot, table_slot2, row_grad,
                            rows, 0.1f, 0.01f, 0.01f, step);
  ops::ResourceSparseApplyAdagradDA(opt, handle, accum_handle, accum_handle,
                                    row_grad, rows, 0.1f, 0.01f, 0.01f, step);
  ops::ResourceGather(opt, handle, rows, DT_FLOAT);
  // Snapshot, EnsureShape, Empty, MulNoNan and a SparseTensor's ops.
  Output snap = ops::Snapshot(opt, row_grad);
  Output ensured = ops::EnsureShape(opt, snap, TensorShape({-1, 10}));
  ops::MulNoNan(opt, ensured, row_grad);
  ops::Empty(opt, ops::Const(opt, Tensor::FromVector<int32_t>({2, 3})),
             DT_FLOAT, /*init=*/true);
  Output sp_indices = ops::Const(
      opt, Tensor::FromVector<int64_t>({0, 1, 2, 0}, TensorShape({2, 2})));
  Output sp_shape = ops::Const(opt, Tensor::FromVector<int64_t>({4, 3}));
  Output sp_values = ops::Const(opt, Tensor::FromVector<float>({1, 2}));
  ops::SparseToDense(opt, sp_indices, sp_shape, sp_values, 0.0f);
  ops::SparseReshape(opt, sp_indices, sp_shape,
                     ops::Const(opt, Tensor::FromVector<int64_t>({-1, 2})));
  ops::SparseFillEmptyRows(opt, sp_indices, sp_values, sp_shape, 0.0f);
  ops::ResourceScatterAdd(opt, handle, rows, row_grad);
  ops::ResourceScatterSub(opt, handle, rows, row_grad);
  ops::ResourceScatterUpdate(opt, handle, rows, row_grad);
  ops::ScatterAdd(opt, table, rows, row_grad);
  ops::ScatterSub(opt, table, rows, row_grad);
  ops::ScatterUpdate(opt, table, rows, row_grad);
  ops::ScatterMul(opt, table, rows, row_grad);
  ops::ScatterDiv(opt, table, rows, row_grad);
  ops::ScatterMax(opt, table, rows, row_grad);
  ops::ScatterMin(opt, table, rows, row_grad);
  ops::ResourceScatterMul(opt, handle, rows, row_grad);
  ops::ResourceScatterDiv(opt, handle, rows, row_grad);
  ops::ResourceScatterMax(opt, handle, rows, row_grad);
  ops::ResourceScatterMin(opt, handle, rows, row_grad);
  Output tuples = ops::Const(opt, Tensor::FromVector<int32_t>(
                                      {0, 1, 3, 2}, TensorShape({2, 2})));
  Output tuple_values = ops::Const(opt, Tensor::FromVector<float>({1, 2}));
  ops::ScatterNdUpdate(opt, table, tuples, tuple_values);
  ops::ScatterNdAdd(opt, table, tuples, tuple_values);
  ops::ScatterNdSub(opt, table, tuples, tuple_values,
                    ops::ScatterNdAttrs().BadIndicesPolicy("IGNORE"));
  ops::ResourceScatterNdUpdate(opt, handle, tuples, tuple_values);
  ops::ResourceScatterNdAdd(opt, handle, tuples, tuple_values);
  ops::ResourceScatterNdSub(opt, handle, tuples, tuple_values);
  ops::ResourceGatherNd(opt, handle, tuples, DT_FLOAT);
  Output slice_begin = ops::Const(opt, Tensor::FromVector<int32_t>({1}));
  Output slice_end = ops::Const(opt, Tensor::FromVector<int32_t>({3}));
  Output slice_strides = ops::Const(opt, Tensor::FromVector<int32_t>({1}));
  ops::StridedSliceAssign(opt, table, slice_begin, slice_end, slice_strides,
                          row_grad);
  ops::ResourceStridedSliceAssign(opt, handle, slice_begin, slice_end,
                                  slice_strides, row_grad);
  ops::IsVariableInitialized(opt, table);
  ops::VarIsInitializedOp(opt, handle);
  Output epochs =
      ops::Variable(opt.WithOpName("epochs"), TensorShape({}), DT_INT64);
  ops::CountUpTo(opt, epochs, 10);
  Output counter_handle = ops::VarHandleOp(opt.WithOpName("counter_handle"),
                                           DT_INT64, TensorShape({}));
  ops::ResourceCountUpTo(opt, counter_handle, 10, DT_INT64);

  // Summaries.
  Scope summaries = s.NewSubScope("summaries");
  Output scalar_sum =
      ops::ScalarSummary(summaries, Tensor::Scalar("loss"), 1.0f);
  Output histo_sum = ops::HistogramSummary(summaries, Tensor::Scalar("w"), w);
  ops::MergeSummary(summaries, {scalar_sum, histo_sum});

  // Batch normalization, every version, and its gradients.
  Scope bn = s.NewSubScope("batch_norm");
  Output bn_x = ops::Fill(bn, {2, 4, 4, 3}, 1.0f);
  Output bn_c = ops::Fill(bn, {3}, 1.0f);
  OutputList bn3 = ops::FusedBatchNormV3(bn, bn_x, bn_c, bn_c, bn_c, bn_c);
  ops::FusedBatchNormGradV3(bn, bn_x, bn_x, bn_c, bn3[3], bn3[4], bn3[5]);
  OutputList bn2 = ops::FusedBatchNormV2(bn, bn_x, bn_c, bn_c, bn_c, bn_c);
  ops::FusedBatchNormGradV2(bn, bn_x, bn_x, bn_c, bn2[3], bn2[4]);
  OutputList bn1 = ops::FusedBatchNorm(bn, bn_x, bn_c, bn_c, bn_c, bn_c);
  ops::FusedBatchNormGrad(bn, bn_x, bn_x, bn_c, bn1[3], bn1[4]);

  // CIFAR-10-style convolutional layers.
  Scope conv = s.NewSubScope("conv");
  Output c = ops::Conv2D(conv, frozen, filter, {1, 1, 1, 1}, "SAME");
  Tensor zeros(DT_FLOAT, TensorShape({16}));
  for (float& v : zeros.flat<float>()) v = 0.0f;
  Output bias = ops::Const(conv, zeros);
  Output relu = ops::Relu(conv, ops::BiasAdd(conv, c, bias));
  // What compiler/fuse_bias_activation.h makes of the three on a CPU.
  OpBuilder(conv, "_FusedConv2D")
      .Input(frozen)
      .Input(filter)
      .Input(bias)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("activation", "Relu")
      .Finalize();
  Output pool = ops::MaxPool(conv, relu, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  Output norm = ops::LRN(conv, pool, ops::LRNAttrs());
  Output avg = ops::AvgPool(conv, norm, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");

  // Backward ops as gradients will use them.
  Scope back = s.NewSubScope("backward");
  Output g_norm = ops::LRNGrad(back, norm, pool, norm);
  Output g_pool = ops::MaxPoolGrad(back, relu, pool, g_norm, {1, 3, 3, 1},
                                   {1, 2, 2, 1}, "SAME");
  ops::AvgPoolGrad(back, ops::Shape(back, norm), avg, {1, 2, 2, 1},
                   {1, 2, 2, 1}, "VALID");
  Output g_relu = ops::ReluGrad(back, g_pool, relu);
  ops::BiasAddGrad(back, g_relu);
  ops::Conv2DBackpropInput(back, ops::Shape(back, x), filter, g_relu,
                           {1, 1, 1, 1}, "SAME");
  ops::Conv2DBackpropFilter(back, x, {5, 5, 3, 16}, g_relu, {1, 1, 1, 1},
                            "SAME");
  // Depthwise convolution (MobileNet-style), 2 filters per channel.
  Output dw_filter = ops::Fill(conv, {3, 3, 3, 2}, 0.5f);
  Output dw = ops::DepthwiseConv2dNative(conv, x, dw_filter, {1, 2, 2, 1},
                                         "SAME");
  ops::DepthwiseConv2dNativeBackpropInput(back, ops::Shape(back, x),
                                          dw_filter, dw, {1, 2, 2, 1}, "SAME");
  ops::DepthwiseConv2dNativeBackpropFilter(back, x, {3, 3, 3, 2}, dw,
                                           {1, 2, 2, 1}, "SAME");
  // Atrous (dilated) convolution as TensorFlow writes it.
  Output no_pads = ops::Const(conv, {0, 0, 0, 0}, {2, 2});
  Output atrous = ops::SpaceToBatchND(conv, x, {2, 2}, no_pads);
  ops::BatchToSpaceND(conv, atrous, {2, 2}, no_pads);
  Output to_depth = ops::SpaceToDepth(conv, x, 2);
  ops::DepthToSpace(conv, to_depth, 2);
  ops::MaxPoolWithArgmaxOutputs pooled_at =
      ops::MaxPoolWithArgmax(conv, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  ops::MaxPoolGradWithArgmax(back, x, pooled_at.output, pooled_at.argmax,
                             {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  // 3-D pooling of a volume and its gradients.
  Output volume = ops::Reshape(conv, x, {8, 4, 8, 32, 3});
  Output max3d = ops::MaxPool3D(conv, volume, {1, 2, 2, 2, 1},
                                {1, 2, 2, 2, 1}, "SAME");
  Output avg3d = ops::AvgPool3D(conv, volume, {1, 2, 2, 2, 1},
                                {1, 2, 2, 2, 1}, "VALID");
  ops::MaxPool3DGrad(back, volume, max3d, max3d, {1, 2, 2, 2, 1},
                     {1, 2, 2, 2, 1}, "SAME");
  ops::AvgPool3DGrad(back, ops::Shape(back, volume), avg3d, {1, 2, 2, 2, 1},
                     {1, 2, 2, 2, 1}, "VALID");
  // 3-D convolution and its gradients.
  Output filter3d = ops::Fill(conv, {3, 3, 3, 3, 4}, 0.25f);
  Output conv3d = ops::Conv3D(conv, volume, filter3d, {1, 1, 2, 2, 1}, "SAME");
  ops::Conv3DBackpropInputV2(back, ops::Shape(back, volume), filter3d, conv3d,
                             {1, 1, 2, 2, 1}, "SAME");
  ops::Conv3DBackpropFilterV2(back, volume, {3, 3, 3, 3, 4}, conv3d,
                              {1, 1, 2, 2, 1}, "SAME");
  // Bicubic and area resizing, color spaces.
  Output bicubic = ops::ResizeBicubic(
      conv, x, {48, 40}, ops::ResizeAttrs().HalfPixelCenters(true));
  ops::ResizeBicubicGrad(back, bicubic, x,
                         ops::ResizeAttrs().HalfPixelCenters(true));
  ops::ResizeArea(conv, x, {16, 16});
  Output hsv = ops::RGBToHSV(conv, x);
  ops::HSVToRGB(conv, hsv);
  ops::AdjustHue(conv, x, 0.25f);
  ops::AdjustSaturation(conv, x, 1.5f);
  // Box crops (as Faster R-CNN's ROI pooling) and image patches.
  Output boxes = ops::Const(conv, {0.1f, 0.2f, 0.8f, 0.9f}, {1, 4});
  Output box_ind = ops::Const(conv, {3}, {1});
  Output crops = ops::CropAndResize(conv, x, boxes, box_ind, {7, 7});
  ops::CropAndResizeGradImage(back, crops, boxes, box_ind, {8, 32, 32, 3},
                              DT_FLOAT);
  ops::ExtractImagePatches(conv, x, {1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1},
                           "SAME");

  // Fully connected part and losses.
  Scope fc = s.NewSubScope("fc");
  Output flat = ops::Reshape(fc, avg, {8, -1});
  Output logits = ops::MatMul(fc, flat, w);
  Output probs = ops::Softmax(fc, logits);
  Output log_probs = ops::LogSoftmax(fc, logits);
  ops::SparseSoftmaxCrossEntropyWithLogits(fc, logits, labels);
  Output onehot = ops::OneHot(fc, labels, 10, 1.0f, 0.0f);
  ops::SoftmaxCrossEntropyWithLogits(fc, logits, onehot);
  Output l2 = ops::L2Loss(fc, w);
  Output sig = ops::Sigmoid(fc, logits);
  Output tanh = ops::Tanh(fc, logits);
  ops::SigmoidGrad(fc, sig, probs);
  ops::TanhGrad(fc, tanh, probs);

  // Math.
  Scope m = s.NewSubScope("math");
  Output a = ops::Add(m, probs, log_probs);
  Output b = ops::AddV2(m, a, keep);
  Output sum = ops::AddN(m, {a, b, probs});
  Output d = ops::Sub(m, sum, ops::Mul(m, b, 2.0f));
  Output e =
      ops::RealDiv(m, ops::Neg(m, d), ops::Square(m, ops::Sqrt(m, probs)));
  Output f = ops::Maximum(m, ops::Exp(m, e), ops::Log(m, probs));
  Output g = ops::Minimum(m, ops::Rsqrt(m, f), ops::Pow(m, f, 2.0f));
  Output h = ops::SquaredDifference(m, g, f) + l2 * counter - keep / 3.0f;
  Output mean = ops::Mean(m, h, {0, 1});
  ops::Sum(m, h, {1}, ops::ReductionAttrs().KeepDims(true));
  ops::Max(m, h, {0});
  ops::Min(m, h, {1});
  ops::Prod(m, h, {1});
  ops::Cumsum(m, h, 1, ops::ScanAttrs().Exclusive(true));
  ops::Cumprod(m, h, 0, ops::ScanAttrs().Reverse(true));
  Output pred = ops::ArgMax(m, h, 1);
  ops::ArgMin(m, h, 1, ops::ArgMaxAttrs().OutputType(DT_INT32));
  ops::BatchMatMul(m, h, h, ops::BatchMatMulAttrs().AdjX(true));
  ops::BatchMatMulV2(m, h, h, ops::BatchMatMulAttrs().AdjY(true));
  ops::BatchMatMulV3(m, h, h, DT_FLOAT, ops::BatchMatMulAttrs().AdjY(true));
  ops::ClipByValue(m, h, 0.0f, 1.0f);
  Output correct = ops::Equal(m, ops::Cast(m, pred, DT_INT32), labels);
  ops::Less(m, h, f);
  ops::Greater(m, mean, 0.5f);
  ops::Cast(m, correct, DT_FLOAT);
  ops::MatMul(m, h, h, ops::MatMulAttrs().TransposeB(true));

  // Images (x is [8, 32, 32, 3]) and tf.image's random crop offsets.
  Scope img = s.NewSubScope("image");
  Output resized = ops::ResizeBilinear(img, x, {24, 24});
  ops::ResizeBilinearGrad(img, resized, x,
                          ops::ResizeAttrs().HalfPixelCenters(true));
  ops::AdjustContrastv2(img, x, 1.5f);
  Output nearest = ops::ResizeNearestNeighbor(img, x, {64, 64});
  ops::ResizeNearestNeighborGrad(img, nearest, {32, 32},
                                 ops::ResizeAttrs().AlignCorners(true));
  ops::RandomUniformInt(img, {3}, 0, 9, ops::RandomAttrs().Seed(2));
  AddImageOpsToEveryOpGraph(s, x);

  // Shapes and slicing.
  Scope a_s = s.NewSubScope("array");
  Output shape = ops::Shape(a_s, h);
  ops::Size(a_s, h);
  ops::Rank(a_s, h);
  Output halves_axis = ops::Const(a_s, 0);
  OutputList halves = ops::Split(a_s, halves_axis, h, 2);
  OutputList parts = ops::SplitV(a_s, h, {3, 5}, 0, 2);
  Output joined =
      ops::ConcatV2(a_s, {halves[0], halves[1], parts[0], parts[1]}, 0);
  Output expanded = ops::ExpandDims(a_s, joined, 0);
  ops::Squeeze(a_s, expanded, ops::SqueezeAttrs().Axis({0}));
  ops::Transpose(a_s, joined, {1, 0});
  ops::Fill(a_s, shape, 0.5f);
  ops::ZerosLike(a_s, h);
  ops::OnesLike(a_s, h);
  ops::Tile(a_s, h, {2, 1});
  ops::ReverseV2(a_s, h, {1});
  ops::ReverseSequence(
      a_s, h, ops::Const(a_s, Tensor::FromVector<int64_t>({2, 1, 0, 10, 3, 4, 5, 6})),
      1);
  ops::Einsum(a_s, {h, ops::Transpose(a_s, h, {1, 0})}, "ij,jk->ik");
  Output packed = ops::Pack(a_s, {h, g});
  ops::Unpack(a_s, packed, 2);
  ops::Slice(a_s, h, {0, 0}, {4, -1});
  Output strided = ops::StridedSlice(a_s, h, {1, 0}, {7, 10}, {2, 1});
  ops::StridedSliceGrad(a_s, shape, {1, 0}, {7, 10}, {2, 1}, strided);
  ops::Pad(a_s, h, ops::Const(a_s, {1, 1, 0, 2}, {2, 2}));
  ops::PadV2(a_s, h, ops::Const(a_s, {1, 1, 0, 2}, {2, 2}), -1.0f);
  Output mirrored =
      ops::MirrorPad(a_s, h, ops::Const(a_s, {1, 1, 0, 2}, {2, 2}), "REFLECT");
  ops::MirrorPadGrad(a_s, mirrored, ops::Const(a_s, {1, 1, 0, 2}, {2, 2}),
                     "REFLECT");
  ops::ConcatOffset(a_s, 0, {shape, shape});
  ops::InvertPermutation(a_s, {1, 0});
  ops::Range(a_s, 0, 10, 1);
  ops::BroadcastGradientArgs(a_s, shape, {1, 10});

  // The element-wise math and activations beyond the core set.
  Scope sm = s.NewSubScope("special");
  for (auto unary : {ops::Abs, ops::Sign, ops::Sin, ops::Cos, ops::Tan,
                     ops::Asin, ops::Acos, ops::Atan, ops::Sinh, ops::Cosh,
                     ops::Asinh, ops::Acosh, ops::Atanh, ops::Log1p,
                     ops::Expm1, ops::Reciprocal, ops::Inv, ops::Round,
                     ops::Rint, ops::Ceil, ops::Erf, ops::Erfc, ops::Lgamma,
                     ops::Digamma, ops::IsFinite, ops::IsNan, ops::IsInf,
                     ops::Softplus, ops::Softsign, ops::Relu6, ops::Elu,
                     ops::Selu}) {
    unary(sm, h);
  }
  for (auto binary : {ops::RsqrtGrad, ops::SqrtGrad, ops::ReciprocalGrad,
                      ops::SoftplusGrad, ops::SoftsignGrad, ops::Relu6Grad,
                      ops::EluGrad, ops::SeluGrad}) {
    binary(sm, h, h);
  }
  ops::LeakyRelu(sm, h, 0.3f);
  Output eye = ops::MatrixDiagV3(sm, ops::Const(sm, {1.0f, 1.0f, 1.0f}), 0, -1,
                                 -1, 0.0f);
  ops::MatrixDiagPartV3(sm, eye, 0, 0.0f);
  ops::LeakyReluGrad(sm, h, h, 0.3f);

  // Floor division, logic, selection.
  Scope lg = s.NewSubScope("logic");
  Output fl = ops::Floor(lg, h);
  ops::FloorDiv(lg, h, fl);
  ops::FloorMod(lg, h, 3.0f);
  ops::DivNoNan(lg, h, fl);
  Output ge = ops::GreaterEqual(lg, h, f);
  Output le = ops::LessEqual(lg, h, f);
  Output ne = ops::NotEqual(lg, h, f);
  Output both = ops::LogicalAnd(lg, ge, ops::LogicalNot(lg, le));
  ops::LogicalOr(lg, both, ne);
  ops::Select(lg, both, h, f);
  ops::SelectV2(lg, ops::Greater(lg, mean, 0.5f), h, 0.0f);

  // Truncating division, x*log(y) forms, tf.bitwise (math_ops.h), matrix
  // bands (array_ops.h), CheckNumerics and linear algebra (linalg_ops.h).
  Scope mx = s.NewSubScope("more_math");
  ops::TruncateDiv(mx, h, fl);
  ops::TruncateMod(mx, h, fl);
  ops::Xdivy(mx, h, f);
  ops::Xlogy(mx, h, f);
  ops::Xlog1py(mx, h, f);
  ops::Atan2(mx, h, f);
  ops::NextAfter(mx, h, f);
  ops::ApproximateEqual(mx, h, f, 1e-4f);
  Output bits = ops::Const(mx, {5, 12, -7});
  for (auto bitwise : {ops::BitwiseAnd, ops::BitwiseOr, ops::BitwiseXor,
                       ops::LeftShift, ops::RightShift}) {
    bitwise(mx, bits, ops::Const(mx, 2));
  }
  ops::Invert(mx, bits);
  Output band = ops::MatrixBandPart(mx, h, 1, -1);
  ops::MatrixSetDiagV3(mx, band, ops::MatrixDiagPartV3(mx, band, 0, 0.0f), 0);
  Output gram = ops::MatMul(mx, h, h, ops::MatMulAttrs().TransposeB(true));
  Output chol = ops::Cholesky(mx, gram);
  ops::MatrixInverse(mx, gram, ops::MatrixInverseAttrs().Adjoint(true));
  ops::MatrixDeterminant(mx, gram);
  ops::LogMatrixDeterminant(mx, gram);
  ops::MatrixSolve(mx, gram, h);
  ops::MatrixTriangularSolve(mx, chol, h,
                             ops::MatrixTriangularSolveAttrs().Adjoint(true));
  Output vectors = ops::Const(mx, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3});
  ops::Cross(mx, vectors, vectors);
  ops::CheckNumerics(mx, h, "h has NaN or Inf");
  ops::BiasAddV1(mx, h, ops::Mean(mx, h, {0}));

  // Checkpoint ops (graph/ops/io_ops.h).
  Scope io = s.NewSubScope("io");
  Output prefix = ops::Const(io, "/tmp/model");
  Output names =
      ops::Const(io, Tensor::FromVector<std::string>({"h"}, TensorShape({1})));
  Output slices =
      ops::Const(io, Tensor::FromVector<std::string>({""}, TensorShape({1})));
  ops::SaveV2(io, prefix, names, slices, {h});
  ops::RestoreV2(io, prefix, names, slices, {DT_FLOAT});
  Output shard = ops::ShardedFilename(io, prefix, 0, 2);
  ops::StringJoin(io, {prefix, shard}, "_");
  OpBuilder(io, "ShardedFilespec").Input(prefix).Input(2).Finalize();
  OpBuilder(io, "MergeV2Checkpoints").Input(names).Input(prefix).Finalize();

  AddInputPipelineOpsToEveryOpGraph(s, h);

  // Conditionals (graph/ops/control_flow_ops.h). If and StatelessIf name
  // library functions, and _ToBool is their lowering's helper: see
  // tests/runtime/tf_cond_test and all_ops_roundtrip_test.
  Scope cf = s.NewSubScope("control_flow");
  Output branch = ops::Const(cf, true);
  Operation sw = OpBuilder(cf, "Switch").Input(h).Input(branch).Finalize();
  OpBuilder(cf, "Merge").InputList({sw.output(0), sw.output(1)}).Finalize();
  Operation ref_sw =
      OpBuilder(cf, "RefSwitch").Input(counter).Input(branch).Finalize();
  OpBuilder(cf, "RefMerge")
      .InputList({ref_sw.output(0), ref_sw.output(1)})
      .Finalize();
  // Loop primitives, unconnected as a loop (this graph is never run; see
  // tests/runtime/tf_loops_test for loops that run).
  Operation enter =
      OpBuilder(cf, "Enter").Input(h).Attr("frame_name", "loop").Finalize();
  OpBuilder(cf, "Exit").Input(enter.output(0)).Finalize();
  OpBuilder(cf, "NextIteration").Input(enter.output(0)).Finalize();
  OpBuilder(cf, "LoopCond").Input(branch).Finalize();
  Operation ref_enter = OpBuilder(cf, "RefEnter")
                            .Input(counter)
                            .Attr("frame_name", "loop")
                            .Attr("is_constant", true)
                            .Finalize();
  OpBuilder(cf, "RefExit").Input(ref_enter.output(0)).Finalize();
  OpBuilder(cf, "RefNextIteration").Input(ref_enter.output(0)).Finalize();
  OpBuilder(cf, "ControlTrigger").Finalize();

  AddLoopAccumulatorsToEveryOpGraph(s, h);

  // Index ops.
  Scope ix = s.NewSubScope("index");
  Output ids = ops::Const(ix, {0, 2, 1});
  Output gathered = ops::GatherV2(ix, h, ids, 0);
  ops::Gather(ix, h, ids);
  ops::UnsortedSegmentSum(ix, gathered, ids, 3);
  ops::DynamicStitch(ix, {ids, ops::Const(ix, {3, 4})},
                     {gathered, ops::Slice(ix, h, {0, 0}, {2, -1})});
  ops::Unique(ix, labels);
  ops::Where(ix, both);
  ops::TopKV2(ix, h, 3);
  ops::InTopKV2(ix, h, labels, 5);
  ops::BroadcastTo(ix, mean, {2, 3});
  Output pairs = ops::Const(
      ix, Tensor::FromVector<int32_t>({0, 1, 2, 3}, TensorShape({2, 2})));
  ops::GatherNd(ix, h, pairs);
  ops::ScatterNd(ix, pairs, ops::Const(ix, {1.0f, 2.0f}), {8, 10});
  ops::ListDiff(ix, labels, ids, ops::ListDiffAttrs().OutIdx(DT_INT64));
  ops::BroadcastArgs(ix, shape, ops::Const(ix, {1, 10}));
  // Segment reductions, partition / stitch, tensor scatters, Roll.
  Output sorted_ids = ops::Const(ix, {0, 0, 1});
  ops::SegmentSum(ix, gathered, sorted_ids);
  ops::SegmentMean(ix, gathered, sorted_ids);
  ops::SegmentMax(ix, gathered, sorted_ids);
  ops::SegmentMin(ix, gathered, sorted_ids);
  ops::SegmentProd(ix, gathered, sorted_ids);
  ops::UnsortedSegmentMax(ix, gathered, ids, 3);
  ops::UnsortedSegmentMin(ix, gathered, ids, 3);
  ops::UnsortedSegmentProd(ix, gathered, ids, 3);
  ops::SparseSegmentSum(ix, h, ids, sorted_ids);
  ops::SparseSegmentMean(ix, h, ids, sorted_ids);
  ops::SparseSegmentSqrtN(ix, h, ids, sorted_ids);
  ops::SparseSegmentSumWithNumSegments(ix, h, ids, sorted_ids, 4);
  ops::SparseSegmentMeanWithNumSegments(ix, h, ids, sorted_ids, 4);
  ops::SparseSegmentSqrtNWithNumSegments(ix, h, ids, sorted_ids, 4);
  ops::SparseSegmentSumGrad(ix, gathered, ids, sorted_ids, 8);
  ops::SparseSegmentMeanGrad(ix, gathered, ids, sorted_ids, 8);
  ops::SparseSegmentSqrtNGrad(ix, gathered, ids, sorted_ids, 8);
  OutputList partitioned = ops::DynamicPartition(ix, gathered, ids, 3);
  ops::ParallelDynamicStitch(ix, {ids}, {gathered});
  Output scatter_rows = ops::Const(
      ix, Tensor::FromVector<int32_t>({1, 4}, TensorShape({2, 1})));
  Output row_updates = ops::Slice(ix, h, {0, 0}, {2, -1});
  ops::TensorScatterUpdate(ix, h, scatter_rows, row_updates);
  ops::TensorScatterAdd(ix, h, scatter_rows, row_updates);
  ops::TensorScatterSub(ix, h, scatter_rows, row_updates);
  ops::TensorScatterMax(ix, h, scatter_rows, row_updates);
  ops::TensorScatterMin(ix, h, scatter_rows, partitioned[0]);
  ops::Roll(ix, h, {1, -2}, {0, 1});
  ops::ShapeN(ix, {h, f});
  ops::PreventGradient(ix, h, "no second derivative");
  ops::Assert(ix, ops::Greater(ix, mean, 0.0f), {mean, shape});
  ops::StaticRegexFullMatch(ix, ops::Const(ix, "s3://bucket"), "^s3://.*");
  ops::StringLength(ix, ops::Const(ix, "s3://bucket"));
  ops::UniqueWithCounts(ix, ids);
  ops::LowerBound(ix, ops::Const(ix, {1, 3, 5}), ids);
  ops::Bucketize(ix, ids, {0.5f, 2.0f});
  ops::UpperBound(ix, ops::Const(ix, {1, 3, 5}), ids);
  ops::Print(ix, ids, {ids}, "ids: ");
  ops::Diag(ix, ids);
  ops::DiagPart(ix, ops::Diag(ix, ids));
  ops::Erfinv(ix, ops::Const(ix, {0.5f}));
  ops::Ndtri(ix, ops::Const(ix, {0.5f}));
  ops::EuclideanNorm(ix, h, ops::Const(ix, {1}));
  // Feature-pipeline strings and a vocabulary table.
  Output words = ops::Const(
      ix, Tensor::FromVector<std::string>({" a b ", "C,d"}, TensorShape({2})));
  Output upper = ops::StringUpper(ix, ops::StringLower(ix, words));
  Output piece = ops::Substr(ix, ops::StringStrip(ix, upper),
                             ops::Const(ix, 0), ops::Const(ix, 1));
  ops::ReduceJoin(ix, piece, ops::Const(ix, 0), false, ",");
  ops::RegexReplace(ix, ops::StaticRegexReplace(ix, words, "[a-z]", "x"),
                    ops::Const(ix, ","), ops::Const(ix, ";"));
  ops::StringSplit(ix, words, ops::Const(ix, ","));
  ops::StringSplitOutputs split =
      ops::StringSplitV2(ix, words, ops::Const(ix, ""));
  Output numbers = ops::StringToNumber(
      ix, ops::AsString(ix, ops::Const(ix, {1.5f, 2.0f})), DT_DOUBLE);
  ops::DecodeBase64(ix, ops::EncodeBase64(ix, split.values, true));
  ops::StringToHashBucketFast(ix, words, 100);
  ops::StringToHashBucketStrong(ix, words, 100, {1, 2});
  ops::StringToHashBucket(ix, words, 100);
  ops::Fingerprint(ix, words, ops::Const(ix, "farmhash64"));
  Output vocabulary = ops::HashTableV2(ix, DT_STRING, DT_DOUBLE);
  ops::InitializeTableV2(ix, vocabulary, words, numbers);
  ops::LookupTableImportV2(ix, vocabulary, words, numbers);
  ops::InitializeTableFromTextFileV2(ix, vocabulary,
                                     ops::Const(ix, "/tmp/vocabulary.txt"), 0, 1);
  ops::LookupTableFindV2(ix, vocabulary, split.values, ops::Const(ix, -1.0));
  ops::LookupTableSizeV2(ix, vocabulary);
  Output counts = ops::MutableHashTableV2(ix, DT_STRING, DT_INT64);
  ops::LookupTableInsertV2(ix, counts, words,
                           ops::Cast(ix, ops::StringLength(ix, words), DT_INT64));
  ops::LookupTableRemoveV2(ix, counts, ops::Const(ix, "unseen"));
  ops::LookupTableExportV2(ix, counts, DT_STRING, DT_INT64);
  Output embeddings =
      ops::MutableHashTableOfTensorsV2(ix, DT_INT64, DT_FLOAT, TensorShape({2}));
  ops::LookupTableFindV2(ix, embeddings, ops::Const(ix, {int64_t{3}}),
                         ops::Const(ix, {0.0f, 0.0f}));
  ops::MutableDenseHashTableV2(ix, ops::Const(ix, int64_t{-1}),
                               ops::Const(ix, int64_t{-2}), DT_FLOAT);
  ops::PrintV2(ix, ops::StringFormat(ix, {h}, "h = {}"));
  ops::KeyCounter kc = ops::StatelessRandomGetKeyCounter(
      ix, ops::Const(ix, {int64_t{1}, int64_t{2}}));
  for (auto* fn :
       {&ops::StatelessRandomUniformV2, &ops::StatelessRandomNormalV2,
        &ops::StatelessTruncatedNormalV2}) {
    fn(ix, {2, 3}, kc.key, kc.counter, 3, DT_FLOAT);
  }

  // Collectives (groups of one or two members: the graph is never run).
  Scope coll = s.NewSubScope("collective");
  ops::CollectiveAllReduce(coll, probs, 1, 1, 1, "mean");
  ops::CollectiveAllGather(coll, probs, 1, 1, 2);
  ops::CollectiveBroadcastSend(coll, probs, 2, 1, 3);
  ops::CollectiveBroadcastRecv(coll, DT_FLOAT, {8, 10}, 2, 1, 3);

  BuildTextAndCtcOps(s);
  BuildComplexAndSignalOps(s);
  BuildRandomSamplingOps(s);
  BuildLinalgAndSpecialOps(s);
  BuildMiscOps(s);
  BuildDatasetOps(s);
  BuildSummaryOps(s);
  BuildQuantizationOps(s);
  BuildParsingAndFileOps(s);
  BuildSparseAndSetOps(s);
  (void)id;
}

}  // namespace dflow
