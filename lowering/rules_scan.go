package lowering

import (
	"math"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Scans: cumsum, cumprod and logcumsumexp as one loop kernel. The scanned dim is the
// kernel's one reduce range (r0), walked in order; every other dim is an
// outer range. Per element, the stage loads the input, converts it to the
// result dtype (ATen's cumsum casts self to dtype first), folds it into
// the running value (OpScan) and stores the prefix at the same element.
// A pointwise prologue fuses into the stage (the scheduler re-splits its
// space), so cumsum(x * 2, 1) is one kernel; Inductor's CPU backend runs
// the prologue as a kernel and calls aten.cumsum.

// scanRule is one scan op: its combining function.
type scanRule struct{ op ReduceOp }

func scanRules() map[string]rule {
	return map[string]rule{
		"cumsum":       scanRule{ReduceSum}.lower,
		"cumprod":      scanRule{ReduceProd}.lower,
		"logcumsumexp": scanRule{ReduceLogAddExp}.lower,
		"cummax":       scanRule{ReduceMax}.extremum,
		"cummin":       scanRule{ReduceMin}.extremum,
	}
}

// scanAcc is the type ATen's CPU scan accumulates a result of type dt in
// (cpu_cum_base_kernel's at::acc_type<scalar_t, /*is_cuda=*/false>):
// float32 in float64, the half types in float32, integers in int64. The
// second result is false for a type the CPU kernel does not implement
// (bool: "cumsum_out_cpu" not implemented for 'Bool') or kiln does not
// lower (complex).
func scanAcc(dt ir.DType) (ir.DType, bool) {
	switch {
	case dt == ir.F32:
		return ir.F64, true
	case dt == ir.F64:
		return ir.F64, true
	case dt.IsReducedFloat():
		return ir.F32, true
	case dt.IsInt():
		return ir.I64, true
	}
	return dt, false
}

func (r scanRule) lower(l *lowerer, c *ops.Call) error {
	in, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	acc, ok := scanAcc(out.layout.DType)
	switch {
	case r.op == ReduceLogAddExp && !out.layout.DType.IsFloat():
		d := diag.Errorf(l.node.Pos, ops.CodeDType, "cast to a floating dtype first",
			"%q not implemented for '%s'", "logcumsumexp_out_cpu", ops.ScalarTypeName(out.layout.DType))
		d.Node = l.node.Name
		return d
	case out.layout.DType == ir.Bool:
		// Fake tensors accept it; eager's CPU kernel raises at run time.
		d := diag.Errorf(l.node.Pos, ops.CodeDType, "scan in an integer or float dtype (dtype=torch.int64)",
			"%q not implemented for 'Bool'", c.Op.Schema.Name+"_out_cpu")
		d.Node = l.node.Name
		return d
	case !ok:
		return noLowering(l.node, "compute the scan in a float or integer dtype (dtype=)",
			"no lowering for %s into %s (kiln scans float and integer results)", c.Op, out.layout.DType)
	}
	b, idx, err := l.scanKernel(c, in)
	if err != nil {
		return err
	}
	x := b.cast(b.cast(b.load(in, idx), out.layout.DType), acc)
	b.store(out, idx, b.scan(r.op, acc, x))
	return nil
}

// scanKernel starts the kernel of a scan of in along the call's dim: the
// scanned dim is its one stage's reduce range, the others its outer
// ranges; idx is in's element at (outer, r0).
func (l *lowerer) scanKernel(c *ops.Call, in tensorRef) (*kbuilder, []sym.Expr, error) {
	rank := len(in.layout.Shape)
	d, err := dimArg(c, "dim", max(rank, 1)) // a 0-d tensor takes dim 0 or -1
	if err != nil {
		return nil, nil, err
	}
	idx, outer, size := scanIndex(in.layout.Shape, d)
	b := l.newKernel(outer)
	if d == rank-1 {
		// The innermost outer range is not the tensor's last dim, the one
		// the align pass proved a width for.
		b.k.Vec = 1
	}
	b.stage([]sym.Expr{size})
	return b, idx, nil
}

// extremum is cummax / cummin: the running extremum and the index it was
// taken from, one kernel of one stage. ATen's CPU cummax_cummin_helper
// moves to element i when isnan(x) || (!isnan(out) && x >= out) (<= for
// cummin): a tie moves the index to the later element, and once a NaN is
// seen only a later NaN moves it. With m the NaN-propagating running
// extremum including x, that condition is isnan(x) || x == m, so the
// index is a max-scan of (cond ? i : -1). The value is x at that index,
// which is m except for its sign when m is zero (ties between -0.0 and
// 0.0 move to the later one): floats scan 2*i + signbit(x) instead of i
// and put the sign back.
func (r scanRule) extremum(l *lowerer, c *ops.Call) error {
	in, err := l.ref(c.Arg("self"))
	if err != nil {
		return err
	}
	vals, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	idxs, err := l.resultRef(c, 1)
	if err != nil {
		return err
	}
	dt := in.layout.DType
	if dt.IsComplex() {
		return noLowering(l.node, "", "no lowering for %s of %s", c.Op, dt)
	}
	b, idx, err := l.scanKernel(c, in)
	if err != nil {
		return err
	}
	acc := accType(dt)
	x := b.cast(b.load(in, idx), acc)
	m := b.scan(r.op, acc, x)
	cond := b.call("eq", ir.Bool, x, m)
	key := b.index(sym.Symbol(ReduceVar(0)), ir.I64)
	float := acc.IsFloat()
	if float {
		cond = b.call("logical_or", ir.Bool, b.call("isnan", ir.Bool, x), cond)
		sign := b.cast(b.call("signbit", ir.Bool, x), ir.I64)
		key = b.call("add", ir.I64, b.call("mul", ir.I64, key, b.constInt(2, ir.I64)), sign)
	}
	s := b.scan(ReduceMax, ir.I64, b.call("where", ir.I64, cond, key, b.constInt(-1, ir.I64)))
	at, v := s, m
	if float {
		one := b.constInt(1, ir.I64)
		at = b.call("rshift", ir.I64, s, one)
		neg := b.call("eq", ir.Bool, b.call("bitwise_and", ir.I64, s, one), one)
		zero := b.call("where", acc, neg, b.constant(math.Copysign(0, -1), acc), b.constant(0, acc))
		v = b.call("where", acc, b.call("eq", ir.Bool, m, b.constant(0, acc)), zero, m)
	}
	b.store(vals, idx, v)
	b.store(idxs, idx, at)
	return nil
}

// scanIndex maps a tensor of shape scanned along d onto the kernel: r0
// for dim d, x0, x1, ... for the others in order (outer). size is the
// scanned dim's size (1 for a 0-d tensor).
func scanIndex(shape []sym.Expr, d int) (idx, outer []sym.Expr, size sym.Expr) {
	idx = make([]sym.Expr, len(shape))
	size = sym.Const(1)
	for i, s := range shape {
		if i == d {
			idx[i], size = sym.Symbol(ReduceVar(0)), s
			continue
		}
		idx[i] = sym.Symbol(OuterVar(len(outer)))
		outer = append(outer, s)
	}
	return idx, outer, size
}

// scan folds x into a running value of type dt (see OpScan).
func (b *kbuilder) scan(op ReduceOp, dt ir.DType, x *Instr) *Instr {
	return b.emit(&Instr{Op: OpScan, Reduce: op, DType: dt, Args: []*Instr{x}})
}
