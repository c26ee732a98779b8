package cuda

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// The CPU flash attention op and its backward (what Inductor's CPU backend
// calls as fallbacks; rt/attention.go is the Go runtime's) as naive
// kernels. Forward: one thread per (batch, head, query row): the row's
// max, the sum of exp(score - max), then per head-size column the
// probabilities recomputed against v (no per-thread array of the head
// size), times 1/sum, as ATen does for a row of one block of keys.
// Backward: one thread per element of each gradient asked for, in double
// as rt's backward, recomputing the probabilities from logsumexp:
// p = exp(scale·q·k + mask - lse), ds = p·(grad_out·v - Σ grad_out·out);
// grad_q sums scale·ds·k over the keys, grad_k scale·ds·q and grad_v
// p·grad_out over the queries of the key/value head's query heads. Causal
// rows see keys j <= i; a fully masked row gives zeros and a logsumexp
// of 0.

// sdpaGen emits the shared pieces: operand reads and a score.
type sdpaGen struct {
	x          *xgen
	q, k, v, m lowering.Operand // m.Buffer nil without attn_mask
	acc        string
	causal     bool
	h, hkv     sym.Expr
	l, s, e    sym.Expr
}

func (x *xgen) sdpaSetup(q, k, v, m lowering.Operand) (*sdpaGen, error) {
	e := x.k.Extern
	for _, o := range []lowering.Operand{q, k, v} {
		if o.Buffer == nil || len(o.Layout.Shape) != 4 {
			return nil, fmt.Errorf("expects 4-d query, key and value")
		}
	}
	g := &sdpaGen{x: x, q: q, k: k, v: v, m: m, acc: cType(dtInfos[q.Layout.DType].reg),
		h: q.Layout.Shape[1], hkv: k.Layout.Shape[1], l: q.Layout.Shape[2], s: k.Layout.Shape[2], e: q.Layout.Shape[3]}
	if c := e.Params["is_causal"]; len(c) == 1 {
		g.causal = c[0] != 0
	}
	if g.m.Buffer != nil && len(g.m.Layout.Shape) != 2 && len(g.m.Layout.Shape) != 4 {
		return nil, fmt.Errorf("attn_mask must be 2-d or 4-d")
	}
	return g, nil
}

// scale declares the kernel's scale: the given one, or 1/sqrt(head size)
// computed in double and rounded to the accumulator, as ATen's
// calculate_scale.
func (g *sdpaGen) scale() {
	if sc := g.x.k.Extern.Params["scale"+lowering.F64BitsSuffix]; len(sc) == 1 {
		f := math.Float64frombits(uint64(sc[0]))
		g.x.e.line("const %s scale = (%s)(%s);", g.acc, g.acc, cDouble(f))
		return
	}
	g.x.e.line("const %s scale = (%s)(1.0 / km_sqrt((double)(%s)));", g.acc, g.acc, g.e.Code())
}

// cDouble spells f as a C double; infinities and NaN by their bits, as the
// kernels' constants (NVRTC has no math.h for INFINITY).
func cDouble(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Sprintf("k_bits_f64(0x%016XULL)", math.Float64bits(f))
	}
	return fmt.Sprintf("%.17g", f)
}

// ld reads operand o at idx as the accumulator type.
func (g *sdpaGen) ld(o lowering.Operand, idx ...string) (string, error) {
	v, err := g.x.operand(o, idx...)
	if err != nil {
		return "", err
	}
	return "(" + g.acc + ")" + v, nil
}

// score declares name = scale·Σ_d q[b,h,i,d]·k[b,hk,j,d] + mask[b,h,i,j]
// (the caller skips keys a causal row does not see).
func (g *sdpaGen) score(name, b, h, hk, i, j string) error {
	qv, err := g.ld(g.q, b, h, i, "d")
	if err != nil {
		return err
	}
	kv, err := g.ld(g.k, b, hk, j, "d")
	if err != nil {
		return err
	}
	x := g.x.e
	x.line("%s %s = 0;", g.acc, name)
	x.line("for (long long d = 0; d < (%s); ++d) %s += %s * %s;", g.e.Code(), name, qv, kv)
	x.line("%s *= scale;", name)
	if g.m.Buffer == nil {
		return nil
	}
	full := []string{b, h, i, j}[4-len(g.m.Layout.Shape):]
	idx := make([]string, len(full))
	for d, s := range g.m.Layout.Shape {
		idx[d] = full[d]
		if c, ok := s.Const(); ok && c == 1 {
			idx[d] = "0"
		}
	}
	mv, err := g.ld(g.m, idx...)
	if err != nil {
		return err
	}
	x.line("%s += %s;", name, mv)
	return nil
}

// keys is the loop bound over keys for query row i.
func (g *sdpaGen) keys(i string) string {
	if g.causal {
		return fmt.Sprintf("(%s + 1 < (%s) ? %s + 1 : (%s))", i, g.s.Code(), i, g.s.Code())
	}
	return "(" + g.s.Code() + ")"
}

// hk is the key/value head of query head h.
func (g *sdpaGen) hk(h string) string {
	return fmt.Sprintf("%s / ((%s) / (%s))", h, g.h.Code(), g.hkv.Code())
}

// sdpaForward: one thread per query row (o0, o1, o2) of out.
func (x *xgen) sdpaForward() error {
	e := x.k.Extern
	if len(e.Args) != 4 || len(e.Outs) != 2 {
		return fmt.Errorf("expects query, key, value, attn_mask and two outputs")
	}
	g, err := x.sdpaSetup(e.Args[0], e.Args[1], e.Args[2], e.Args[3])
	if err != nil {
		return err
	}
	rows := g.q.Layout.Shape[:3]
	for _, s := range rows {
		x.sig.work = sym.Mul(x.sig.work, s)
	}
	x.headerAs("one thread per query row, softmax recomputed per pass", rows)
	g.scale()
	em := x.e
	em.line("const long long hk = %s;", g.hk("o1"))
	// the row's max, then the sum of exp(s - max): ATen's arithmetic for
	// a row of at most 512 keys (one block)
	em.line("%s rmax = (%s)%s, rsum = 0;", g.acc, g.acc, cDouble(math.Inf(-1)))
	em.line("for (long long j = 0; j < %s; ++j) {", g.keys("o2"))
	em.in()
	if err := g.score("s", "o0", "o1", "hk", "o2", "j"); err != nil {
		return err
	}
	em.line("if (s > rmax) rmax = s;")
	em.out()
	em.line("}")
	em.line("if (rmax == (%s)%s) rmax = 0;", g.acc, cDouble(math.Inf(-1)))
	em.line("for (long long j = 0; j < %s; ++j) {", g.keys("o2"))
	em.in()
	if err := g.score("s", "o0", "o1", "hk", "o2", "j"); err != nil {
		return err
	}
	em.line("rsum += km_exp(s - rmax);")
	em.out()
	em.line("}")
	em.line("if (rsum == 0) rsum = 1;")
	em.line("const %s inv = 1 / rsum;", g.acc)
	if out := e.Outs[0]; out.Buffer != nil {
		vv, err := g.ld(g.v, "o0", "hk", "j", "c")
		if err != nil {
			return err
		}
		em.line("for (long long c = 0; c < (%s); ++c) {", g.e.Code())
		em.in()
		em.line("%s acc = 0;", g.acc)
		em.line("for (long long j = 0; j < %s; ++j) {", g.keys("o2"))
		em.in()
		if err := g.score("s", "o0", "o1", "hk", "o2", "j"); err != nil {
			return err
		}
		em.line("acc += km_exp(s - rmax) * %s;", vv)
		em.out()
		em.line("}")
		em.line("%s[%s] = k_st_%s(acc * inv);", bufParam(out.Buffer), layoutIndex(out.Layout, []string{"o0", "o1", "o2", "c"}), dtInfos[out.Layout.DType].suffix)
		em.out()
		em.line("}")
	}
	if lse := e.Outs[1]; lse.Buffer != nil {
		em.line("%s[%s] = k_st_%s(rmax + km_log(rsum));", bufParam(lse.Buffer), layoutIndex(lse.Layout, []string{"o0", "o1", "o2"}), dtInfos[lse.Layout.DType].suffix)
	}
	return nil
}

// sdpaBackward: one thread per element of each gradient asked for
// (grad_query, grad_key, grad_value: w picks the gradient by range).
func (x *xgen) sdpaBackward() error {
	e := x.k.Extern
	if len(e.Args) != 7 || len(e.Outs) != 3 {
		return fmt.Errorf("expects grad_out, query, key, value, out, logsumexp, attn_mask and three outputs")
	}
	g, err := x.sdpaSetup(e.Args[1], e.Args[2], e.Args[3], e.Args[6])
	if err != nil {
		return err
	}
	g.acc = "double" // as rt's backward: sums of gradients that cancel
	gout, out, lse := e.Args[0], e.Args[4], e.Args[5]
	if gout.Buffer == nil || out.Buffer == nil || lse.Buffer == nil {
		return fmt.Errorf("expects grad_out, out and logsumexp")
	}
	sizes := x.workOverOuts(e)
	x.headerAs("one thread per gradient element", nil)
	g.scale()
	bodies := []func() error{
		func() error { return g.gradQuery(gout, out, lse) },
		func() error { return g.gradKV(gout, out, lse, true) },
		func() error { return g.gradKV(gout, out, lse, false) },
	}
	return x.eachOutElement(e, sizes, func(lowering.Operand) string { return g.acc },
		func(i int, _ lowering.Operand) error { return bodies[i]() })
}

// prob declares p (the probability of key j for query row i of head h)
// and ds = p·(grad_out[i]·v[j] - Σ grad_out[i]·out[i]).
func (g *sdpaGen) prob(gout, out, lse lowering.Operand, b, h, hk, i, j string) error {
	if err := g.score("s", b, h, hk, i, j); err != nil {
		return err
	}
	lv, err := g.ld(lse, b, h, i)
	if err != nil {
		return err
	}
	gv, err := g.ld(gout, b, h, i, "d")
	if err != nil {
		return err
	}
	vv, err := g.ld(g.v, b, hk, j, "d")
	if err != nil {
		return err
	}
	ov, err := g.ld(out, b, h, i, "d")
	if err != nil {
		return err
	}
	em := g.x.e
	em.line("const %s p = km_exp(s - %s);", g.acc, lv)
	em.line("%s gdot = 0, dsum = 0;", g.acc)
	em.line("for (long long d = 0; d < (%s); ++d) {", g.e.Code())
	em.in()
	em.line("gdot += %s * %s;", gv, vv)
	em.line("dsum += %s * %s;", gv, ov)
	em.out()
	em.line("}")
	em.line("const %s ds = p * (gdot - dsum);", g.acc)
	return nil
}

// gradQuery: grad_q[o0, o1, o2, o3] = scale·Σ_j ds·k[j, o3].
func (g *sdpaGen) gradQuery(gout, out, lse lowering.Operand) error {
	kv, err := g.ld(g.k, "o0", "hk", "j", "o3")
	if err != nil {
		return err
	}
	em := g.x.e
	em.line("const long long hk = %s;", g.hk("o1"))
	em.line("for (long long j = 0; j < %s; ++j) {", g.keys("o2"))
	em.in()
	if err := g.prob(gout, out, lse, "o0", "o1", "hk", "o2", "j"); err != nil {
		return err
	}
	em.line("acc += scale * ds * %s;", kv)
	em.out()
	em.line("}")
	return nil
}

// gradKV: grad_k[o0, o1, o2, o3] = scale·Σ ds·q[i, o3] and grad_v =
// Σ p·grad_out[i, o3], over the query heads h of key/value head o1 and
// the query rows i that see key o2.
func (g *sdpaGen) gradKV(gout, out, lse lowering.Operand, key bool) error {
	term := ""
	if key {
		qv, err := g.ld(g.q, "o0", "h", "i", "o3")
		if err != nil {
			return err
		}
		term = "scale * ds * " + qv
	} else {
		gv, err := g.ld(gout, "o0", "h", "i", "o3")
		if err != nil {
			return err
		}
		term = "p * " + gv
	}
	em := g.x.e
	em.line("const long long rep = (%s) / (%s);", g.h.Code(), g.hkv.Code())
	em.line("for (long long h = o1 * rep; h < (o1 + 1) * rep; ++h) {")
	em.in()
	first := "0"
	if g.causal {
		first = "o2" // a causal row i sees key j when j <= i
	}
	em.line("for (long long i = %s; i < (%s); ++i) {", first, g.l.Code())
	em.in()
	if err := g.prob(gout, out, lse, "o0", "h", "o1", "i", "o2"); err != nil {
		return err
	}
	em.line("acc += %s;", term)
	em.out()
	em.line("}")
	em.out()
	em.line("}")
	return nil
}
