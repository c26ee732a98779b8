package decompose

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// buildFunc builds one call's decomposition and returns one value per
// result of the original node (nil for a result nobody uses). It reports
// failure through the emitter.
type buildFunc func(e *emitter, c *ops.Call) []*ir.Value

// Rule is one row of the decomposition table.
type Rule struct {
	// Op is the qualified registry name ("aten::_softmax.default").
	Op string
	// Note says in one line what the op becomes and which PyTorch source
	// the decomposition follows, or why the op stays whole.
	Note  string
	build buildFunc
}

// Whole reports whether the op is deliberately left whole.
func (r Rule) Whole() bool { return r.build == nil }

// Sources the notes cite.
const (
	decomps = "torch/_decomp/decompositions.py"
	refs    = "torch/_refs"
)

// table is the decomposition table: ops decomposed, then ops left whole.
var table = slices.Concat(decomposed, foreachRows(), kept)

// decomposed are the hand-written decompositions (the _foreach_ rows are
// generated from their own table, rules_foreach.go).
var decomposed = []Rule{
	{"aten::_softmax.default", "upcast f16/bf16 to f32, x-amax(keepdim), exp, sum(keepdim), div, cast back unless half_to_float (" + decomps + " _softmax)", softmax},
	{"aten::softmax.int", "cast to dtype if given, then as _softmax (ATen softmax.int -> _softmax)", softmax},
	{"aten::_log_softmax.default", "upcast, x-amax, exp, sum, log, sub, cast back (" + decomps + " _log_softmax)", logSoftmax},
	{"aten::log_softmax.int", "cast to dtype if given, then as _log_softmax", logSoftmax},
	{"aten::native_layer_norm.default", "upcast, var_mean(correction=0, keepdim), add eps, rsqrt, sub, mul, weight mul, bias add; mean/rstd in the input dtype on CPU (" + refs + " native_layer_norm/_normalize)", nativeLayerNorm},
	{"aten::layer_norm.default", "native_layer_norm's out (ATen layer_norm)", nativeLayerNorm},
	{"aten::native_group_norm.default", "upcast, reshape [N, group, C/group, HxW], var_mean(correction=0, keepdim), rsqrt(var+eps), sub, mul, view back, weight/bias as [1, C, 1, ..]; mean/rstd squeezed to [N, group] in the input dtype (" + refs + " native_group_norm)", nativeGroupNorm},
	{"aten::native_group_norm_backward.default", "upcast, ds=sum(g*x, HxW), db=sum(g, HxW) per channel; grad_input = g*rstd*w + x*c2 + c3 in [N, group, C/group, HxW] with c2, c3 from the weighted group sums; grad_weight sum((ds-db*mean)*rstd, N), grad_bias sum(db, N); symbolic sizes or a non-contiguous input stay whole (" + decomps + " native_group_norm_backward)", nativeGroupNormBackward},
	{"aten::_native_batch_norm_legit_no_training.default", "running stats in f32, 1/sqrt(var+eps), unsqueeze to [C,1,..], sub, mul, weight, bias (" + decomps + " native_batch_norm_helper, training=False)", batchNormEval},
	{"aten::native_batch_norm.default", "training=False as _native_batch_norm_legit_no_training; training=True stays whole (batch statistics + running-stat update)", batchNormEval},
	{"aten::batch_norm.default", "training=False as _native_batch_norm_legit_no_training's out; training=True stays whole", batchNormEval},
	{"aten::gelu.default", "upcast; 'none': x*0.5*(1+erf(x*M_SQRT1_2)); 'tanh': 0.5*x*(1+tanh(kBeta*(x+0.044715*x^3))) (" + refs + "/nn/functional gelu)", gelu},
	{"aten::silu.default", "upcast, x*sigmoid(x) (" + decomps + " silu)", silu},
	{"aten::hardtanh.default", "clamp(min_val, max_val) as maximum/minimum (" + decomps + " hardtanh)", clampScalar},
	{"aten::hardsigmoid.default", "upcast, clamp(x+3, 0, 6)/6 (" + decomps + " hardsigmoid)", hardsigmoid},
	{"aten::hardswish.default", "upcast, x*clamp(x+3, 0, 6)/6 (" + decomps + " hardswish)", hardswish},
	{"aten::leaky_relu.default", "upcast, where(x>0, x, x*slope) (" + refs + "/nn/functional leaky_relu)", leakyRelu},
	{"aten::elu.default", "upcast, where(x>0, x*scale, expm1(x*input_scale)*alpha*scale) (" + refs + "/nn/functional elu)", elu},
	{"aten::softplus.default", "upcast, where(x*beta>threshold, x, log1p(exp(x*beta))/beta) (" + refs + "/nn/functional softplus)", softplus},
	{"aten::mish.default", "upcast, x*tanh(softplus(x)) (" + decomps + " mish)", mish},
	{"aten::hardtanh_backward.default", "upcast, where((self<=min_val)|(self>=max_val), 0.0, grad) (" + decomps + " hardtanh_backward)", hardtanhBackward},
	{"aten::leaky_relu_backward.default", "upcast, where(self>0, grad, grad*negative_slope) (" + decomps + " leaky_relu_backward)", leakyReluBackward},
	{"aten::elu_backward.default", "upcast, where(x<=0, grad*input_scale*(x+alpha*scale) or grad*input_scale*alpha*scale*exp(x*input_scale), grad*scale) (" + decomps + " elu_backward)", eluBackward},
	{"aten::hardsigmoid_backward.default", "upcast, where((self>-3)&(self<3), grad*(1/6), 0.0) (" + decomps + " hardsigmoid_backward)", hardsigmoidBackward},
	{"aten::hardswish_backward.default", "upcast, where(self<=-3, 0.0, where(self<3, grad*(self/3+0.5), grad)) (" + decomps + " hardswish_backward)", hardswishBackward},
	{"aten::softplus_backward.default", "upcast, z=exp(x*beta), where(x*beta>threshold, grad, grad*z/(z+1)) (" + decomps + " softplus_backward)", softplusBackward},
	{"aten::mish_backward.default", "upcast, t=tanh(softplus(x)), grad*(t + x*sigmoid(x)*(1-t*t)) (" + decomps + " mish_backward)", mishBackward},
	{"aten::isposinf.default", "floats: isinf(a) & (a>0), equal to a == inf (" + refs + " isposinf); integers stay whole", isPosNegInf},
	{"aten::isneginf.default", "floats: isinf(a) & (a<0), equal to a == -inf (" + refs + " isneginf); integers stay whole", isPosNegInf},
	{"aten::native_dropout_backward.default", "grad * (mask.type_as(grad) * scale) (" + decomps + " native_dropout_backward)", dropoutBackward},
	{"aten::upsample_nearest1d.default", "index = (arange(osize, f32) * isize/osize).to(i64) per spatial dim, then _unsafe_index; a channels-last result stays whole (" + decomps + " _upsample_nearest)", upsampleNearest(false)},
	{"aten::upsample_nearest2d.default", "as upsample_nearest1d, per spatial dim (" + decomps + " _upsample_nearest)", upsampleNearest(false)},
	{"aten::upsample_nearest3d.default", "as upsample_nearest1d, per spatial dim (" + decomps + " _upsample_nearest)", upsampleNearest(false)},
	{"aten::_upsample_nearest_exact1d.default", "index = ((arange(osize, f32) + 0.5) * isize/osize).to(i64), then _unsafe_index (" + decomps + " _upsample_nearest, exact=True)", upsampleNearest(true)},
	{"aten::_upsample_nearest_exact2d.default", "as _upsample_nearest_exact1d, per spatial dim (" + decomps + " _upsample_nearest, exact=True)", upsampleNearest(true)},
	{"aten::_upsample_nearest_exact3d.default", "as _upsample_nearest_exact1d, per spatial dim (" + decomps + " _upsample_nearest, exact=True)", upsampleNearest(true)},
	{"aten::upsample_nearest1d_backward.default", "output sizes multiples of the input's: grad_output viewed as [N, C, I, r, ..] and summed over the r dims, the block sums Inductor's lowering takes (torch/_inductor/lowering.py upsample_nearest2d_backward: avg_pool2d, divisor_override=1); given scales must map o to o/r as ATen's nearest_idx; other sizes stay whole", upsampleNearestBackward(false)},
	{"aten::_upsample_nearest_exact1d_backward.default", "as upsample_nearest1d_backward, with the exact index (o+0.5)*scale", upsampleNearestBackward(true)},
	{"aten::upsample_nearest2d_backward.default", "output sizes multiples of the input's: grad_output viewed as [N, C, I, r, ..] and summed over the r dims, the block sums Inductor's lowering takes (torch/_inductor/lowering.py upsample_nearest2d_backward: avg_pool2d, divisor_override=1); given scales must map o to o/r as ATen's nearest_idx; other sizes stay whole", upsampleNearestBackward(false)},
	{"aten::_upsample_nearest_exact2d_backward.default", "as upsample_nearest2d_backward, with the exact index (o+0.5)*scale", upsampleNearestBackward(true)},
	{"aten::upsample_nearest3d_backward.default", "output sizes multiples of the input's: grad_output viewed as [N, C, I, r, ..] and summed over the r dims, the block sums Inductor's lowering takes (torch/_inductor/lowering.py upsample_nearest2d_backward: avg_pool2d, divisor_override=1); given scales must map o to o/r as ATen's nearest_idx; other sizes stay whole", upsampleNearestBackward(false)},
	{"aten::_upsample_nearest_exact3d_backward.default", "as upsample_nearest3d_backward, with the exact index (o+0.5)*scale", upsampleNearestBackward(true)},
	{"aten::pixel_shuffle.default", "view [.., C/r^2, r, r, H, W], permute to [.., C/r^2, H, r, W, r], reshape, clone contiguous; a non-contiguous input stays whole (" + refs + "/nn/functional pixel_shuffle)", pixelShuffle(true)},
	{"aten::pixel_unshuffle.default", "view [.., C, H/r, r, W/r, r], permute to [.., C, r, r, H/r, W/r], reshape, clone contiguous; a non-contiguous input stays whole (" + refs + "/nn/functional pixel_unshuffle)", pixelShuffle(false)},
	{"aten::unsafe_split.Tensor", "split.Tensor with the same arguments (" + decomps + " unsafe_split)", unsafeSplit},
	{"aten::upsample_linear1d.default", "upcast; per spatial dim the source coordinate scale*i (align_corners) or scale*(i+0.5)-0.5 clamped at 0, its floor and floor+1 (clamped) index every corner (_unsafe_index), blended dim by dim from the last as v1+(v2-v1)*clamp(frac, 0, 1); integer inputs or a channels-last result stay whole (" + decomps + " _upsample_linear)", upsampleLinear},
	{"aten::upsample_bilinear2d.default", "as upsample_linear1d, over two spatial dims (" + decomps + " upsample_bilinear2d, _upsample_linear)", upsampleLinear},
	{"aten::im2col.default", "pad, gather padded[:, :, rows, cols] with rows/cols arange(0, blocks, stride) + arange(0, k*d, d) per dim (_unsafe_index), permute, reshape to [N, C*kh*kw, L] (" + decomps + " im2col)", im2col},
	{"aten::col2im.default", "upcast, reshape to [N, C, kh, kw, nh, nw], permute, _unsafe_index_put(new_zeros(padded), [rows, cols], accumulate=True), negative pad (" + decomps + " col2im)", col2im},
	{"aten::slice_backward.default", "new_zeros(input_sizes), then slice_scatter of grad_output into it (" + decomps + " slice_backward)", sliceBackward},
	{"aten::_safe_softmax.default", "softmax, then where(all(x == -inf, dim, keepdim), 0, out): a fully masked row is zeros (" + decomps + " safe_softmax)", safeSoftmax},
	{"aten::_scaled_dot_product_flash_attention_for_cpu.default", "whole by default, as Inductor's CPU backend calls it as a fallback (torch/_inductor/decomposition.py decomps_to_exclude, lowering.py make_fallback): an extern kernel; with decompose{sdpa=math} (torch.export's core ATen decomposition) the math path: q and k^T scaled by sqrt(scale), bmm, causal mask or attn_mask added, _safe_softmax, bmm with v, the flash output's layout; the logsumexp computed when read; grouped-query k and v repeated over the heads (unsqueeze, expand, clone, view: the math path's enable_gqa repeat_interleave); stays whole with dropout, reduced floats or symbolic sizes (" + decomps + " scaled_dot_product_flash_attention_for_cpu)", sdpaFlashCPU},
	{"aten::_adaptive_avg_pool2d.default", "output sizes dividing the input's: avg_pool2d(kernel in-(out-1)*stride, stride in/out); other sizes stay whole, for lowering (Inductor's lowering of _adaptive_avg_pool2d, lowering/rules_pool_adaptive.go) (" + decomps + " adaptive_avg_pool2d)", adaptiveAvgPool2d},
	{"aten::adaptive_avg_pool2d.default", "as _adaptive_avg_pool2d (" + decomps + " adaptive_avg_pool2d)", adaptiveAvgPool2d},
	{"aten::glu.default", "upcast, a*sigmoid(b) for the halves a, b of self along dim, cast back once (" + refs + "/nn/functional glu, in opmath as ATen's CPU kernel)", glu},
	{"aten::mse_loss.default", "upcast, (self-target)**2, then mean / sum / none by reduction, cast back (" + decomps + " mse_loss, apply_loss_reduction)", mseLoss},
	{"aten::log_sigmoid_forward.default", "upcast, minimum(0, x) - log1p(exp(-abs(x))); buffer exp(-abs(x)) on the CPU, new_zeros((0,)) on CUDA (" + decomps + " log_sigmoid_forward)", logSigmoidForward},
	{"aten::mse_loss_backward.default", "upcast, (self-target)*norm*grad, norm 2/numel for mean else 2 (" + decomps + " mse_loss_backward); mean over a symbolic shape stays whole", mseLossBackward},
	{"aten::smooth_l1_loss.default", "upcast, z=|self-target|, where(z<beta, 0.5*z**2/beta, z-0.5*beta), then mean / sum / none, cast back (" + decomps + " smooth_l1_loss)", smoothL1Loss},
	{"aten::smooth_l1_loss_backward.default", "upcast, d=self-target, g=norm*grad, where(|d|<beta, g*d/beta, g*sign(d)), norm 1/numel for mean else 1 (" + decomps + " smooth_l1_loss_backward); mean over a symbolic shape stays whole", smoothL1LossBackward},
	{"aten::binary_cross_entropy_with_logits.default", "upcast, (1-target)*self - log_weight*logsigmoid(self) with log_weight=(pos_weight-1)*target+1 (1 without pos_weight), times weight, then mean / sum / none, cast back (" + decomps + " binary_cross_entropy_with_logits)", bceWithLogits},
	{"aten::huber_loss.default", "upcast, z=|self-target|, where(z<delta, 0.5*z*z, delta*(z-0.5*delta)), then mean / sum / none, cast back (" + refs + "/nn/functional huber_loss)", huberLoss},
	{"aten::huber_loss_backward.default", "upcast, d=self-target, where(d<-delta, -norm*grad*delta, where(d>delta, norm*grad*delta, norm*d*grad)) (" + decomps + " huber_loss_backward); mean over a symbolic shape stays whole", huberLossBackward},
	{"aten::logit.default", "upcast; with eps: where-clamp to [eps, 1-eps] (NaN kept); log(x/(1-x)) (ATen logit kernel, " + decomps + " logit)", logit},
	{"aten::special_xlog1py.default", "upcast, where(isnan(b), b, where(a==0, 0, a*log1p(b))) (" + refs + "/special xlog1py)", xlog1py},
	{"aten::special_entr.default", "upcast, where(isnan(a), a, where(a>0, -a*log(a), where(a==0, 0, -inf))) (" + refs + "/special entr)", entr},
	{"aten::heaviside.default", "where(x==0, values, where((x<0)|isnan(x), 0, 1)) in the promoted dtype (" + refs + " heaviside)", heaviside},
	{"aten::round.decimals", "upcast, round(x*10^d)/10^d, or round(x/10^-d)*10^-d for d<0 (ATen round_decimals_kernel, which eager matches bit for bit where " + decomps + " round does not)", roundDecimals},
	{"aten::ldexp.Tensor", "self * pow(scalar_tensor(2.0, self's dtype or f32 for ints), other) (" + decomps + " ldexp)", ldexp},
	{"aten::_conj_physical.default", "real dtypes: clone (" + decomps + " conj_physical returns the input); complex stays whole", conjPhysical},
	{"aten::clamp.default", "maximum/minimum with 0-d bounds of the result dtype; NaN propagates as in " + refs + " clamp", clampScalar},
	{"aten::clamp_min.default", "maximum with a 0-d bound of the result dtype", clampScalar},
	{"aten::clamp_max.default", "minimum with a 0-d bound of the result dtype", clampScalar},
	{"aten::clamp.Tensor", "maximum(x, min), minimum(., max): promotion as clamp's", clampTensor},
	{"aten::clamp_min.Tensor", "maximum(x, min)", clampTensor},
	{"aten::clamp_max.Tensor", "minimum(x, max)", clampTensor},
	{"aten::where.ScalarSelf", "where.self with scalar_tensor of the result dtype (ATen wrapped_scalar_tensor)", whereScalar},
	{"aten::where.ScalarOther", "where.self with scalar_tensor of the result dtype", whereScalar},
	{"aten::where.Scalar", "where.self with two scalar_tensors of the result dtype", whereScalar},
	{"aten::rsub.Tensor", "sub(other, self, alpha) (" + refs + " rsub)", rsub},
	{"aten::rsub.Scalar", "sub.Tensor(other, self, alpha) with the scalar first, as PyTorch's graphs print it", rsub},
	{"aten::addcmul.default", "upcast, self + value*tensor1*tensor2 (" + refs + " addcmul)", addcmul},
	{"aten::addcdiv.default", "upcast, self + value*(tensor1/tensor2) (" + refs + " addcdiv)", addcdiv},
	{"aten::lerp.Scalar", "upcast, |w|>=0.5 ? (w-1)*(end-start)+end : w*(end-start)+start, branch picked statically (" + refs + " lerp)", lerp},
	{"aten::lerp.Tensor", "upcast, the same with where on |w|>=0.5 per element (" + refs + " lerp)", lerp},
	{"aten::matmul.default", "dot/mv/mm by rank; batch x matrix folds into mm; else expand, reshape, bmm, view (" + decomps + " matmul, ATen _matmul_impl)", matmul},
	{"aten::linear.default", "permute weight; 2-d: addmm; contiguous n-d: view, addmm, view; else matmul+add (ATen linear/_flatten_nd_linear)", linear},
	{"aten::t.default", "permute with reversed dims (" + refs + " t via transpose, which core ATen spells permute)", t},
	{"aten::_softmax_backward_data.default", "upcast, g*y - y*sum(g*y, dim, keepdim), cast to input_dtype, contiguous (" + decomps + " _softmax_backward_data)", softmaxBackward},
	{"aten::_log_softmax_backward_data.default", "upcast, g - exp(y)*sum(g, dim, keepdim), cast to input_dtype (" + decomps + " _log_softmax_backward_data)", logSoftmaxBackward},
	{"aten::native_layer_norm_backward.default", "upcast, x_hat=(x-mean)*rstd, rstd/N*(g*w*N - sum(g*w) - x_hat*sum(g*w*x_hat)), weight/bias grads summed over outer dims; symbolic normalized sizes stay whole (" + decomps + " native_layer_norm_backward)", layerNormBackward},
	{"aten::native_batch_norm_backward.default", "upcast, sums over every dim but 1 of g and g*(x-mean); train: ((g - (x-mean)*dot_p/N*invstd^2) - sum(g)/N) * invstd*w, eval: g * rsqrt(running_var+eps)*w; grad_weight dot_p*invstd, grad_bias sum(g); symbolic or empty inputs stay whole (" + decomps + " native_batch_norm_backward)", batchNormBackward},
	{"aten::nll_loss_forward.default", "-gather(self*w, C, where(t!=ignore, t, 0)) masked, sum, / total_weight (kept targets' weights summed, or counted) for mean (" + decomps + " _nll_loss_forward)", nllLossForward},
	{"aten::nll_loss_backward.default", "scatter.value(zeros_like(self), C, safe target, -1), written where(safe target == arange(C), -1, 0) as Inductor's scatter_upon_const_tensor rewrites it (torch/_inductor/fx_passes/joint_graph.py), * where(t!=ignore, grad/total_weight*w, 0) (" + decomps + " _nll_loss_backward)", nllLossBackward},
	{"aten::embedding_dense_backward.default", "upcast, grad masked where index is invalid or padding_idx, _unsafe_index_put(new_zeros, [clamped index], grad, accumulate=True), a scatter-add (" + decomps + " embedding_dense_backward + _unsafe_masked_index_put_accumulate, which torch/_inductor/decomposition.py uses off XPU); scale_grad_by_freq stays whole", embeddingDenseBackward},
	{"aten::masked_scatter.default", "broadcast self and mask, idx = mask.reshape(-1).cumsum(0) - 1, where(mask_flat, _unsafe_masked_index(source_flat, mask_flat, [idx], 0), self_flat).view(shape); a non-bool mask, another source dtype or an empty source stay whole (torch/_inductor/decomposition.py masked_scatter, " + decomps + " _unsafe_masked_index)", maskedScatter},
	{"aten::_unsafe_masked_index.default", "each index clamped to [0, size-1], _unsafe_index, masked_fill(~mask, fill); an empty self: new_full(indexed shape, fill); symbolic sizes stay whole (" + decomps + " _unsafe_masked_index; Inductor lowers the op whole, kiln lowers the pieces)", unsafeMaskedIndex},
	{"aten::conv1d.default", "convolution(input, weight, bias, stride, padding, dilation, transposed=False, output_padding=[0], groups) (ATen Convolution.cpp conv1d)", convNd},
	{"aten::conv2d.default", "convolution(..., transposed=False, output_padding=[0, 0], groups) (ATen Convolution.cpp conv2d)", convNd},
	{"aten::conv3d.default", "convolution(..., transposed=False, output_padding=[0, 0, 0], groups) (ATen Convolution.cpp conv3d)", convNd},
}

// kept are the ops deliberately left whole.
var kept = []Rule{
	{"aten::var_mean.correction", "whole: lowering turns it into one two-stage (Welford) reduction kernel", nil},
	{"aten::addmm.default", "whole: PyTorch's GEMM adds beta*self in its f32 epilogue and rounds once, where mm + add " +
		"(decompositions.py addmm) rounds twice: a bf16 ulp per layer, amplified through deep graphs; lowering " +
		"emits the product into an opmath buffer plus a fused epilogue, as Inductor keeps extern_kernels.addmm", nil},
	{"aten::baddbmm.default", "whole: as addmm, with bmm", nil},
	{"aten::mm.default", "whole: extern kernel", nil},
	{"aten::bmm.default", "whole: extern kernel", nil},
	{"aten::mv.default", "whole: extern kernel", nil},
	{"aten::dot.default", "whole: extern kernel", nil},
	{"aten::convolution.default", "whole: extern kernel", nil},
	{"aten::_to_copy.default", "whole: a cast (lowering reads it as convert_element_type)", nil},
	{"prims::convert_element_type.default", "whole: the cast every decomposition above emits", nil},
	{"aten::_native_batch_norm_legit.no_stats", "whole: training statistics are a reduction pair lowering schedules itself", nil},
	{"aten::native_dropout.default", "whole: random; Inductor replaces it with its own RNG ops", nil},
	{"aten::_scaled_dot_product_flash_attention.default", "whole: extern attention kernel", nil},
	{"aten::_scaled_dot_product_efficient_attention.default", "whole: extern attention kernel", nil},
	{"aten::embedding.default", "whole: a gather lowering handles directly", nil},
	{"aten::max_pool2d_with_indices_backward.default", "whole: lowered as Inductor's lowering does (torch/_inductor/lowering.py max_pool2d_with_indices_backward: one pointwise kernel over grad_input, " +
		"lowering/rules_pool_backward.go); Inductor 2.15 on the CPU decomposes it instead (" + decomps + " max_pool2d_with_indices_backward: zeros + scatter_add, " +
		"run as a fill kernel and the aten.scatter_reduce_ fallback), a serial scatter kiln does not copy; the values are the same sums in the same order", nil},
}

// byOp indexes the table.
var byOp = func() map[string]*Rule {
	m := make(map[string]*Rule, len(table))
	for i := range table {
		m[table[i].Op] = &table[i]
	}
	return m
}()

// Rules returns the table, in order: decompositions first, then the ops
// left whole.
func Rules() []Rule { return append([]Rule(nil), table...) }

// Lookup returns the rule for a qualified op name.
func Lookup(op string) (Rule, bool) {
	r, ok := byOp[op]
	if !ok {
		return Rule{}, false
	}
	return *r, true
}
