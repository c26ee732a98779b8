package ops

// Matmul family, nn ops, indexing and the scatter inverses
// (native_functions.yaml).

func matmulTable() []Entry {
	m := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindExtern, Meta: meta} }
	return []Entry{
		m("mm(Tensor self, Tensor mat2) -> Tensor", metaMM),
		m("bmm(Tensor self, Tensor mat2) -> Tensor", metaBMM),
		m("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", metaAddmm),
		m("addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)", metaAddmm),
		m("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", metaBaddbmm),
		m("baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)", metaBaddbmm),
		m("matmul(Tensor self, Tensor other) -> Tensor", metaMatmul),
		m("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", metaLinear),
		m("dot(Tensor self, Tensor tensor) -> Tensor", metaDot),
		m("vdot(Tensor self, Tensor other) -> Tensor", metaDot),
		m("mv(Tensor self, Tensor vec) -> Tensor", metaMV),
		m("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor", metaConvolution),
		m("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor", metaConvolution),
		m("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor", metaConvolution),
		m("conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] dilation=1, SymInt groups=1) -> Tensor", metaConvolution),
	}
}

func nnTable() []Entry {
	n := func(schema string, meta MetaFunc) Entry { return Entry{Schema: schema, Kind: KindNN, Meta: meta} }
	return []Entry{
		n("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", selfRule(metaSoftmax)),
		n("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", selfRule(metaSoftmax)),
		n("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", selfRule(metaSoftmax)),
		n("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", selfRule(metaSoftmax)),
		n("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", selfRule(metaSoftmax)),
		n("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", selfRule(metaSoftmax)),
		n("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", metaNativeLayerNorm),
		n("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor", metaLayerNorm),
		n("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", metaBatchNorm),
		n("_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", metaBatchNorm),
		n("_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", metaBatchNorm),
		n("_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)", metaBatchNorm),
		n("_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)", metaBatchNorm),
		n("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor", metaBatchNormSimple),
		n("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", metaPool2d),
		n("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor", metaPool2d),
		n("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", metaPool2d),
		n("prims::_low_memory_max_pool_with_offsets(Tensor self, SymInt[] kernel_size, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool ceil_mode) -> (Tensor, Tensor)", metaPool2d),
		n("upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor", metaUpsample),
		n("upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor", metaUpsample),
		n("upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor", metaUpsample),
		n("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor", metaSDPA),
		n("_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)", metaSDPAEfficient),
		n("_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused, Tensor debug_attn_mask)", metaSDPAFlash),
		n("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", metaEmbedding),
		{Schema: "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", Kind: KindNN, Meta: metaDropout, Random: true},
		n("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor", selfRule(metaPad)),
		n("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor", selfRule(metaPad)),
	}
}

func indexTable() []Entry {
	x := selfEntry(KindIndexing)
	s := func(schema string, view selfRuleFunc) Entry {
		return Entry{Schema: schema, Kind: KindScatterInverse, Meta: scatterInverse(view)}
	}
	return []Entry{
		x("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", metaIndex),
		x("_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", metaIndex),
		x("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", metaIndexPut),
		x("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)", metaIndexPut),
		x("_unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", metaIndexPut),
		x("_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, bool unsafe=False) -> Tensor(a!)", metaIndexPut),
		x("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", metaGather),
		x("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", metaScatter),
		x("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", metaScatter),
		x("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor", metaScatter),
		x("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)", metaScatter),
		x("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)", metaScatter),
		x("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", metaScatter),
		x("scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)", metaScatter),
		x("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor", metaScatter),
		x("scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor(a!)", metaScatter),
		x("index_select(Tensor self, int dim, Tensor index) -> Tensor", metaIndexSelect),
		x("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor", metaIndexLike),
		x("index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)", metaIndexLike),
		x("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor", metaIndexLike),
		x("index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)", metaIndexLike),
		x("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", metaIndexLike),
		x("index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)", metaIndexLike),
		s("slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor", ruleSlice),
		s("select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor", ruleSelect),
		s("diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor", ruleDiagonal),
		s("as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor", ruleAsStrided),
	}
}
