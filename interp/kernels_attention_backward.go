package interp

import (
	"fmt"
	"math"
)

// kSDPAFlashCPUBackward is aten::_scaled_dot_product_flash_attention_for_cpu_backward
// in float64, by its definition in ATen's CPU kernel
// (FlashAttentionKernel.cpp, cpu_flash_attention_backward): with the
// forward's logsumexp, p[i, j] = exp(scale·q[i]·k[j] + mask[i, j] -
// lse[i]) (0 for a key a causal row i does not see, j > i), dsum[i] =
// Σ grad_out[i]·out[i], ds = p·(grad_out[i]·v[j] - dsum[i]); grad_q[i] =
// scale·Σ_j ds·k[j], grad_k[j] = scale·Σ_i ds·q[i], grad_v[j] =
// Σ_i p·grad_out[i]. Query head h reads key/value head h / (H / H_kv),
// whose gradients sum over those query heads. Each gradient comes back
// in [B, L, H, E] order, as the kernel allocates it (the meta rule's
// layout).
func kSDPAFlashCPUBackward(c *call) ([]any, error) {
	const op = "_scaled_dot_product_flash_attention_for_cpu_backward"
	var ts [6]*Tensor
	for i, name := range []string{"grad_out", "query", "key", "value", "out", "logsumexp"} {
		t, err := c.tensor(name)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	gout, q, k, v, out, lse := ts[0], ts[1], ts[2], ts[3], ts[4], ts[5]
	var mask *Tensor
	if !c.isNone("attn_mask") {
		m, err := c.optTensor("attn_mask")
		if err != nil {
			return nil, err
		}
		mask = m
	}
	causal, err := c.bool("is_causal")
	if err != nil {
		return nil, err
	}
	if p, err := c.float("dropout_p"); err != nil || p != 0 {
		return nil, fmt.Errorf("%s: dropout_p must be 0 (PyTorch: \"Currently do not support dropout > 0\")", op)
	}
	if q.Dim() != 4 || k.Dim() != 4 || v.Dim() != 4 {
		return nil, fmt.Errorf("%s: query, key and value must be 4-d", op)
	}
	B, H, L, E := q.Shape[0], q.Shape[1], q.Shape[2], q.Shape[3]
	Hkv, S := k.Shape[1], k.Shape[2]
	switch {
	case k.Shape[0] != B || v.Shape[0] != B || v.Shape[1] != Hkv || v.Shape[2] != S || k.Shape[3] != E || v.Shape[3] != E:
		return nil, fmt.Errorf("%s: query %v, key %v and value %v do not fit one attention", op, q.Shape, k.Shape, v.Shape)
	case Hkv == 0 && H > 0 || Hkv > 0 && H%Hkv != 0:
		return nil, fmt.Errorf("%s: %d query heads are not a multiple of %d key/value heads", op, H, Hkv)
	case !equal64(gout.Shape, q.Shape) || !equal64(out.Shape, q.Shape) || !equal64(lse.Shape, q.Shape[:3]):
		return nil, fmt.Errorf("%s: grad_out %v, out %v and logsumexp %v do not fit query %v", op, gout.Shape, out.Shape, lse.Shape, q.Shape)
	}
	scale := 1 / math.Sqrt(float64(E))
	if !c.isNone("scale") {
		if scale, err = c.float("scale"); err != nil {
			return nil, err
		}
	}
	var mv []float64
	if mask != nil {
		em, err := expand(mask, []int64{B, H, L, S})
		if err != nil {
			return nil, fmt.Errorf("%s: attn_mask: %w", op, err)
		}
		mv = em.Floats()
	}
	qv, kv, vv, gv, ov, lv := q.Floats(), k.Floats(), v.Floats(), gout.Floats(), out.Floats(), lse.Floats()
	gq, gk, gvv := make([]float64, len(qv)), make([]float64, len(kv)), make([]float64, len(vv))
	rep := int64(1)
	if Hkv > 0 {
		rep = H / Hkv
	}
	for bh := range B * H {
		kvBase := (bh/H*Hkv + bh%H/rep) * S * E
		for i := range L {
			r := bh*L + i
			qi, gi, oi := qv[r*E:][:E], gv[r*E:][:E], ov[r*E:][:E]
			dsum := 0.0
			for d := range E {
				dsum += gi[d] * oi[d]
			}
			for j := range S {
				if causal && j > i {
					break
				}
				kj, vj := kv[kvBase+j*E:][:E], vv[kvBase+j*E:][:E]
				s, gdot := 0.0, 0.0
				for d := range E {
					s += qi[d] * kj[d]
					gdot += gi[d] * vj[d]
				}
				s *= scale
				if mv != nil {
					s += mv[r*S+j]
				}
				p := math.Exp(s - lv[r])
				ds := p * (gdot - dsum)
				for d := range E {
					gq[r*E+d] += scale * ds * kj[d]
					gk[kvBase+j*E+d] += scale * ds * qi[d]
					gvv[kvBase+j*E+d] += p * gi[d]
				}
			}
		}
	}
	res := make([]any, 3)
	for n, g := range []struct {
		t    *Tensor
		vals []float64
	}{{q, gq}, {k, gk}, {v, gvv}} {
		laid, err := Empty(g.t.DType, g.t.Shape, bmhkStrides(g.t.Shape), g.t.Device())
		if err != nil {
			return nil, err
		}
		if err := copyTensor(laid, FromFloatsOn(g.t.DType, g.t.Shape, g.vals, g.t.Device())); err != nil {
			return nil, err
		}
		res[n] = laid
	}
	return res, nil
}

// bmhkStrides are the strides of a [B, H, M, K] tensor stored as
// [B, M, H, K].
func bmhkStrides(shape []int64) []int64 {
	h, m, k := max(shape[1], 1), max(shape[2], 1), max(shape[3], 1)
	return []int64{m * h * k, k, h * k, 1}
}

func init() {
	register(kSDPAFlashCPUBackward, "_scaled_dot_product_flash_attention_for_cpu_backward")
}
