package rt

import (
	"fmt"
	"math"
	"slices"
)

// aten::_scaled_dot_product_flash_attention_for_cpu and its backward, as
// ATen's CPU flash kernel (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp,
// cpu_flash_attention and cpu_flash_attention_backward) computes them: per
// query row, blocks of 512 keys with an online softmax (running max and
// sum, the partial output rescaled by exp(old max - new max)); scores are
// q·k in the accumulation type (float for f32 and the half types, double
// for f64), times the scale, plus attn_mask; a causal row i sees keys
// j <= i (top-left aligned); a fully masked row gives zeros and a
// logsumexp of 0. Half-type probabilities are rounded to the input dtype
// before they multiply v, as the kernel's qk_reduced buffer does. Query
// head h reads key/value head h / (H / H_kv) (grouped-query attention).
// The kernel's vectorized exp (exp_u20) is an approximation of exp, so
// values agree with PyTorch to rounding, not bit for bit.
//
// Params: "is_causal" {0|1}; "scale_f64bits" {the IEEE bits of the float64 scale},
// absent for the default 1/sqrt(head size). Args: forward query, key,
// value, attn_mask (nil when None); backward grad_out, query, key, value,
// out, logsumexp, attn_mask. Outputs: forward out, logsumexp; backward
// grad_query, grad_key, grad_value; a nil output is not computed.

// sdpaBlock is the kernel's kv_split_size: the keys one online-softmax
// step covers.
const sdpaBlock = 512

// SDPAScaleParam is the "scale_f64bits" param's value for scale.
func SDPAScaleParam(scale float64) int64 { return int64(math.Float64bits(scale)) }

// sdpaGeom is one call's sizes and scalar arguments.
type sdpaGeom struct {
	b, h, hkv, l, s, e int64
	causal             bool
	scale              float64
	mask               *Tensor // broadcast to [b, h, l, s], or nil
	dtype              string
}

// sdpaCheck checks q, k, v (and the mask) as the CPU kernel's checks do,
// and refuses what PyTorch's kernel reads out of bounds or divides by zero
// on.
func sdpaCheck(op string, q, k, v, mask *Tensor, params map[string][]int64) (*sdpaGeom, error) {
	for i, t := range []*Tensor{q, k, v} {
		if t == nil || len(t.Shape) != 4 {
			return nil, fmt.Errorf("%s: query, key and value must be 4-d [batch, heads, seq, head size] (operand %d)", op, i)
		}
	}
	g := &sdpaGeom{b: q.Shape[0], h: q.Shape[1], l: q.Shape[2], e: q.Shape[3], hkv: k.Shape[1], s: k.Shape[2], dtype: q.DType}
	switch {
	case !isFloat(q.DType) || k.DType != q.DType || v.DType != q.DType:
		return nil, fmt.Errorf("%s: query, key and value are %s, %s, %s; want one float dtype", op, q.DType, k.DType, v.DType)
	case k.Shape[3] != g.e || v.Shape[3] != g.e:
		return nil, fmt.Errorf("%s: Q/K/V should have the same head size (%d, %d, %d)", op, g.e, k.Shape[3], v.Shape[3])
	case k.Shape[0] != g.b || v.Shape[0] != g.b:
		return nil, fmt.Errorf("%s: batch sizes differ: query %d, key %d, value %d", op, g.b, k.Shape[0], v.Shape[0])
	case v.Shape[1] != g.hkv || v.Shape[2] != g.s:
		return nil, fmt.Errorf("%s: key %v and value %v differ in heads or sequence length", op, k.Shape, v.Shape)
	case g.hkv <= 0 && g.h > 0 || g.hkv > 0 && g.h%g.hkv != 0:
		return nil, fmt.Errorf("%s: %d query heads are not a multiple of %d key/value heads", op, g.h, g.hkv)
	case g.b*g.h > 0 && (g.l == 0 || g.s == 0):
		// PyTorch 2.15's kernel dies of SIGFPE here (a split size of 0).
		return nil, fmt.Errorf("%s: empty query or key sequence (L=%d, S=%d): PyTorch's CPU flash kernel divides by zero", op, g.l, g.s)
	}
	causal, ok := params["is_causal"]
	g.causal = ok && len(causal) == 1 && causal[0] != 0
	g.scale = 1 / math.Sqrt(float64(g.e))
	if sc := params["scale_f64bits"]; len(sc) == 1 {
		g.scale = math.Float64frombits(uint64(sc[0]))
	}
	if mask != nil {
		m, err := sdpaMask(op, mask, g)
		if err != nil {
			return nil, err
		}
		g.mask = m
	}
	return g, nil
}

// sdpaMask views a 2-d [L|1, S|1] or 4-d [B|1, H|1, L|1, S|1] mask over
// [B, H, L, S] with zero strides where it broadcasts (the kernel's
// reshape_attn_mask_to_4d).
func sdpaMask(op string, m *Tensor, g *sdpaGeom) (*Tensor, error) {
	if m.DType != g.dtype {
		return nil, fmt.Errorf("%s: attention mask is %s, query is %s (PyTorch wants the same dtype)", op, m.DType, g.dtype)
	}
	r := len(m.Shape)
	if r != 2 && r != 4 {
		return nil, fmt.Errorf("%s: attention mask dim in {2, 4}, got %d", op, r)
	}
	full := []int64{g.b, g.h, g.l, g.s}
	st := m.strides()
	out := &Tensor{DType: m.DType, Shape: full, Strides: make([]int64, 4), Offset: m.Offset, Data: m.Data}
	for d := 4 - r; d < 4; d++ {
		sz, want := m.Shape[d-(4-r)], full[d]
		switch {
		case sz == want:
			out.Strides[d] = st[d-(4-r)]
		case sz == 1:
		default:
			return nil, fmt.Errorf("%s: attention mask of shape %v does not broadcast to %v", op, m.Shape, full)
		}
	}
	return out, nil
}

// rounder is the input dtype's rounding of an accumulator value (nil for
// f32 and f64, whose accumulators are the dtype itself).
func rounder[T float32 | float64](dtype string) func(T) T {
	switch dtype {
	case "bf16":
		return func(x T) T { return T(F32FromBF16(BF16FromF32(float32(x)))) }
	case "f16":
		return func(x T) T { return T(F32FromF16(F16FromF32(float32(x)))) }
	}
	return nil
}

// sdpaForward is the flash op: outs are out and logsumexp.
func sdpaForward(op string, outs, args []*Tensor, params map[string][]int64) error {
	if len(args) != 4 || len(outs) != 2 {
		return fmt.Errorf("%s: want query, key, value, attn_mask and two outputs, got %d operands and %d outputs", op, len(args), len(outs))
	}
	g, err := sdpaCheck(op, args[0], args[1], args[2], args[3], params)
	if err != nil {
		return err
	}
	acc := "f32"
	if g.dtype == "f64" {
		acc = "f64"
	}
	for i, want := range []struct {
		dt    string
		shape []int64
	}{{g.dtype, args[0].Shape}, {acc, []int64{g.b, g.h, g.l}}} {
		if o := outs[i]; o != nil && (o.DType != want.dt || !slices.Equal(o.Shape, want.shape)) {
			return fmt.Errorf("%s: output %d is %s%v, want %s%v", op, i, o.DType, o.Shape, want.dt, want.shape)
		}
	}
	if g.dtype == "f64" {
		return sdpaFwd[float64](op, g, outs, args)
	}
	return sdpaFwd[float32](op, g, outs, args)
}

// sdpaLoad gathers the operands named as T (row-major).
func sdpaLoad[T float32 | float64](op string, names []string, ts []*Tensor) ([][]T, error) {
	out := make([][]T, len(ts))
	for i, t := range ts {
		if t == nil {
			continue
		}
		v, err := loadAs[T](t)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", op, names[i], err)
		}
		out[i] = v
	}
	return out, nil
}

func sdpaFwd[T float32 | float64](op string, g *sdpaGeom, outs, args []*Tensor) error {
	in, err := sdpaLoad[T](op, []string{"query", "key", "value", "attn_mask"}, []*Tensor{args[0], args[1], args[2], g.mask})
	if err != nil {
		return err
	}
	qv, kv, vv, mv := in[0], in[1], in[2], in[3]
	round := rounder[T](g.dtype)
	scale := T(g.scale)
	ov := make([]T, g.b*g.h*g.l*g.e)
	lse := make([]T, g.b*g.h*g.l)
	rows := g.b * g.h * g.l
	err = ParallelFor(rows, g.s*g.e*2, func(lo, hi int64) error {
		qk := make([]T, min(g.s, sdpaBlock))
		for r := lo; r < hi; r++ {
			bh, i := r/g.l, r%g.l
			kvBase := (bh/g.h*g.hkv + bh%g.h/(g.h/g.hkv)) * g.s * g.e
			qrow := qv[r*g.e : (r+1)*g.e]
			dst := ov[r*g.e : (r+1)*g.e]
			keys := g.s
			if g.causal {
				keys = min(i+1, g.s)
			}
			rmax, rsum := T(math.Inf(-1)), T(0)
			for n := int64(0); n < keys; n += sdpaBlock {
				blk := qk[:min(sdpaBlock, keys-n)]
				bmax := T(math.Inf(-1))
				for j := range blk {
					krow := kv[kvBase+(n+int64(j))*g.e:][:g.e]
					var dot T
					for d, x := range qrow {
						dot += x * krow[d]
					}
					dot *= scale
					if mv != nil {
						dot += mv[r*g.s+n+int64(j)]
					}
					blk[j] = dot
					bmax = max(bmax, dot)
				}
				tmax := max(rmax, bmax)
				if math.IsInf(float64(tmax), -1) {
					continue // every key so far masked: nothing to add
				}
				var tsum T
				for j, x := range blk {
					p := T(math.Exp(float64(x - tmax)))
					tsum += p
					if round != nil {
						p = round(p)
					}
					blk[j] = p
				}
				rescale := T(math.Exp(float64(rmax - tmax)))
				rsum = tsum + rescale*rsum
				rmax = tmax
				if n > 0 {
					for d := range dst {
						dst[d] *= rescale
					}
				}
				for j, p := range blk {
					vrow := vv[kvBase+(n+int64(j))*g.e:][:g.e]
					for d := range dst {
						dst[d] += p * vrow[d]
					}
				}
			}
			if math.IsInf(float64(rmax), -1) {
				rmax = 0
			}
			if rsum == 0 {
				rsum = 1
			}
			inv := 1 / rsum
			for d := range dst {
				dst[d] *= inv
			}
			lse[r] = rmax + T(math.Log(float64(rsum)))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if o := outs[0]; o != nil {
		if err := storeAs(o, ov); err != nil {
			return fmt.Errorf("%s: out: %w", op, err)
		}
	}
	if o := outs[1]; o != nil {
		if err := storeAs(o, lse); err != nil {
			return fmt.Errorf("%s: logsumexp: %w", op, err)
		}
	}
	return nil
}
