# probe_round3_ops.py: the probe behind round 3's op checks (issue #36,
# docs/robustness.md "Round 3: serving, samplers and op checks"). It calls
# ops that take sample, length, offset, index, per-channel or shape-bearing
# tensors with wrong ones, each call in a forked child, against the
# PyTorch of /usr/bin/python3 (1.13.1, the libtorch GoTorch builds on), and
# prints per call: "error: ..." (refused), "accepted" (ran: harmless, or a
# silent out-of-bounds access) or "CRASH signal N". The "@large" cases
# repeat some accepted ones at sizes where an out-of-bounds read faults.
#
#   /usr/bin/python3 internal/robustness/testdata/probe_round3_ops.py [case ...]
import os, sys, math, signal
import torch
A = torch.ops.aten
def T(*s, dt=torch.float32): return torch.rand(*s, dtype=dt)
def L(vals): return torch.tensor(vals, dtype=torch.long)
x4 = lambda: torch.rand(2, 3, 8, 8)
x5 = lambda: torch.rand(2, 3, 6, 6, 6)
cases = {
 # fractional max pool: random_samples
 "fmp2d.empty_batch": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.rand(0,3,2)),
 "fmp2d.one_plane": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.rand(2,1,2)),
 "fmp2d.one_sample": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.rand(2,3,1)),
 "fmp2d.big": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.full((2,3,2),1e9)),
 "fmp2d.neg": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.full((2,3,2),-1e9)),
 "fmp2d.nan": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.full((2,3,2),float('nan'))),
 "fmp2d.one": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.full((2,3,2),1.0)),
 "fmp2d.1d": lambda: A.fractional_max_pool2d(x4(), [2,2], [4,4], torch.rand(12)),
 "fmp3d.one_plane": lambda: A.fractional_max_pool3d(x5(), [2,2,2], [3,3,3], torch.rand(2,1,3)),
 "fmp3d.empty_batch": lambda: A.fractional_max_pool3d(x5(), [2,2,2], [3,3,3], torch.rand(0,3,3)),
 "fmp3d.big": lambda: A.fractional_max_pool3d(x5(), [2,2,2], [3,3,3], torch.full((2,3,3),1e9)),
 "fmp3d.nan": lambda: A.fractional_max_pool3d(x5(), [2,2,2], [3,3,3], torch.full((2,3,3),float('nan'))),
 # embedding bag offsets
 "ebag.off0": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([1,2]), False, 0, False, None, False, -1),
 "ebag.offbig": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,9]), False, 0, False, None, False, -1),
 "ebag.offneg": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,-5]), False, 0, False, None, False, -1),
 "ebag.offdec": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,3,1]), False, 0, False, None, False, -1),
 "ebag.offbig.max": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,9]), False, 2, False, None, False, -1),
 "ebag.offbig.mean": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,9]), False, 1, False, None, False, -1),
 "ebag.last.big": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,2,9]), False, 0, False, None, True, -1),
 "ebag.idx": lambda: A._embedding_bag(T(10,3), L([1,2,30,4]), L([0,2]), False, 0, False, None, False, -1),
 "ebag.psw": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,2]), False, 0, False, T(2), False, -1),
 "ebag.fwdonly.offbig": lambda: A._embedding_bag_forward_only(T(10,3), L([1,2,3,4]), L([0,9]), False, 0, False, None, False, -1),
 "ebag.pad": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,2]), False, 0, False, None, False, 100),
 "ebag.sparse.offbig": lambda: A._embedding_bag(T(10,3), L([1,2,3,4]), L([0,9]), True, 0, False, None, False, -1),
 # LU pivots
 "lu_unpack.zero": lambda: A.lu_unpack(T(3,3), torch.zeros(3, dtype=torch.int32)),
 "lu_unpack.big": lambda: A.lu_unpack(T(3,3), torch.tensor([100,2,3], dtype=torch.int32)),
 "lu_unpack.neg": lambda: A.lu_unpack(T(3,3), torch.tensor([-7,2,3], dtype=torch.int32)),
 "lu_unpack.short": lambda: A.lu_unpack(T(3,3), torch.tensor([1], dtype=torch.int32)),
 "lu_solve.big": lambda: A.linalg_lu_solve(T(3,3), torch.tensor([100,2,3], dtype=torch.int32), T(3,2)),
 "lu_solve.zero": lambda: A.linalg_lu_solve(T(3,3), torch.zeros(3, dtype=torch.int32), T(3,2)),
 "lu_solve.neg": lambda: A.linalg_lu_solve(T(3,3), torch.tensor([-100000,2,3], dtype=torch.int32), T(3,2)),
 "lu_solve_old.big": lambda: A.lu_solve(T(3,2), T(3,3), torch.tensor([100,2,3], dtype=torch.int32)),
 "lu_solve.adj.big": lambda: A.linalg_lu_solve(T(3,3), torch.tensor([100,2,3], dtype=torch.int32), T(3,2), left=True, adjoint=True),
 # packed sequences
 "pad_packed.big": lambda: A._pad_packed_sequence(T(5,2), L([3,9]), False, 0.0, 0),
 "pad_packed.zero": lambda: A._pad_packed_sequence(T(5,2), L([0,5]), False, 0.0, 0),
 "pad_packed.neg": lambda: A._pad_packed_sequence(T(5,2), L([3,-2]), False, 0.0, 0),
 "pad_packed.inc": lambda: A._pad_packed_sequence(T(5,2), L([2,3]), False, 0.0, 0),
 "pad_packed.sumbig": lambda: A._pad_packed_sequence(T(2,2), L([3,3]), False, 0.0, 0),
 "pad_packed.empty": lambda: A._pad_packed_sequence(T(5,2), L([]), False, 0.0, 0),
 "pack_bw.big": lambda: A._pack_padded_sequence_backward(T(5,2), [3,2,2], L([3,9]), False),
 "pack_bw.sumbig": lambda: A._pack_padded_sequence_backward(T(2,2), [3,2,2], L([2,2,2]), False),
 "pack_bw.neg": lambda: A._pack_padded_sequence_backward(T(5,2), [3,2,2], L([3,-2]), False),
 # unpool
 "unpool2d.big": lambda: A.max_unpool2d(T(1,1,2,2), L([[[[0,1],[2,1000]]]]), [4,4]),
 "unpool3d.big": lambda: A.max_unpool3d(T(1,1,1,2,2), L([[[[[0,1],[2,1000]]]]]), [2,2,2], [1,1,1], [0,0,0]),
 # masked softmax
 "msoft.mask_small": lambda: A._masked_softmax(T(2,3,4), torch.ones(1, dtype=torch.bool), None, None),
 "msoft.mask_small2": lambda: A._masked_softmax(T(2,3,4), torch.ones(2,1, dtype=torch.bool), 1, 0),
 "msoft.type1": lambda: A._masked_softmax(T(2,3,4,4), torch.ones(1,1, dtype=torch.bool), 3, 1),
 "msoft.type2": lambda: A._masked_softmax(T(2,3,4,4), torch.ones(1, dtype=torch.bool), 3, 2),
 "msoft.bw": lambda: A._masked_softmax_backward(T(2,3,4), T(2,3,4), torch.ones(1, dtype=torch.bool), None),
 "msoft.bw2": lambda: A._masked_softmax_backward(T(2,3,4), T(1), torch.ones(2,3,4, dtype=torch.bool), None),
 # nested
 "nested.view": lambda: A._nested_view_from_buffer(T(4), L([[10,10]]), L([[10,1]]), [0]),
 "nested.view.off": lambda: A._nested_view_from_buffer(T(4), L([[2]]), L([[1]]), [1000]),
 "nested.mask": lambda: A._nested_tensor_from_mask(T(2,3,4), torch.ones(5,7, dtype=torch.bool), True),
 "nested.mask_nocheck": lambda: A._nested_tensor_from_mask(T(2,3,4), torch.ones(5,7, dtype=torch.bool), False),
 "nested.from_padded": lambda: A._nested_from_padded(T(2,3,4), L([[100,4],[2,4]]), False),
 # rrelu
 "rrelu.noise_small": lambda: A.rrelu_with_noise(T(100), T(2), 0.1, 0.3, True),
 "rrelu.noise_small_": lambda: A.rrelu_with_noise_(T(100), T(2), 0.1, 0.3, True),
 "rrelu.bw": lambda: A.rrelu_with_noise_backward(T(100), T(100), T(2), 0.1, 0.3, True, False),
 # dropout masks
 "dropout_bw.mask": lambda: A.native_dropout_backward(T(100), torch.ones(2, dtype=torch.bool), 2.0),
 "masked_scale": lambda: A._masked_scale(T(100), torch.ones(2, dtype=torch.uint8), 2.0),
 # norms with trusted sizes
 "gn.N": lambda: A.native_group_norm(T(2,4,3), None, None, 20, 4, 3, 2, 1e-5),
 "gn.HxW": lambda: A.native_group_norm(T(2,4,3), None, None, 2, 4, 300, 2, 1e-5),
 "gn.C": lambda: A.native_group_norm(T(2,4,3), None, None, 2, 40, 3, 2, 1e-5),
 "gn.group0": lambda: A.native_group_norm(T(2,4,3), None, None, 2, 4, 3, 0, 1e-5),
 "gn.bw": lambda: A.native_group_norm_backward(T(2,4,3), T(2,4,3), T(1), T(1), None, 2, 4, 3, 2, [True,True,True]),
 "gn.bw.N": lambda: A.native_group_norm_backward(T(2,4,3), T(2,4,3), T(2,2), T(2,2), None, 20, 4, 3, 2, [True,True,True]),
 "ln.bw": lambda: A.native_layer_norm_backward(T(2,4), T(2,4), [4], T(1), T(1), None, None, [True,True,True]),
 "bn.w": lambda: A.native_batch_norm(T(2,4,3), T(1), T(1), None, None, True, 0.1, 1e-5),
 "bn.rm": lambda: A.native_batch_norm(T(2,4,3), None, None, T(1), T(1), False, 0.1, 1e-5),
 "bn.rm_train": lambda: A.native_batch_norm(T(2,4,3), None, None, T(1), T(1), True, 0.1, 1e-5),
 "bn.bw": lambda: A.native_batch_norm_backward(T(2,4,3), T(2,4,3), None, None, None, T(1), T(1), True, 1e-5, [True,True,True]),
 "bn.bw.eval": lambda: A.native_batch_norm_backward(T(2,4,3), T(2,4,3), T(1), T(1), T(1), None, None, False, 1e-5, [True,True,True]),
 "bn.gather": lambda: A.batch_norm_gather_stats_with_counts(T(2,4,3), T(2,4), T(2,4), None, None, 0.1, 1e-5, T(7)),
 "bn.stats": lambda: A.batch_norm_stats(T(2,4,3), 1e-5),
 "bn.elemt": lambda: A.batch_norm_elemt(T(2,4,3), None, None, T(1), T(1), 1e-5),
 "bn.bw_reduce": lambda: A.batch_norm_backward_reduce(T(2,4,3), T(2,4,3), T(1), T(1), None, True, True, True),
 "bn.bw_elemt": lambda: A.batch_norm_backward_elemt(T(2,4,3), T(2,4,3), T(1), T(1), None, T(1), T(1), torch.ones(1, dtype=torch.int32)),
 "bn.update": lambda: A.batch_norm_update_stats(T(2,4,3), T(1), T(1), 0.1),
 "bn._update": lambda: A._native_batch_norm_legit(T(2,4,3), None, None, T(1), T(1), True, 0.1, 1e-5),
 "inorm": lambda: A.instance_norm(T(2,4,3), None, None, T(1), T(1), True, 0.1, 1e-5, False),
 # weight norm
 "wn.bw": lambda: A._weight_norm_interface_backward(T(4,3), T(4,3), T(4,1), T(1), 0),
 "wn.fw": lambda: A._weight_norm_interface(T(4,3), T(1), 0),
 "wn.dim": lambda: A._weight_norm_interface(T(4,3), T(4,1), 5),
 # losses
 "mlml.target": lambda: A.multilabel_margin_loss(T(2,3), L([[5,0,-1],[0,1,2]]), 1),
 "mlml.target_neg": lambda: A.multilabel_margin_loss(T(2,3), L([[-5,0,-1],[0,1,2]]), 1),
 "mlml.bw.istarget": lambda: A.multilabel_margin_loss_backward(T(2,3), T(2,3), L([[0,1,-1],[0,1,2]]), 0, T(1)),
 "mmlos.target": lambda: A.multi_margin_loss(T(2,3), L([5,0]), 1, 1, None, 1),
 "mmlos.weight": lambda: A.multi_margin_loss(T(2,3), L([1,0]), 1, 1, T(1), 1),
 "mmlos.bw": lambda: A.multi_margin_loss_backward(T(2,3), T(2,3), L([9,0]), 1, 1, None, 1),
 "nll.target": lambda: A.nll_loss(T(2,3), L([9,0]), None, 1, -100),
 "nll.weight": lambda: A.nll_loss(T(2,3), L([1,0]), T(1), 1, -100),
 "nll2d.target": lambda: A.nll_loss2d(T(2,3,2,2), torch.full((2,2,2),9,dtype=torch.long), None, 1, -100),
 "nll.fw.total_weight": lambda: A.nll_loss_backward(T(1), T(2,3), L([1,0]), None, 1, -100, T(5)),
 # quantization
 "fq.pc.scale": lambda: A.fake_quantize_per_channel_affine(T(4,3), T(1), torch.zeros(1, dtype=torch.int32), 0, 0, 255),
 "fq.pc.axis": lambda: A.fake_quantize_per_channel_affine(T(4,3), T(4), torch.zeros(4, dtype=torch.int32), 7, 0, 255),
 "fq.lpc.scale": lambda: A._fake_quantize_learnable_per_channel_affine(T(4,3), T(1), T(1), 0, 0, 255, 1.0),
 "fq.pt.tensor": lambda: A._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(T(4,3), T(0), torch.zeros(0, dtype=torch.int32), torch.ones(1,dtype=torch.long), 0, 255),
 "fq.obs": lambda: A._fused_moving_avg_obs_fq_helper(T(4,3), torch.ones(1,dtype=torch.long), torch.ones(1,dtype=torch.long), T(0), T(0), T(0), torch.zeros(0,dtype=torch.int32), 0.1, 0, 255, 0, True, False),
 "fq.obs.pc": lambda: A._fused_moving_avg_obs_fq_helper(T(4,3), torch.ones(1,dtype=torch.long), torch.ones(1,dtype=torch.long), T(1), T(1), T(1), torch.zeros(1,dtype=torch.int32), 0.1, 0, 255, 0, True, False),
 "q.pc": lambda: A.quantize_per_channel(T(4,3), T(1), torch.zeros(1,dtype=torch.long), 0, torch.quint8),
 "q.mkpc": lambda: A._make_per_channel_quantized_tensor(torch.zeros(4,3,dtype=torch.uint8), T(1, dt=torch.float64), torch.zeros(1,dtype=torch.long), 0),
 # misc index-ish
 "spdiags.off": lambda: A._spdiags(T(2,3), L([0,0]), [3,3], None),
 "spdiags.offbig": lambda: A._spdiags(T(2,3), L([0,100]), [3,3], None),
 "spdiags.short": lambda: A._spdiags(T(2,3), L([0]), [3,3], None),
 "rowwise_prune": lambda: A._rowwise_prune(T(4,3), torch.ones(1,dtype=torch.bool), torch.int32),
 "cummax_helper": lambda: A._cummax_helper(T(10), T(1), torch.zeros(1,dtype=torch.long), 0),
 "cummin_helper": lambda: A._cummin_helper(T(10), T(1), torch.zeros(1,dtype=torch.long), 0),
 "cummaxmin_bw": lambda: A.cummaxmin_backward(T(10), T(10), L([100]*10), 0),
 "vsr_bw": lambda: A.value_selecting_reduction_backward(T(2), 0, L([100,0]), [3,2], False),
 "compute_lin": lambda: A._compute_linear_combination(T(3,4), T(1,1)),
 "compute_lin2": lambda: A._compute_linear_combination(T(3,4), T(2,9)),
 "histdd.bin_cts": lambda: A._histogramdd_from_bin_cts(T(10,2), [2,2], None, None, False),
 "histdd.bin_tensors": lambda: A._histogramdd_from_bin_tensors(T(10,2), [torch.tensor([0.,1.]), torch.tensor([1.,0.])]),
 "histogram.bins_dec": lambda: A.histogram(T(10), torch.tensor([1.,0.5,0.])),
 "bincount.w": lambda: A.bincount(L([1,2,3]), T(1), 0),
 "index_put.unsafe": lambda: A._index_put_impl_(T(4), [L([100])], T(1), False, True),
 "index_put.unsafe.acc": lambda: A._index_put_impl_(T(4), [L([100])], T(1), True, True),
 "put": lambda: A.put(T(4), L([100]), T(1), True),
 "chshuf0": lambda: A.native_channel_shuffle(T(2,4,3), 0),
 "chshuf3": lambda: A.native_channel_shuffle(T(2,4,3), 3),
 "pixshuf0": lambda: A.pixel_shuffle(T(2,4,3,3), 0),
 "pixunshuf0": lambda: A.pixel_unshuffle(T(2,4,3,3), 0),
 "bilinear": lambda: A._trilinear(T(2,3), T(2,3), T(2,3), [1], [1], [1], [0], 0),
 "tbrq": lambda: A._transform_bias_rescale_qkv(T(2,3,12), T(12), 5),
 "tbrq0": lambda: A._transform_bias_rescale_qkv(T(2,3,12), T(12), 0),
 "tbrq.bias": lambda: A._transform_bias_rescale_qkv(T(2,3,12), T(1), 2),
 "mha": lambda: A._native_multi_head_attention(T(2,3,8), T(2,3,8), T(2,3,8), 8, 2, T(24,8), T(24), T(8,8), T(8), torch.ones(1,1,dtype=torch.bool)),
 "mha.heads0": lambda: A._native_multi_head_attention(T(2,3,8), T(2,3,8), T(2,3,8), 8, 0, T(24,8), T(24), T(8,8), T(8)),
 "mha.wsmall": lambda: A._native_multi_head_attention(T(2,3,8), T(2,3,8), T(2,3,8), 8, 2, T(2,8), T(2), T(8,8), T(8)),
 "tel": lambda: A._transformer_encoder_layer_fwd(T(2,3,8), 8, 2, T(24,8), T(24), T(8,8), T(8), False, False, 1e-5, T(8), T(8), T(8), T(8), T(16,8), T(16), T(8,16), T(8), torch.ones(1,dtype=torch.bool)),
 "sdpa.mask": lambda: A._scaled_dot_product_attention(T(2,3,4), T(2,3,4), T(2,3,4), torch.ones(5,7,dtype=torch.bool)),
 "slowconv.bw": lambda: A._slow_conv2d_backward(T(1,2,1,1), T(1,3,5,5), T(2,3,3,3), [3,3], [1,1], [0,0], [True,True,True]),
 "slowconv3d.bw": lambda: torch.ops.aten.slow_conv3d_forward(T(1,3,5,5,5), T(2,3,3,3,3), [3,3,3], None, [1,1,1], [0,0,0]),
 "convdil.bw": lambda: torch.autograd.grad(A.slow_conv_dilated2d(T(1,3,5,5,).requires_grad_(), T(2,3,3,3), [3,3]).sum(), []) ,
 "conv_tbc": lambda: A.conv_tbc(T(5,2,3), T(3,3,4), T(1), 1),
 "conv_tbc.bw": lambda: A.conv_tbc_backward(T(1,1,1), T(5,2,3), T(3,3,4), T(4), 1),
 "im2col.bw": lambda: A.im2col_backward(T(1,27,4), [5,5], [3,3], [1,1], [0,0], [1,1]),
 "col2im": lambda: A.col2im(T(1,27,4), [5,5], [3,3], [1,1], [0,0], [1,1]),
 "upsample.bw": lambda: A.upsample_nearest2d_backward(T(1,1,2,2), [4,4], [1,1,2,2]),
 "upsample.bl.bw": lambda: A.upsample_bilinear2d_backward(T(1,1,2,2), [4,4], [1,1,2,2], False),
 "avgpool.bw": lambda: A.avg_pool2d_backward(T(1,1,1,1), T(1,1,8,8), [2,2], [2,2], [0,0], False, True, None),
 "adaptavg.bw": lambda: A._adaptive_avg_pool2d_backward(T(1,1,1,1), T(1,1,8,8)),
 "adaptavg3.bw": lambda: A._adaptive_avg_pool3d_backward(T(1,1,1,1,1), T(1,1,8,8,8)),
 "reflpad.bw": lambda: A.reflection_pad2d_backward(T(1,1,1,1), T(1,1,4,4), [1,1,1,1]),
 "replpad.bw": lambda: A.replication_pad2d_backward(T(1,1,1,1), T(1,1,4,4), [1,1,1,1]),
 "replpad3.bw": lambda: A.replication_pad3d_backward(T(1,1,1,1,1), T(1,1,4,4,4), [1,1,1,1,1,1]),
 "grid.bw": lambda: A.grid_sampler_2d_backward(T(1,1,1,1), T(1,1,4,4), T(1,3,3,2), 0, 0, False, [True,True]),
 "grid3.bw": lambda: A.grid_sampler_3d_backward(T(1,1,1,1,1), T(1,1,4,4,4), T(1,3,3,3,3), 0, 0, False, [True,True]),
 "maxpool2d.bw.shape": lambda: A.max_pool2d_backward(T(1,1,1,1), T(1,1,8,8), [2,2], [2,2], [0,0], [1,1], False) if hasattr(A,'max_pool2d_backward') else None,
 "glu.bw": lambda: A.glu_backward(T(1), T(4,6), 1),
 "hardtanh.bw": lambda: A.hardtanh_backward(T(1), T(4,6), -1, 1),
 "softplus.bw": lambda: A.softplus_backward(T(1), T(4,6), 1, 20),
 "logsig.bw": lambda: A.log_sigmoid_backward(T(1), T(4,6), T(1)),
 "logsoftmax.bw": lambda: A._log_softmax_backward_data(T(1), T(4,6), 1, torch.float32),
 "softmax.bw": lambda: A._softmax_backward_data(T(1), T(4,6), 1, torch.float32),
 "logsoftmax.bw2": lambda: A._log_softmax_backward_data(T(4,6), T(4,1), 1, torch.float32),
 "softmax.bw2": lambda: A._softmax_backward_data(T(4,6), T(4,1), 1, torch.float32),
 "embdense.bw": lambda: A.embedding_dense_backward(T(3,4), L([1,2,3,4,5]), 10, -1, False),
 "ebag.dense.bw.shape": lambda: A._embedding_bag_dense_backward(T(1,3), L([1,2]), L([0,0]), L([2]), 10, False, 0, None, -1),
 "ctc.lengths": lambda: A.ctc_loss(T(5,2,4).log_softmax(2), L([[1,2],[1,2]]), L([9,5]), L([2,2]), 0, 0, False),
 "cdist.fw": lambda: A._cdist_forward(T(3,2), T(4,5), 2.0, None),
 "pdist.fw": lambda: A._pdist_forward(T(3,2), -1.0),
 "fft.c2r": lambda: A._fft_c2r(torch.rand(4,3,dtype=torch.complex64), [1], 0, 100),
 "fft.c2r0": lambda: A._fft_c2r(torch.rand(4,3,dtype=torch.complex64), [1], 0, 0),
 "stft": lambda: A.stft(T(10), 100, None, None, None, False, None, True),
 "unique_dim": lambda: A.unique_dim(T(0,3), 5),
 "take_along": lambda: A.take_along_dim(T(3,3), L([[9]]), 0),
 "segment.len": lambda: A.segment_reduce(T(5), "sum", lengths=L([3,9])),
 "searchsorted.sorter": lambda: A.searchsorted(T(5), T(3), sorter=L([9,0,1,2,3])),
 "sparse_mask": lambda: A.sparse_mask(T(3,3), torch.sparse_coo_tensor(L([[0],[0]]), T(1), (3,3))),
 "sparse.coo": lambda: torch.sparse_coo_tensor(L([[9],[0]]), T(1), (3,3), check_invariants=False).to_dense(),
 "tensor.set_": lambda: T(4).set_(torch.FloatTensor(4).untyped_storage() if hasattr(torch.Tensor,'untyped_storage') else torch.FloatTensor(4).storage(), 100, [4], [1]),
 "as_strided": lambda: T(4).as_strided([4], [100]).sum(),
 "unfold.bw": lambda: A.unfold_backward(T(1), [10], 0, 3, 1),
 "diag.bw": lambda: A.diagonal_backward(T(100), [3,3], 0, 0, 1),
 "select.bw": lambda: A.select_backward(T(3), [3,3], 0, 100),
 "slice.bw": lambda: A.slice_backward(T(3,3), [3,3], 0, 0, 100, 1),
 "index_select.bw": lambda: A.index_select_backward(T(2,3), [3,3], 0, L([100,0])),
 "gather.bw": lambda: A.gather_backward(T(2,3), T(3,3), 0, L([[100,0,0],[0,0,0]]), False),
 "mvlgamma": lambda: A.mvlgamma(T(3)+5, 0),
 "polygamma": lambda: A.polygamma(-1, T(3)),
 "kthvalue": lambda: A.kthvalue(T(3), 100),
 "topk": lambda: A.topk(T(3), 100),
 "multinomial": lambda: A.multinomial(T(3), 100, False),
 "randperm": lambda: A.randperm(-1),
 "tril_idx": lambda: A.tril_indices(-1, 3),
 "fold.bw": lambda: A.im2col(T(1,3,2,2), [3,3], [1,1], [0,0], [1,1]),
 "linear_bw": lambda: A.linear_backward(T(2,3), T(2,5), T(3,3), [True,True,True]),
 "mkl_linear": None,
 "lstm_cell.bw": lambda: A._thnn_differentiable_lstm_cell_backward(T(2,3), T(2,3), T(2,12), T(2,12), T(12), T(12), T(2,3), T(2,3)),
 "gru_cell.bw": lambda: A._thnn_differentiable_gru_cell_backward(T(2,3), T(2,9), T(2,9), T(2,3), T(9), T(9)),
 "ldl_factor": lambda: A.linalg_ldl_factor(T(3,3)),
 "householder": lambda: A.linalg_householder_product(T(3,2), T(5)),
 "ormqr": lambda: A.ormqr(T(3,2), T(5), T(3,3), True, False),
 "lu_factor.solve.batch": lambda: A.linalg_lu_solve(T(2,3,3), torch.ones(1,3,dtype=torch.int32), T(2,3,2)),
 "segment.offsets": lambda: A.segment_reduce(T(5), "sum", offsets=L([0,9])),
 "renorm": lambda: A.embedding_renorm_(T(4,3), L([100]), 1.0, 2.0),
 "embedding.idx": lambda: A.embedding(T(4,3), L([100])),
 "bucketize": lambda: A.bucketize(T(3), torch.tensor([3.,2.,1.])),
 "nonzero_static": None,
}
big = 1 << 22
large = {
 "fmp2d.one_plane.big": lambda: A.fractional_max_pool2d(torch.rand(1, 4096, 64, 64), [2,2], [32,32], torch.rand(1,1,2)),
 "fmp2d.big": lambda: A.fractional_max_pool2d(torch.rand(1,1,64,64), [2,2], [32,32], torch.full((1,1,2),1e9)),
 "fmp2d.neg": lambda: A.fractional_max_pool2d(torch.rand(1,1,64,64), [2,2], [32,32], torch.full((1,1,2),-1e9)),
 "fmp2d.nan": lambda: A.fractional_max_pool2d(torch.rand(1,1,64,64), [2,2], [32,32], torch.full((1,1,2),float('nan'))).sum(),
 "bn.w": lambda: A.native_batch_norm(T(2,big,1), T(1), T(1), None, None, True, 0.1, 1e-5),
 "bn.rm": lambda: A.native_batch_norm(T(2,big,1), None, None, T(1), T(1), False, 0.1, 1e-5),
 "bn.rm_train": lambda: A.native_batch_norm(T(2,big,1), None, None, T(1), T(1), True, 0.1, 1e-5),
 "bn.bw": lambda: A.native_batch_norm_backward(T(2,big,1), T(2,big,1), None, None, None, T(1), T(1), True, 1e-5, [True,True,True]),
 "bn.update": lambda: A.batch_norm_update_stats(T(2,big,1), T(1), T(1), 0.1),
 "wn.fw": lambda: A._weight_norm_interface(T(big,1), T(1), 0),
 "wn.bw": lambda: A._weight_norm_interface_backward(T(big,1), T(big,1), T(1), T(1), 0),
 "mmlos.weight": lambda: A.multi_margin_loss(T(2,big), L([1,0]), 1, 1, T(1), 1),
 "fq.obs": lambda: A._fused_moving_avg_obs_fq_helper(T(4,3), torch.ones(1,dtype=torch.long), torch.ones(1,dtype=torch.long), T(0), T(0), T(0), torch.zeros(0,dtype=torch.int32), 0.1, 0, 255, 0, True, False),
 "fq.obs.pc": lambda: A._fused_moving_avg_obs_fq_helper(T(big,1), torch.ones(1,dtype=torch.long), torch.ones(1,dtype=torch.long), T(1), T(1), T(1), torch.zeros(1,dtype=torch.int32), 0.1, 0, 255, 0, True, True),
 "q.mkpc": lambda: A._make_per_channel_quantized_tensor(torch.zeros(big,1,dtype=torch.uint8), T(1, dt=torch.float64), torch.zeros(1,dtype=torch.long), 0).dequantize(),
 "cummax_helper": lambda: A._cummax_helper(T(big), T(1), torch.zeros(1,dtype=torch.long), 0),
 "compute_lin": lambda: A._compute_linear_combination(T(big), T(1,1)),
 "compute_lin2": lambda: A._compute_linear_combination(T(3,4), T(1000,big//64)),
 "grid.bw": lambda: A.grid_sampler_2d_backward(T(1,1,1,1), T(1,1,4,4), T(1,1024,1024,2), 0, 0, False, [True,True]),
 "logsoftmax.bw2": lambda: A._log_softmax_backward_data(T(big,6), T(1,1), 1, torch.float32),
 "msoft.bw2": lambda: A._masked_softmax_backward(T(big,4), T(1), torch.ones(big,4, dtype=torch.bool), None),
 "fft.c2r": lambda: A._fft_c2r(torch.rand(4,3,dtype=torch.complex64), [1], 0, big),
 "fft.c2r0": lambda: A._fft_c2r(torch.rand(4,3,dtype=torch.complex64), [1], 0, 0),
 "replpad3.bw": lambda: A.replication_pad3d_backward(T(1,1,1,1,1), T(1,1,128,128,128), [1,1,1,1,1,1]),
 "chshuf3": lambda: A.native_channel_shuffle(T(2,big,1), 3),
 "chshuf.big": lambda: A.native_channel_shuffle(T(2,4,1), 1000),
 "chshuf.nonnative0": lambda: A.channel_shuffle(T(2,4,3), 0),
 "tbrq.bias": lambda: A._transform_bias_rescale_qkv(T(2,3,3*4096), T(1), 2),
 "tel0": lambda: A._transformer_encoder_layer_fwd(T(2,3,8), 8, 0, T(24,8), T(24), T(8,8), T(8), False, False, 1e-5, T(8), T(8), T(8), T(8), T(16,8), T(16), T(8,16), T(8)),
 "pad_packed.neg": lambda: A._pad_packed_sequence(T(5,2), L([3,-2]), False, 0.0, 0),
 "bw_elemt_gn": lambda: A.native_group_norm_backward(T(2,4,3), T(2,4,3), T(2,2), T(2,2), None, 2, 4, 3, 2, [True,True,True]),
 "rrelu_fn": lambda: A.rrelu_with_noise_functional(T(100), T(2), 0.1, 0.3, True) if hasattr(A, "rrelu_with_noise_functional") else "none",
 "rrelu_eval": lambda: A.rrelu_with_noise(T(100), T(2), 0.1, 0.3, False),
 "histc": lambda: A.histc(T(10), -1, 0, 1),
}
cases.update({k + "@large": v for k, v in large.items()})

which = sys.argv[1:] or [k for k,v in cases.items() if v is not None]
for name in which:
    fn = cases[name]
    if fn is None: continue
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = fn()
            msg = "accepted"
        except Exception as e:
            msg = "error: " + type(e).__name__ + ": " + str(e).split("\n")[0][:150]
        os.write(w, msg.encode()); os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk: break
        data += chunk
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        res = "CRASH signal %d" % os.WTERMSIG(status)
    else:
        res = data.decode() or ("exit %d" % os.WEXITSTATUS(status))
    print("%-24s %s" % (name, res), flush=True)
