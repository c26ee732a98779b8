package cuda

import (
	"fmt"
	"strings"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// Extern calls with several outputs. Each output the program reads gets
// its stores; an absent one (nil Buffer) is neither a parameter nor
// computed.

// topk and sort: one thread per row (the input's positions with dim taken out).
// Element j goes to position r = the number of row elements that come
// before it: larger (NaN above every number; smaller for largest=False),
// or equal at a lower index. That is O(n²) per row and needs no scratch
// memory; the output is sorted whatever `sorted` says, and ties keep
// index order (sort's stable order, a valid order for stable=False) (PyTorch's CUDA topk leaves tie order to its radix select
// and sort; its CPU kernel's differs, see rt/topk_stl.go).
func (x *xgen) topk() error {
	e := x.k.Extern
	if len(e.Args) != 1 || e.Args[0].Buffer == nil || len(e.Outs) != 2 {
		return fmt.Errorf("expects self and two outputs")
	}
	in := e.Args[0]
	k, dim := e.Params["k"], e.Params["dim"]
	largest := len(e.Params["largest"]) == 0 || e.Params["largest"][0] != 0
	sorting := externOp(e) == "aten::sort" // every element, in order
	if sorting {
		largest = len(e.Params["descending"]) > 0 && e.Params["descending"][0] != 0
		k = []int64{0}
	}
	shape := in.Layout.Shape
	if len(k) != 1 || len(dim) != 1 || dim[0] < 0 || dim[0] >= int64(max(len(shape), 1)) || k[0] < 0 {
		return fmt.Errorf("k %v and dim %v do not fit a %d-d input", k, dim, len(shape))
	}
	d := int(dim[0])
	var rows []sym.Expr
	n := sym.Const(1)
	for i, s := range shape {
		if i == d {
			n = s
			continue
		}
		rows = append(rows, s)
	}
	for _, s := range rows {
		x.sig.work = sym.Mul(x.sig.work, s)
	}
	kc := fmt.Sprint(k[0])
	if sorting {
		kc = "(" + n.Code() + ")"
	}
	x.headerAs("one thread per row, rank selection (O(n^2) per row)", rows)
	at := func(j string) []string { // the input / output index with j at dim
		idx := make([]string, 0, len(shape))
		for i := range rows {
			if i == d {
				idx = append(idx, j)
			}
			idx = append(idx, fmt.Sprintf("o%d", i))
		}
		if len(idx) < len(shape) {
			idx = append(idx, j)
		}
		return idx
	}
	reg := cType(dtInfos[in.Layout.DType].reg)
	aj, err := x.operand(in, at("j")...)
	if err != nil {
		return err
	}
	ai, err := x.operand(in, at("i")...)
	if err != nil {
		return err
	}
	// before(p, q): p comes before q in the row's order
	before := "((%[1]s != %[1]s) && !(%[2]s != %[2]s)) || %[1]s > %[2]s"
	if !largest {
		before = "(!(%[1]s != %[1]s) && (%[2]s != %[2]s)) || %[1]s < %[2]s"
	}
	x.e.line("for (long long j = 0; j < (%s); ++j) {", n.Code())
	x.e.in()
	x.e.line("const %s a = %s;", reg, aj)
	x.e.line("long long r = 0;")
	x.e.line("for (long long i = 0; i < (%s) && r < %s; ++i) {", n.Code(), kc)
	x.e.in()
	x.e.line("const %s b = %s;", reg, ai)
	x.e.line("if ((%s) || (!(%s) && i < j)) ++r;", fmt.Sprintf(before, "b", "a"), fmt.Sprintf(before, "a", "b"))
	x.e.out()
	x.e.line("}")
	x.e.line("if (r < %s) {", kc)
	x.e.in()
	if v := e.Outs[0]; v.Buffer != nil {
		x.e.line("%s[%s] = k_st_%s(a);", bufParam(v.Buffer), layoutIndex(v.Layout, at("r")), dtInfos[v.Layout.DType].suffix)
	}
	if ix := e.Outs[1]; ix.Buffer != nil {
		x.e.line("%s[%s] = j;", bufParam(ix.Buffer), layoutIndex(ix.Layout, at("r")))
	}
	x.e.out()
	x.e.line("}")
	x.e.out()
	x.e.line("}")
	return nil
}

// convolutionBackward: one thread per element of every output asked for
// (grad_input, then grad_weight, then grad_bias: w picks the output by
// range), each a gather over the direct convolution's taps (for a
// transposed convolution, over those of the direct one it is the adjoint
// of).
func (x *xgen) convolutionBackward() error {
	e := x.k.Extern
	if len(e.Args) != 3 || len(e.Outs) != 3 {
		return fmt.Errorf("expects grad_output, input, weight and three outputs")
	}
	gout, in, wt := e.Args[0], e.Args[1], e.Args[2]
	rank := len(in.Layout.Shape)
	nsp := rank - 2
	if gout.Buffer == nil || in.Buffer == nil || wt.Buffer == nil || nsp < 1 ||
		len(wt.Layout.Shape) != rank || len(gout.Layout.Shape) != rank {
		return fmt.Errorf("expects grad_output, input and weight of equal rank >= 3")
	}
	cp, err := convParams(e.Params, nsp)
	if err != nil {
		return err
	}
	cp.nsp, cp.gout, cp.in, cp.wt = nsp, gout, in, wt
	sizes := x.workOverOuts(e)
	x.headerAs("one thread per output element", nil)
	bodies := []func(lowering.Operand) error{x.convGradInput(cp), x.convGradWeight(cp), x.convGradBias(cp)}
	if t := e.Params["transposed"]; len(t) > 0 && t[0] != 0 {
		// the adjoint of the direct convolution from grad_output to input
		// (the same weight): its forward is grad_input, its weight gradient
		// with input and output gradient swapped is grad_weight
		swapped := *cp
		swapped.gout, swapped.in = in, gout
		bodies = []func(lowering.Operand) error{x.convDirect(cp), x.convGradWeight(&swapped), x.convGradBias(cp)}
	}
	return x.eachOutElement(e, sizes, func(o lowering.Operand) string { return convGradAcc(e, o) },
		func(i int, o lowering.Operand) error { return bodies[i](o) })
}

// convGradAcc is the type an output of convolution_backward sums in:
// grad_input's short sums in its register type, grad_weight's and
// grad_bias's long ones (batch × positions) in double, as rt's.
func convGradAcc(e *lowering.Extern, o lowering.Operand) string {
	if o.Buffer == e.Outs[0].Buffer {
		return cType(dtInfos[o.Layout.DType].reg)
	}
	return "double"
}

func vars(v string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", v, i)
	}
	return out
}

// workOverOuts makes the launch's work one thread per element of every
// output the graph reads, and returns each output's element count as C.
func (x *xgen) workOverOuts(e *lowering.Extern) []string {
	var sizes []string
	work := sym.Const(0)
	for _, o := range e.Outs {
		if o.Buffer == nil {
			continue
		}
		n := sym.Const(1)
		for _, s := range o.Layout.Shape {
			n = sym.Mul(n, s)
		}
		work = sym.Add(work, n)
		sizes = append(sizes, "("+n.Code()+")")
	}
	x.sig.work = work
	return sizes
}

// eachOutElement writes the body of a launch with one thread per element
// of every output the graph reads (sizes: workOverOuts'): thread w falls
// in output i's range, unpacks its index into o0, o1, ..., accumulates in
// acc (of type accType(o)) through body, and stores acc.
func (x *xgen) eachOutElement(e *lowering.Extern, sizes []string, accType func(lowering.Operand) string, body func(i int, o lowering.Operand) error) error {
	var base []string // the sizes of the outputs before this one
	for i, o := range e.Outs {
		if o.Buffer == nil {
			continue
		}
		end := strings.Join(append(base, sizes[len(base)]), " + ")
		from := "w"
		if len(base) > 0 {
			x.e.line("} else if (w < %s) {", end)
			from = "w - (" + strings.Join(base, " + ") + ")"
		} else {
			x.e.line("if (w < %s) {", end)
		}
		x.e.in()
		x.unpack(o.Layout.Shape, "o", from)
		x.e.line("%s acc = 0;", accType(o))
		if err := body(i, o); err != nil {
			return err
		}
		x.e.line("%s[%s] = k_st_%s(acc);", bufParam(o.Buffer), layoutIndex(o.Layout, vars("o", len(o.Layout.Shape))), dtInfos[o.Layout.DType].suffix)
		x.e.out()
		base = append(base, sizes[len(base)])
	}
	x.e.line("}")
	return nil
}
