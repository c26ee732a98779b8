package cuda

import (
	"fmt"

	"github.com/kiln-compiler/kiln/lowering"
	"github.com/kiln-compiler/kiln/ops"
)

// embedding_bag: one thread per element of every output the graph reads
// (output [bags, D], offset2bag, bag_size, max_indices), each walking its
// bag's index range [offsets[b], offsets[b+1]) in order, as rt does. The
// backward: one thread per weight-gradient element (row r, column k),
// gathering the index positions that name r in index order (rt follows
// ATen's unstable index sort; the two differ only in the order in which
// equal indices' terms add, past std::sort's 16-element insertion runs).

// bagWalk holds what every embedding_bag thread reads.
type bagWalk struct {
	x               *xgen
	idx, offs       lowering.Operand
	n, noffs, nrows string // C expressions
	mode, pad       int64
	msg             int // the index check's message id
}

func bagParam(e *lowering.Extern, name string, def int64) int64 {
	if v := e.Params[name]; len(v) == 1 {
		return v[0]
	}
	return def
}

// newBagWalk reads indices and offsets (args 1 and 2) and registers the
// index check against nrows rows (genExtern gave the kernel the error
// record).
func (x *xgen) newBagWalk(nrows string) (*bagWalk, error) {
	e := x.k.Extern
	if len(e.Args) < 3 || e.Args[1].Buffer == nil || e.Args[2].Buffer == nil ||
		len(e.Args[1].Layout.Shape) != 1 || len(e.Args[2].Layout.Shape) != 1 {
		return nil, fmt.Errorf("expects 1-d indices and offsets")
	}
	w := &bagWalk{x: x, idx: e.Args[1], offs: e.Args[2], nrows: nrows,
		mode: bagParam(e, "mode", 0), pad: bagParam(e, "padding_idx", -1)}
	w.n, w.noffs = "("+w.idx.Layout.Shape[0].Code()+")", "("+w.offs.Layout.Shape[0].Code()+")"
	w.msg = x.msgs.id(ops.MustIndexBounds(e.Op).Msg)
	return w, nil
}

// open emits the loop over bag b's index positions i and loads the
// non-padding row idx[i], checked; close ends it.
func (w *bagWalk) open(b string) error {
	x := w.x
	lo, err := x.operand(w.offs, b)
	if err != nil {
		return err
	}
	hi, err := x.operand(w.offs, b+" + 1")
	if err != nil {
		return err
	}
	iv, err := x.operand(w.idx, "i")
	if err != nil {
		return err
	}
	x.e.line("const long long hi = %s + 1 < %s ? (long long)%s : %s;", b, w.noffs, hi, w.n)
	x.e.line("for (long long i = (long long)%s; i < hi; ++i) {", lo)
	x.e.in()
	x.e.line("const long long row = (long long)%s;", iv)
	x.e.line("if ((unsigned long long)row >= (unsigned long long)%s) { kiln_index_fail(%s, %d, row, %s); return; }",
		w.nrows, errParam, w.msg, w.nrows)
	x.e.line("if (row == %d) continue;", w.pad)
	return nil
}

func (w *bagWalk) close() { w.x.closeLoops(1) }

// embeddingBag: output[b, k] sums (mean: then divides by the count) or
// takes the max of weight[row, k] over the bag; offset2bag[i] is the last
// bag starting at or before i; bag_size the bag's non-padding count (zero
// in sum mode); max_indices the argmax rows (max mode) or bag_size.
func (x *xgen) embeddingBag() error {
	e := x.k.Extern
	if len(e.Args) != 4 || e.Args[0].Buffer == nil || len(e.Outs) != 4 || len(e.Args[0].Layout.Shape) != 2 {
		return fmt.Errorf("expects a 2-d weight, indices, offsets, per_sample_weights and four outputs")
	}
	weight := e.Args[0]
	w, err := x.newBagWalk("(" + weight.Layout.Shape[0].Code() + ")")
	if err != nil {
		return err
	}
	bags := fmt.Sprintf("(%s - %d)", w.noffs, bagParam(e, "include_last_offset", 0))
	reg := cType(dtInfos[weight.Layout.DType].reg)
	sizes := x.workOverOuts(e)
	x.headerAs("one thread per output element, a walk over its bag", nil)
	accType := func(o lowering.Operand) string {
		if o.Buffer == e.Outs[0].Buffer {
			return reg
		}
		return "long long"
	}
	return x.eachOutElement(e, sizes, accType, func(out int, _ lowering.Operand) error {
		switch {
		case out == 0:
			return x.bagReduce(w, weight, e.Args[3], reg)
		case out == 1: // offset2bag (empty on the fast sum path)
			ov, err := x.operand(w.offs, "b")
			if err != nil {
				return err
			}
			x.e.line("for (long long b = 0; b < %s; ++b) if ((long long)%s <= o0) acc = b;", bags, ov)
			return nil
		case out == 3 && w.mode == 2:
			return x.bagArgmax(w, weight, reg)
		case w.mode == 0: // bag_size (and max_indices) are zero in sum mode
			return nil
		}
		x.e.line("if (o0 < %s) {", bags) // forward_only's bag_size has a slot per offset
		x.e.in()
		if err := w.open("o0"); err != nil {
			return err
		}
		x.e.line("++acc;")
		w.close()
		x.closeLoops(1)
		return nil
	})
}

// bagWeight opens bag o0's walk and loads v = weight[row, o1].
func (x *xgen) bagWeight(w *bagWalk, weight lowering.Operand, reg string) error {
	if err := w.open("o0"); err != nil {
		return err
	}
	wv, err := x.operand(weight, "row", "o1")
	if err != nil {
		return err
	}
	x.e.line("const %s v = (%s)%s;", reg, reg, wv)
	return nil
}

// bagReduce is output[o0, o1]: the bag's sum, mean or max.
func (x *xgen) bagReduce(w *bagWalk, weight, psw lowering.Operand, reg string) error {
	x.e.line("long long cnt = 0;")
	if err := x.bagWeight(w, weight, reg); err != nil {
		return err
	}
	switch {
	case w.mode == 2:
		x.e.line("if (cnt == 0 || v > acc) acc = v;")
	case psw.Buffer != nil:
		pv, err := x.operand(psw, "i")
		if err != nil {
			return err
		}
		if weight.Layout.DType.Name() == "f32" && w.pad < 0 { // fbgemm's fast path fuses
			x.e.line("acc = km_fma((%s)%s, v, acc);", reg, pv)
		} else {
			x.e.line("acc = k_add(acc, k_mul(v, (%s)%s));", reg, pv)
		}
	default:
		x.e.line("acc = k_add(acc, v);")
	}
	x.e.line("++cnt;")
	w.close()
	if w.mode == 1 {
		x.e.line("acc = k_truediv(acc, (%s)(cnt > 1 ? cnt : 1));", reg)
	}
	return nil
}

// bagArgmax is max_indices[o0, o1] in max mode: the first row holding the
// bag's maximum (0 for an empty bag).
func (x *xgen) bagArgmax(w *bagWalk, weight lowering.Operand, reg string) error {
	x.e.line("long long cnt = 0; %s best = 0;", reg)
	if err := x.bagWeight(w, weight, reg); err != nil {
		return err
	}
	x.e.line("if (cnt == 0 || v > best) { best = v; acc = row; }")
	x.e.line("++cnt;")
	w.close()
	return nil
}

// embeddingBagBackward: grad_weight[o0, o1] over the index positions i
// naming row o0 (sum, mean: grad[bag(i), o1] · psw[i] / bag_size, as a
// fused multiply-add, ATen's axpy) or over the bags whose argmax is o0
// (max; empty bags skipped).
func (x *xgen) embeddingBagBackward() error {
	e := x.k.Extern
	if len(e.Args) != 7 || e.Args[0].Buffer == nil || len(x.out().Layout.Shape) != 2 {
		return fmt.Errorf("expects grad, indices, offsets, offset2bag, bag_size, maximum_indices and per_sample_weights")
	}
	grad, bagSize, maxIdx, psw := e.Args[0], e.Args[4], e.Args[5], e.Args[6]
	w, err := x.newBagWalk("(" + x.out().Layout.Shape[0].Code() + ")")
	if err != nil {
		return err
	}
	acc := x.accType()
	x.e.line("%s acc = 0;", acc)
	bags := "(" + grad.Layout.Shape[0].Code() + ")"
	if w.mode == 2 {
		if bagSize.Buffer == nil || maxIdx.Buffer == nil {
			return fmt.Errorf("max mode needs bag_size and maximum_indices")
		}
		sv, err := x.operand(bagSize, "b")
		if err != nil {
			return err
		}
		mv, err := x.operand(maxIdx, "b", "o1")
		if err != nil {
			return err
		}
		gv, err := x.operand(grad, "b", "o1")
		if err != nil {
			return err
		}
		x.e.line("for (long long b = 0; b < %s; ++b) if (%s != 0 && (long long)%s == o0) acc = k_add(acc, (%s)%s);", bags, sv, mv, acc, gv)
		x.store()
		return nil
	}
	x.e.line("for (long long b = 0; b < %s; ++b) {", bags)
	x.e.in()
	if err := w.open("b"); err != nil {
		return err
	}
	x.e.line("if (row != o0) continue;")
	gv, err := x.operand(grad, "b", "o1")
	if err != nil {
		return err
	}
	x.e.line("double scale = 1.0;")
	if psw.Buffer != nil {
		pv, err := x.operand(psw, "i")
		if err != nil {
			return err
		}
		x.e.line("scale = (double)%s;", pv)
	}
	if w.mode == 1 {
		if bagSize.Buffer == nil {
			return fmt.Errorf("mean mode needs bag_size")
		}
		sv, err := x.operand(bagSize, "b")
		if err != nil {
			return err
		}
		x.e.line("if (%s != 0) scale /= (double)%s;", sv, sv)
	}
	x.e.line("acc = km_fma((%s)scale, (%s)%s, acc);", acc, acc, gv)
	w.close()
	x.closeLoops(1)
	x.store()
	return nil
}
