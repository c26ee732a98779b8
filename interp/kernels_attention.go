package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/kiln-compiler/kiln/ir"
)

// Scaled dot-product attention (the math reference of
// torch/nn/functional.py's scaled_dot_product_attention docs), the unique
// family and bilinear upsampling.

// sdpa computes softmax(q·kᵀ·scale + mask)·v over [..., L, E] and
// [..., S, E] operands, and the log-sum-exp of every row.
func sdpa(q, k, v, mask *Tensor, causal bool, scale float64, hasScale bool) (out, lse *Tensor, err error) {
	if q.Dim() < 2 || k.Dim() != q.Dim() || v.Dim() != q.Dim() {
		return nil, nil, fmt.Errorf("scaled_dot_product_attention: expected query, key and value of the same rank >= 2")
	}
	L, E := q.Shape[q.Dim()-2], q.Shape[q.Dim()-1]
	S := k.Shape[k.Dim()-2]
	if !hasScale {
		scale = 1 / math.Sqrt(float64(E))
	}
	kt, _ := transposeDims(k, -2, -1)
	scores, err := matmul(q, kt)
	if err != nil {
		return nil, nil, err
	}
	sv := scores.Floats()
	var mv []float64
	var maskBool bool
	if mask != nil {
		em, err := expand(mask, scores.Shape)
		if err != nil {
			return nil, nil, err
		}
		mv, maskBool = em.Floats(), mask.DType == ir.Bool
	}
	rows := int64(len(sv)) / max(S, 1)
	lseV := make([]float64, rows)
	for r := int64(0); r < rows; r++ {
		i := r % max(L, 1)
		row := sv[r*S : (r+1)*S]
		for j := range row {
			row[j] *= scale
			switch {
			case causal && int64(j) > i:
				row[j] = math.Inf(-1)
			case mv != nil && maskBool && mv[r*S+int64(j)] == 0:
				row[j] = math.Inf(-1)
			case mv != nil && !maskBool:
				row[j] += mv[r*S+int64(j)]
			}
		}
		m, sum := math.Inf(-1), 0.0
		for _, x := range row {
			m = math.Max(m, x)
		}
		if math.IsInf(m, -1) {
			// A fully masked row attends to nothing: zeros, and a
			// log-sum-exp of 0, as eager's CPU flash kernel returns
			// (torch 2.15; the math path's _safe_softmax gives the zeros).
			clear(row)
			continue
		}
		for _, x := range row {
			sum += math.Exp(x - m)
		}
		lseV[r] = m + math.Log(sum)
		copy(row, softmaxLane(false)(row))
	}
	probs := FromFloatsOn(ir.F64, scores.Shape, sv, q.Device())
	vv, err := toCopy(v, ir.F64, v.Device(), "")
	if err != nil {
		return nil, nil, err
	}
	o, err := matmul(probs, vv)
	if err != nil {
		return nil, nil, err
	}
	out, err = toCopy(o, q.DType, q.Device(), "")
	// float64 here: each op rounds it to its own logsumexp dtype
	lse = FromFloatsOn(ir.F64, scores.Shape[:scores.Dim()-1], lseV, q.Device())
	return out, lse, err
}

// sdpaArgs reads the operands common to the attention overloads.
func sdpaArgs(c *call) (q, k, v, mask *Tensor, causal bool, scale float64, hasScale bool, err error) {
	if q, err = c.tensor("query"); err != nil {
		return
	}
	if k, err = c.tensor("key"); err != nil {
		return
	}
	if v, err = c.tensor("value"); err != nil {
		return
	}
	for _, name := range []string{"attn_mask", "attn_bias"} {
		if c.has(name) {
			if mask, err = c.optTensor(name); err != nil {
				return
			}
		}
	}
	if causal, err = c.bool("is_causal"); err != nil {
		return
	}
	if p, perr := c.float("dropout_p"); perr == nil && p > 0 {
		err = fmt.Errorf("scaled_dot_product_attention: dropout_p=%g is random; the interpreter runs attention without dropout only", p)
		return
	}
	hasScale = !c.isNone("scale")
	if hasScale {
		scale, err = c.float("scale")
	}
	return
}

func kSDPA(c *call) ([]any, error) {
	q, k, v, mask, causal, scale, hasScale, err := sdpaArgs(c)
	if err != nil {
		return nil, err
	}
	// The CPU flash op has no enable_gqa: its kernel reads query head i
	// from key/value head i / (h / h_kv), and its decomposition passes
	// enable_gqa = query.size(1) != key.size(1) to the math path.
	gqa := c.op.Schema.Name == "_scaled_dot_product_flash_attention_for_cpu"
	if c.has("enable_gqa") {
		if gqa, err = c.bool("enable_gqa"); err != nil {
			return nil, err
		}
	}
	if gqa && q.Dim() >= 3 && k.Shape[k.Dim()-3] != q.Shape[q.Dim()-3] {
		hq, hk, hv := q.Shape[q.Dim()-3], k.Shape[k.Dim()-3], v.Shape[v.Dim()-3]
		if hk == 0 || hq%hk != 0 || hv != hk {
			return nil, fmt.Errorf("%s: grouped-query attention needs query heads (%d) a multiple of the key heads (%d), "+
				"and as many value heads (%d) as key heads", c.op.Schema.Name, hq, hk, hv)
		}
		if k, err = repeatHeads(k, hq/hk); err != nil {
			return nil, err
		}
		if v, err = repeatHeads(v, hq/hk); err != nil {
			return nil, err
		}
	}
	out, lse, err := sdpa(q, k, v, mask, causal, scale, hasScale)
	if err != nil {
		return nil, err
	}
	lse32, err := toCopy(lse, ir.F32, lse.Device(), "") // the CUDA kernels' logsumexp is float32
	if err != nil {
		return nil, err
	}
	empty := func() *Tensor { t, _ := Empty(ir.I64, []int64{0}, nil, q.Device()); return t }
	switch c.op.Schema.Name {
	case "_scaled_dot_product_efficient_attention":
		return []any{out, lse32, empty(), empty()}, nil
	case "_scaled_dot_product_flash_attention_for_cpu":
		// empty_like(query): the output keeps query's dim order, which
		// the graph's later views rely on (a transposed query is common).
		laid, err := Empty(out.DType, out.Shape, iterStrides(out.Shape, [][]int64{q.Strides}), out.Device())
		if err != nil {
			return nil, err
		}
		// logsumexp [B, H, L] in the accumulation dtype (f64 for f64,
		// else f32), allocated [B, L, H] and transposed (the meta rule's)
		lseDT := ir.F32
		if q.DType == ir.F64 {
			lseDT = ir.F64
		}
		sh := lse.Shape
		if len(sh) != 3 {
			return nil, fmt.Errorf("%s: query, key and value must be 4-d, got %d-d", c.op.Schema.Name, q.Dim())
		}
		lseLaid, err := Empty(lseDT, sh, []int64{max(sh[1], 1) * max(sh[2], 1), 1, max(sh[1], 1)}, out.Device())
		if err != nil {
			return nil, err
		}
		if err := copyTensor(lseLaid, lse); err != nil {
			return nil, err
		}
		return []any{laid, lseLaid}, copyTensor(laid, out)
	case "_scaled_dot_product_flash_attention":
		L, S := q.Shape[q.Dim()-2], k.Shape[k.Dim()-2]
		return []any{out, lse32, empty(), empty(), L, S, empty(), empty(), empty()}, nil
	}
	return one(out)
}

// repeatHeads is repeat_interleave over the heads dim (-3).
func repeatHeads(t *Tensor, rep int64) (*Tensor, error) {
	d := int64(t.Dim() - 3)
	u, _ := unsqueeze(t, d+1)
	shape := clone64(u.Shape)
	shape[d+1] = rep
	e, err := expand(u, shape)
	if err != nil {
		return nil, err
	}
	out := clone64(t.Shape)
	out[d] *= rep
	return reshape(e, out)
}

// kUnique covers _unique, _unique2 and unique_consecutive over the
// flattened input: (values, inverse, counts) as the overload returns them.
func kUnique(c *call) ([]any, error) {
	t, err := c.tensor("self")
	if err != nil {
		return nil, err
	}
	consecutive := c.op.Schema.Name == "unique_consecutive"
	if consecutive && !c.isNone("dim") {
		return nil, fmt.Errorf("unique_consecutive with dim is not supported by the interpreter")
	}
	vals := t.Floats()
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	if !consecutive { // torch.unique sorts (sorted=False sorts on CPU too)
		sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] < vals[order[b]] })
	}
	var uniq []float64
	var counts []int64
	inverse := make([]int64, len(vals))
	for _, i := range order {
		if len(uniq) == 0 || vals[i] != uniq[len(uniq)-1] {
			uniq = append(uniq, vals[i])
			counts = append(counts, 0)
		}
		counts[len(counts)-1]++
		inverse[i] = int64(len(uniq) - 1)
	}
	out := FromFloatsOn(t.DType, []int64{int64(len(uniq))}, uniq, t.Device())
	inv := FromInts(ir.I64, clone64(t.Shape), inverse)
	cnt := FromInts(ir.I64, []int64{int64(len(counts))}, counts)
	// What the overload is not asked for is an empty [0] tensor, as the
	// meta rule (metaUnique) and PyTorch's kernels give it.
	for _, f := range []struct {
		name string
		t    **Tensor
	}{{"return_inverse", &inv}, {"return_counts", &cnt}} {
		if on, err := c.bool(f.name); c.has(f.name) && err == nil && !on {
			*f.t = FromInts(ir.I64, []int64{0}, nil)
		}
	}
	if c.op.Schema.Name == "_unique" {
		return []any{out, inv}, nil
	}
	return []any{out, inv, cnt}, nil
}

// kUpsampleBilinear2d is bilinear resizing of the last two dims with
// PyTorch's source-index rule (area_pixel_compute_source_index).
func kUpsampleBilinear2d(c *call) ([]any, error) {
	t, err := c.tensor(c.op.Schema.Params[0].Name)
	if err != nil {
		return nil, err
	}
	align, err := c.bool("align_corners")
	if err != nil {
		return nil, err
	}
	if t.Dim() != 4 {
		return nil, fmt.Errorf("upsample_bilinear2d: expected a 4-d input, got %d-d", t.Dim())
	}
	h, w := t.Shape[2], t.Shape[3]
	oh, ow, sh, sw, err := upsampleSize(c, h, w)
	if err != nil {
		return nil, err
	}
	src := t.Floats()
	planes := t.Shape[0] * t.Shape[1]
	out := make([]float64, planes*oh*ow)
	for i := int64(0); i < oh; i++ {
		y0, y1, ly := sourceIndex(i, h, oh, sh, align)
		for j := int64(0); j < ow; j++ {
			x0, x1, lx := sourceIndex(j, w, ow, sw, align)
			for p := int64(0); p < planes; p++ {
				b := src[p*h*w:]
				top := b[y0*w+x0]*(1-lx) + b[y0*w+x1]*lx
				bot := b[y1*w+x0]*(1-lx) + b[y1*w+x1]*lx
				out[p*oh*ow+i*ow+j] = top*(1-ly) + bot*ly
			}
		}
	}
	return one(FromFloatsOn(t.DType, []int64{t.Shape[0], t.Shape[1], oh, ow}, out, t.Device()))
}

// upsampleSize reads output_size or scale factors.
func upsampleSize(c *call, h, w int64) (oh, ow int64, sh, sw float64, err error) {
	if size, ok, e := c.optIntList("output_size"); e != nil {
		return 0, 0, 0, 0, e
	} else if ok && len(size) == 2 {
		oh, ow = size[0], size[1]
	}
	if c.has("scale_factors") && !c.isNone("scale_factors") {
		x, _ := c.val("scale_factors")
		if list, ok := x.([]any); ok && len(list) == 2 {
			sh, _ = num(list[0])
			sw, _ = num(list[1])
			if oh == 0 {
				oh, ow = int64(math.Floor(float64(h)*sh)), int64(math.Floor(float64(w)*sw))
			}
		}
	}
	if oh <= 0 || ow <= 0 {
		return 0, 0, 0, 0, fmt.Errorf("upsample: output size must be positive")
	}
	return oh, ow, sh, sw, nil
}

// sourceIndex gives the two source pixels and the weight of the second.
func sourceIndex(dst, in, out int64, scaleFactor float64, align bool) (int64, int64, float64) {
	var src float64
	switch {
	case align && out > 1:
		src = float64(dst) * float64(in-1) / float64(out-1)
	case align:
		src = 0
	default:
		scale := float64(in) / float64(out)
		if scaleFactor > 0 {
			scale = 1 / scaleFactor
		}
		src = math.Max((float64(dst)+0.5)*scale-0.5, 0)
	}
	i0 := min(int64(src), in-1)
	i1 := min(i0+1, in-1)
	return i0, i1, src - float64(i0)
}

func init() {
	register(kSDPA, "scaled_dot_product_attention", "_scaled_dot_product_efficient_attention", "_scaled_dot_product_flash_attention",
		"_scaled_dot_product_flash_attention_for_cpu")
	register(kUnique, "_unique", "_unique2", "unique_consecutive")
	register(kUpsampleBilinear2d, "upsample_bilinear2d", "upsample_bilinear2d.vec")
}
