package ops

import (
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// Structural and nn ops the conformance table showed untyped (issue 11,
// c11ops): padding backward, upsampling 1d, rot90, masked indexing, group
// norm backward, adaptive max pooling, im2col, losses. Schemas are PyTorch
// 2.15's; the layouts follow torch/_meta_registrations.py and
// torch/_decomp/decompositions.py and were checked against make_fx's fake
// tensors.
func c11opsTable() []Entry {
	n := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindNN, Meta: meta} }
	// Pointwise ops and loss gradients: the operands broadcast and promote.
	pwe := func(schema string, operands ...string) Entry {
		return Entry{Schema: schema, Kind: KindPointwise, Meta: pw(PromoteDefault, operands...)}
	}
	s := func(schema string, rule selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindShape, Meta: selfRule(rule)}
	}
	return []Entry{
		s("reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor", metaPadLast),
		s("replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor", metaPadLast),
		n("reflection_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor", newLike("self")),
		n("reflection_pad2d_backward(Tensor grad_output, Tensor self, SymInt[4] padding) -> Tensor", newLike("self")),
		n("reflection_pad3d_backward(Tensor grad_output, Tensor self, SymInt[6] padding) -> Tensor", newLike("self")),
		n("replication_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor", newLike("self")),
		n("replication_pad2d_backward(Tensor grad_output, Tensor self, SymInt[4] padding) -> Tensor", newLike("self")),
		n("replication_pad3d_backward(Tensor grad_output, Tensor self, SymInt[6] padding) -> Tensor", newLike("self")),
		n("native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)", metaGroupNormBackward),
		n("upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor", metaUpsample),
		n("upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("_upsample_nearest_exact3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, float? scales=None) -> Tensor", metaUpsample),
		n("upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_nearest1d_backward(Tensor grad_output, SymInt[1] output_size, SymInt[3] input_size, float? scales=None) -> Tensor", metaUpsampleBackward),
		n("upsample_nearest2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("upsample_nearest3d_backward(Tensor grad_output, SymInt[3] output_size, SymInt[5] input_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("_upsample_nearest_exact1d_backward(Tensor grad_output, SymInt[1] output_size, SymInt[3] input_size, float? scales=None) -> Tensor", metaUpsampleBackward),
		n("_upsample_nearest_exact2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("_upsample_nearest_exact3d_backward(Tensor grad_output, SymInt[3] output_size, SymInt[5] input_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("upsample_linear1d_backward(Tensor grad_output, SymInt[1] output_size, SymInt[3] input_size, bool align_corners, float? scales=None) -> Tensor", metaUpsampleBackward),
		s("rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor", metaRot90),
		n("_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim, int unroll_dim=1) -> Tensor", metaTrilinear),
		{Schema: "_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaMaskedIndex)},
		{Schema: "_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaIndexPut)},
		{Schema: "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor", Kind: KindIndexing, Meta: selfRule(metaIndexLike)},
		{Schema: "index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)", Kind: KindIndexing, Meta: selfRule(metaIndexLike)},
		n("smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor", metaMSELoss),
		n("huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor", metaMSELoss),
		n("soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", metaMSELoss),
		n("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor", metaMSELoss),
		n("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> Tensor", metaMSELoss),
		pwe("smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float beta) -> Tensor", "grad_output", "self", "target"),
		pwe("huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float delta) -> Tensor", "grad_output", "self", "target"),
		pwe("soft_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor", "grad_output", "self", "target"),
		pwe("binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor", "grad_output", "self", "target"),
		n("segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor", metaSegmentReduce),
		n("_segment_reduce_backward(Tensor grad, Tensor output, Tensor data, str reduce, *, Tensor? lengths=None, Tensor? offsets=None, int axis=0, Scalar? initial=None) -> Tensor", newLike("data")),
		{Schema: "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)", Kind: KindCast, Meta: selfRule(metaResizeAs), Functional: "aten::resize_as.default"},
		n("fractional_max_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] output_size, Tensor indices) -> Tensor", metaLayoutOf("self")),
		n("fractional_max_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] output_size, Tensor indices) -> Tensor", metaLayoutOf("self")),
		n("torch_nn::_linear_cross_entropy_batch_chunked(Tensor input, Tensor linear_weight, Tensor target, Tensor? linear_bias, Tensor? weight, str reduction, SymInt ignore_index, float label_smoothing, SymInt batch_chunk_size, str acc_policy, ScalarType acc_dtype, bool allow_retain_graph, bool compute_input_grad, bool compute_linear_weight_grad, bool compute_linear_bias_grad) -> (Tensor, Tensor, Tensor, Tensor)", metaLinearCEChunked),
		n("torch_nn::_linear_cross_entropy_batch_chunked_no_reduction(Tensor input, Tensor linear_weight, Tensor target, Tensor? linear_bias, Tensor? weight, SymInt ignore_index, SymInt batch_chunk_size, str acc_policy, ScalarType acc_dtype) -> Tensor", metaLinearCENoReduction),
		n("_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)", metaEmbeddingBag),
		n("_embedding_bag_forward_only(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)", metaEmbeddingBag),
		n("_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor", metaEmbeddingBagBackward),
		n("_embedding_bag_dense_backward(Tensor grad, Tensor indices, Tensor offset2bag, Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor", metaEmbeddingBagBackward),
		n("_embedding_bag_per_sample_weights_backward(Tensor grad, Tensor weight, Tensor indices, Tensor offsets, Tensor offset2bag, int mode, int padding_idx=-1) -> Tensor", metaEmbeddingBagPSWBackward),
		n("unfold_backward(Tensor grad_in, SymInt[] input_sizes, int dim, int size, int step) -> Tensor", metaUnfoldBackward),
		{Schema: "uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true, Functional: "aten::normal_functional.default"},
		{Schema: "log_normal_(Tensor(a!) self, float mean=1., float std=2., *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "exponential_(Tensor(a!) self, float lambd=1., *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "cauchy_(Tensor(a!) self, float median=0., float sigma=1., *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true, Functional: "aten::bernoulli.p"},
		{Schema: "bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)", Kind: KindRandom, Meta: selfRule(metaIndexLike), Random: true},
		{Schema: "randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", Kind: KindRandom, Meta: metaRandint, Random: true},
		{Schema: "randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", Kind: KindRandom, Meta: metaRandint, Random: true},
		{Schema: "randint_like(Tensor self, SymInt high, *, " + tensorOpts + ", MemoryFormat? memory_format=None) -> Tensor", Kind: KindRandom, Meta: selfRule(likeFactory), Random: true},
		{Schema: "randint_like.Tensor(Tensor self, Tensor high, *, " + tensorOpts + ", MemoryFormat? memory_format=None) -> Tensor", Kind: KindRandom, Meta: selfRule(likeFactory), Random: true},
		{Schema: "randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, " + tensorOpts + ", MemoryFormat? memory_format=None) -> Tensor", Kind: KindRandom, Meta: selfRule(likeFactory), Random: true},
		{Schema: "multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: selfRule(metaMultinomial), Random: true},
		{Schema: "rrelu_with_noise(Tensor self, Tensor(b!) noise, Scalar lower=0.125, Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: selfRule(metaPreserve), Random: true},
		pwe("rrelu_with_noise_backward(Tensor grad_output, Tensor self, Tensor noise, Scalar lower, Scalar upper, bool training, bool self_is_result) -> Tensor", "grad_output", "self"),
		n("max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", metaPool3d),
		n("avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", metaPool3d),
		n("_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor", metaAdaptivePool3d),
		n("adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)", metaAdaptivePool3d),
		n("fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, Tensor random_samples) -> (Tensor, Tensor)", metaFractionalMaxPool),
		n("fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, Tensor random_samples) -> (Tensor, Tensor)", metaFractionalMaxPool),
		n("max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor", metaLayoutOf("self")),
		n("avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", metaLayoutOf("self")),
		n("_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor", metaLayoutOf("self")),
		n("adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor", metaLayoutOf("self")),
		{Schema: "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor", Kind: KindIndexing, Meta: metaSearch("self")},
		{Schema: "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor", Kind: KindIndexing, Meta: metaSearch("self")},
		{Schema: "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor", Kind: KindIndexing, Meta: metaSearch("self")},
		{Schema: "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor", Kind: KindIndexing, Meta: metaSearch("self")},
		{Schema: "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor", Kind: KindIndexing, Meta: metaIsin},
		{Schema: "isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False) -> Tensor", Kind: KindIndexing, Meta: metaIsin},
		{Schema: "isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor", Kind: KindIndexing, Meta: metaIsin},
		{Schema: "median(Tensor self) -> Tensor", Kind: KindReduction, Meta: selfRule(metaScalarOfSelf)},
		{Schema: "nanmedian(Tensor self) -> Tensor", Kind: KindReduction, Meta: selfRule(metaScalarOfSelf)},
		{Schema: "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", Kind: KindReduction, Meta: selfRule(metaHistc)},
		n("masked_scatter_backward(Tensor grad_output, Tensor mask, SymInt[] sizes) -> Tensor", metaMaskedScatterBackward),
		{Schema: "normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: pw(PromoteDefault, "mean", "std"), Random: true},
		{Schema: "normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: pw(PromoteDefault, "mean"), Random: true},
		{Schema: "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor", Kind: KindRandom, Meta: pw(PromoteDefault, "std"), Random: true},
		{Schema: "linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "logspace.Tensor_Tensor(Tensor start, Tensor end, int steps, float base=10., *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "logspace.Tensor_Scalar(Tensor start, Scalar end, int steps, float base=10., *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		{Schema: "logspace.Scalar_Tensor(Scalar start, Tensor end, int steps, float base=10., *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaSpace},
		n("_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)", metaBatchNormWithUpdate),
		n("batch_norm_backward(Tensor grad_out, Tensor input, Tensor weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_var, bool update, float eps, bool[3] output_mask, Tensor reserve) -> (Tensor, Tensor, Tensor)", metaBatchNormBackwardNew),
		n("grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor", metaGridSampler),
		n("grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor", metaGridSampler),
		n("grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)", metaGridSamplerBackward),
		n("grid_sampler_3d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)", metaGridSamplerBackward),
		{Schema: "empty_permuted(SymInt[] size, int[] physical_layout, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaEmptyPermuted},
		n("native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor", metaDropoutBackward),
		n("upsample_bilinear2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("upsample_trilinear3d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_trilinear3d_backward(Tensor grad_output, SymInt[3] output_size, SymInt[5] input_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_bicubic2d_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("_upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("_upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", metaUpsample),
		n("_upsample_bilinear2d_aa_backward(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsampleBackward),
		n("multi_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, Scalar p, Scalar margin, Tensor? weight=None, int reduction=1) -> Tensor", newLike("self")),
		n("multilabel_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, Tensor is_target) -> Tensor", newLike("self")),
		{Schema: "eye(SymInt n, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaEye},
		{Schema: "eye.m(SymInt n, SymInt m, *, " + tensorOpts + ") -> Tensor", Kind: KindFactory, Meta: metaEye},
		n("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor", selfRule(metaSameContiguous)),
		{Schema: "hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor", Kind: KindReduction, Meta: metaHashTensor},
		{Schema: "_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor", Kind: KindShape, Meta: metaChunkCat},
		n("_prelu_kernel(Tensor self, Tensor weight) -> Tensor", pw(PromoteDefault, "self", "weight")),
		n("_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (Tensor, Tensor)", metaPreluBackward),
		n("nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)", metaNLLLoss2d),
		n("nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor", likeArg("self")),
		n("multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None, int reduction=1) -> Tensor", metaMarginLoss),
		n("multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction) -> (Tensor output, Tensor is_target)", metaMarginLoss),
		n("adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)", metaAdaptiveMaxPool2d),
		n("adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor", metaLayoutOf("self")),
		n("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor", metaIm2col),
		n("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor", metaCol2im),
	}
}

// metaSegmentReduce is data with the axis dim replaced by the number of
// segments (lengths' last size, or offsets' less one), row-major.
func metaSegmentReduce(env *Env, c *Call) ([]ir.Type, error) {
	data, err := c.Tensor("data")
	if err != nil {
		return nil, err
	}
	ax, err := c.Dim("axis", data.Rank())
	if err != nil {
		return nil, err
	}
	name, less := "lengths", int64(0)
	if c.IsNone("lengths") {
		name, less = "offsets", 1
	}
	b, err := c.Tensor(name)
	if err != nil {
		return nil, err
	}
	if b == nil || b.Rank() != ax+1 {
		return nil, Errorf(CodeShape, "", "segment_reduce: expected lengths or offsets with %d dims", ax+1)
	}
	segs := sym.Sub(b.Shape[ax], sym.Const(less))
	shape := append(append(copyExprs(data.Shape[:ax]), segs), copyExprs(data.Shape[ax+1:])...)
	return one(env.Contiguous(data.DType, shape, data.Device)), nil
}

// metaUpsampleBackward is grad_output.new_empty(input_size) in
// grad_output's suggested memory format.
func metaUpsampleBackward(env *Env, c *Call) ([]ir.Type, error) {
	g, err := c.Tensor("grad_output")
	if err != nil {
		return nil, err
	}
	size, err := c.SymInts("input_size")
	if err != nil {
		return nil, err
	}
	return one(env.layoutLike(g.DType, size, g)), nil
}

// metaGroupNormBackward is (grad_input in input's suggested memory format,
// grad_weight [C], grad_bias [C]), each None where output_mask is false.
func metaGroupNormBackward(env *Env, c *Call) ([]ir.Type, error) {
	in, err := c.Tensor("input")
	if err != nil {
		return nil, err
	}
	ch, err := c.SymInt("C")
	if err != nil {
		return nil, err
	}
	mask, err := boolList(c, "output_mask")
	if err != nil {
		return nil, err
	}
	out := []ir.Type{ir.TensorOf(env.layoutLike(in.DType, copyExprs(in.Shape), in)),
		ir.TensorOf(env.Contiguous(in.DType, []sym.Expr{ch}, in.Device)), ir.TensorOf(env.Contiguous(in.DType, []sym.Expr{ch}, in.Device))}
	for i := range out {
		if i < len(mask) && !mask[i] {
			out[i] = ir.Type{Kind: ir.KindNone}
		}
	}
	return out, nil
}

// newLike is `name.new_empty(name.shape)`: name's dtype, shape and device,
// row-major.
func newLike(name string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		t, err := c.Tensor(name)
		if err != nil || t == nil {
			return nil, err
		}
		return one(env.Contiguous(t.DType, copyExprs(t.Shape), t.Device)), nil
	}
}
