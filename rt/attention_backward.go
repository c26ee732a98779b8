package rt

import (
	"fmt"
	"math"
	"slices"
)

// sdpaBackward is aten::_scaled_dot_product_flash_attention_for_cpu_backward
// (cpu_flash_attention_backward): per query row i, dsum = Σ grad_out·out;
// per key j it sees, the probability p = exp(scale·q·k + mask - lse[i])
// and ds = p·(grad_out[i]·v[j] - dsum), both rounded to the input dtype
// for the half types before the products that follow, then
//
//	grad_v[j] += p·grad_out[i]
//	grad_q[i] += scale·ds·k[j],  grad_k[j] += scale·ds·q[i]
//
// Sums run in float64 and each gradient is rounded once.
// Grouped-query key/value heads sum over their query heads; work splits
// over (batch, key/value head), so no two workers write one gradient.
func sdpaBackward(op string, outs, args []*Tensor, params map[string][]int64) error {
	if len(args) != 7 || len(outs) != 3 {
		return fmt.Errorf("%s: want grad_out, query, key, value, out, logsumexp, attn_mask and three outputs, got %d operands and %d outputs", op, len(args), len(outs))
	}
	g, err := sdpaCheck(op, args[1], args[2], args[3], args[6], params)
	if err != nil {
		return err
	}
	acc := "f32"
	if g.dtype == "f64" {
		acc = "f64"
	}
	for i, t := range []*Tensor{args[0], args[4]} {
		if t == nil || t.DType != g.dtype || !slices.Equal(t.Shape, []int64{g.b, g.h, g.l, g.e}) {
			return fmt.Errorf("%s: %s must be %s%v", op, []string{"grad_out", "out"}[i], g.dtype, []int64{g.b, g.h, g.l, g.e})
		}
	}
	if t := args[5]; t == nil || t.DType != acc || !slices.Equal(t.Shape, []int64{g.b, g.h, g.l}) {
		return fmt.Errorf("%s: logsumexp must be %s%v", op, acc, []int64{g.b, g.h, g.l})
	}
	for i, in := range args[1:4] {
		if o := outs[i]; o != nil && (o.DType != g.dtype || !slices.Equal(o.Shape, in.Shape)) {
			return fmt.Errorf("%s: output %d is %s%v, want %s%v", op, i, o.DType, o.Shape, g.dtype, in.Shape)
		}
	}
	// float64 sums for every dtype: ATen's float32 GEMMs (fused
	// multiply-adds, the scale applied once per sum) lose less than a
	// float32 loop of products would, and gradients of long sums that
	// cancel (corpus 109's embedding gradient on internal/e2e's inputs)
	// came out at twice eager's error against float64 that way.
	return sdpaBwd[float64](op, g, outs, args)
}

func sdpaBwd[T float32 | float64](op string, g *sdpaGeom, outs, args []*Tensor) error {
	in, err := sdpaLoad[T](op, []string{"grad_out", "query", "key", "value", "out", "logsumexp", "attn_mask"},
		[]*Tensor{args[0], args[1], args[2], args[3], args[4], args[5], g.mask})
	if err != nil {
		return err
	}
	gov, qv, kv, vv, ov, lse, mv := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
	round := rounder[T](g.dtype)
	scale := T(g.scale)
	gq := make([]T, len(qv))
	gk, gv := make([]T, len(kv)), make([]T, len(vv))
	rep := int64(1)
	if g.hkv > 0 {
		rep = g.h / g.hkv
	}
	e := g.e
	err = ParallelFor(g.b*g.hkv, rep*g.l*g.s*e*4, func(lo, hi int64) error {
		for bk := lo; bk < hi; bk++ {
			kvBase := bk * g.s * e
			for hq := bk % g.hkv * rep; hq < (bk%g.hkv+1)*rep; hq++ {
				bh := bk/g.hkv*g.h + hq
				for i := range g.l {
					r := bh*g.l + i
					qrow, gorow, gqrow := qv[r*e:][:e], gov[r*e:][:e], gq[r*e:][:e]
					var dsum T
					for d, x := range gorow {
						dsum += x * ov[r*e+int64(d)]
					}
					keys := g.s
					if g.causal {
						keys = min(i+1, g.s)
					}
					for j := range keys {
						krow, vrow := kv[kvBase+j*e:][:e], vv[kvBase+j*e:][:e]
						var dot, gdot T
						for d, x := range qrow {
							dot += x * krow[d]
							gdot += gorow[d] * vrow[d]
						}
						a := scale * dot
						if mv != nil {
							a += mv[r*g.s+j]
						}
						p := T(math.Exp(float64(a - lse[r])))
						ds := p * (gdot - dsum)
						if round != nil { // the GEMMs read half-type copies
							p, ds = round(p), round(ds)
						}
						gvrow, gkrow := gv[kvBase+j*e:][:e], gk[kvBase+j*e:][:e]
						for d := range e {
							gvrow[d] += p * gorow[d]
							gqrow[d] += scale * ds * krow[d]
							gkrow[d] += scale * ds * qrow[d]
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	for i, vals := range [][]T{gq, gk, gv} {
		if o := outs[i]; o != nil {
			if err := storeAs(o, vals); err != nil {
				return fmt.Errorf("%s: %s: %w", op, []string{"grad_query", "grad_key", "grad_value"}[i], err)
			}
		}
	}
	return nil
}
