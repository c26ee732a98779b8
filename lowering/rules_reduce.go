package lowering

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Reductions: Outer is the result shape (keepdim 1s included), an r-stage
// loops over the reduced dims (r0, r1, ... in dim order), and an outer
// stage finishes and stores. Half types accumulate in f32, integer sums
// in int64 (the result dtype fakeprop gives), as ATen does.

// redKind is a reduction's shape of body.
type redKind uint8

const (
	redPlain     redKind = iota // one ReduceOp
	redMean                     // sum, then divide by the count
	redVar                      // mean stage, then sum of squared deviations
	redMinMaxIx                 // values and indices (max.dim, min.dim)
	redMinMax                   // aminmax: min and max
	redLogSumExp                // max stage, then log(sum(exp(x - max))) + max
	redNorm                     // linalg_vector_norm (rules_reduce_norm.go)
)

// redRule is one reduction op: its kind, combining op, and how its
// parameters are spelled.
type redRule struct {
	kind   redKind
	op     ReduceOp
	dim    string // the dim parameter ("" reduces everything)
	std    bool   // var kinds: take the square root
	nanOK  bool   // nansum: NaN reads as 0
	withMu bool   // var_mean / std_mean: also store the mean
}

func reduceRules() map[string]rule {
	t := map[string]redRule{
		"sum": {op: ReduceSum}, "sum.dim_IntList": {op: ReduceSum, dim: "dim"},
		"nansum": {op: ReduceSum, dim: "dim", nanOK: true},
		"prod":   {op: ReduceProd}, "prod.dim_int": {op: ReduceProd, dim: "dim"},
		"mean": {kind: redMean}, "mean.dim": {kind: redMean, dim: "dim"},
		"amax": {op: ReduceMax, dim: "dim"}, "amin": {op: ReduceMin, dim: "dim"},
		"max": {op: ReduceMax}, "min": {op: ReduceMin},
		"max.dim": {kind: redMinMaxIx, op: ReduceMax, dim: "dim"}, "min.dim": {kind: redMinMaxIx, op: ReduceMin, dim: "dim"},
		"aminmax": {kind: redMinMax, dim: "dim"},
		"argmax":  {op: ReduceArgMax, dim: "dim"}, "argmin": {op: ReduceArgMin, dim: "dim"},
		"any": {op: ReduceAny}, "any.dim": {op: ReduceAny, dim: "dim"}, "any.dims": {op: ReduceAny, dim: "dim"},
		"all": {op: ReduceAll}, "all.dim": {op: ReduceAll, dim: "dim"}, "all.dims": {op: ReduceAll, dim: "dim"},
		"logsumexp":          {kind: redLogSumExp, dim: "dim"},
		"linalg_vector_norm": {kind: redNorm, dim: "dim"},
	}
	for _, v := range []string{"var", "std"} {
		std := v == "std"
		t[v] = redRule{kind: redVar, std: std}
		t[v+".dim"] = redRule{kind: redVar, std: std, dim: "dim"}
		t[v+".correction"] = redRule{kind: redVar, std: std, dim: "dim"}
		t[v+"_mean.correction"] = redRule{kind: redVar, std: std, dim: "dim", withMu: true}
	}
	t["var_mean"] = redRule{kind: redVar, withMu: true}
	t["var_mean.dim"] = redRule{kind: redVar, dim: "dim", withMu: true}
	out := map[string]rule{}
	for name, r := range t {
		out[name] = r.lower
	}
	return out
}

// redCtx is a reduction kernel under construction.
type redCtx struct {
	*kbuilder
	c       *ops.Call
	in      tensorRef
	reduced []bool     // per input dim
	ranges  []sym.Expr // sizes of r0, r1, ...; [1] when nothing is reduced
	outer   []sym.Expr
	loadIdx []sym.Expr // input index in terms of x and r
}

func (r redRule) lower(l *lowerer, c *ops.Call) error {
	in, err := l.ref(c.Args[0])
	if err != nil {
		return err
	}
	out0, err := tensorType(c.Node.Out())
	if err != nil {
		return err
	}
	reduced, err := r.reducedDims(c, len(in.layout.Shape))
	if err != nil {
		return err
	}
	rc := newRedCtx(l, c, in, reduced, out0.Shape)
	switch r.kind {
	case redMean:
		return r.mean(l, rc)
	case redVar:
		return r.variance(l, rc)
	case redMinMaxIx:
		return r.valuesIndices(l, rc)
	case redMinMax:
		return r.aminmax(l, rc)
	case redLogSumExp:
		return r.logsumexp(l, rc)
	case redNorm:
		return r.vectorNorm(l, rc)
	}
	return r.plain(l, rc)
}

// reducedDims marks the dims the call reduces: the dim parameter (an int,
// a list, or None/[] for all dims), wrapped like PyTorch's maybe_wrap_dim.
func (r redRule) reducedDims(c *ops.Call, rank int) ([]bool, error) {
	all := make([]bool, rank)
	for i := range all {
		all[i] = true
	}
	if r.dim == "" || !c.Has(r.dim) || c.IsNone(r.dim) {
		return all, nil
	}
	dims, err := c.Ints(r.dim)
	if err != nil {
		return nil, err
	}
	if len(dims) == 0 {
		return all, nil
	}
	out := make([]bool, rank)
	for _, d := range dims {
		w := d
		if w < 0 {
			w += int64(max(rank, 1))
		}
		if w < 0 || w >= int64(max(rank, 1)) {
			return nil, fmt.Errorf("%s: dim %d out of range for rank %d", c.Op, d, rank)
		}
		if rank > 0 {
			out[w] = true
		}
	}
	return out, nil
}

// newRedCtx starts the kernel: outer over the result shape, the input
// index mapping kept dims to x vars and reduced dims to r vars.
func newRedCtx(l *lowerer, c *ops.Call, in tensorRef, reduced []bool, outShape []sym.Expr) *redCtx {
	rc := &redCtx{kbuilder: l.newKernel(outShape), c: c, in: in, reduced: reduced, outer: outShape}
	keep := len(outShape) == len(in.layout.Shape)
	xi, ri := 0, 0
	for d, size := range in.layout.Shape {
		switch {
		case reduced[d]:
			rc.ranges = append(rc.ranges, size)
			rc.loadIdx = append(rc.loadIdx, sym.Symbol(ReduceVar(ri)))
			ri++
			if keep {
				xi++
			}
		default:
			rc.loadIdx = append(rc.loadIdx, sym.Symbol(OuterVar(xi)))
			xi++
		}
	}
	if len(rc.ranges) == 0 { // a 0-d input, or no dim: one iteration
		rc.ranges = []sym.Expr{sym.Const(1)}
	}
	return rc
}

// count is the number of reduced elements.
func (rc *redCtx) count() sym.Expr {
	n := sym.Const(1)
	for _, s := range rc.ranges {
		n = sym.Mul(n, s)
	}
	return n
}

// loadAs opens an r-stage and reads the input converted to dt.
func (rc *redCtx) loadAs(dt ir.DType) *Instr {
	rc.stage(slices.Clone(rc.ranges))
	return rc.cast(rc.load(rc.in, rc.loadIdx), dt)
}

// storeResult stores x into result i of the node at the outer index.
func (rc *redCtx) storeResult(l *lowerer, i int, x *Instr) error {
	out, err := l.resultRef(rc.c, i)
	if err != nil {
		return err
	}
	rc.store(out, outerVars(len(rc.outer)), x)
	return nil
}

// accType is the accumulation type for a result of type out.
func accType(out ir.DType) ir.DType { return arithType(opmath(out)) }

func (r redRule) plain(l *lowerer, rc *redCtx) error {
	inDT, outDT := rc.in.layout.DType, rc.c.Node.Out().Type.Tensor.DType
	op, acc := r.op, accType(outDT)
	switch {
	case op == ReduceAny || op == ReduceAll:
		acc = ir.Bool
	case op == ReduceArgMax || op == ReduceArgMin:
		acc = accType(inDT)
	case (op == ReduceMax || op == ReduceMin) && inDT == ir.Bool:
		op, acc = map[ReduceOp]ReduceOp{ReduceMax: ReduceAny, ReduceMin: ReduceAll}[op], ir.Bool
	}
	x := rc.loadAs(acc)
	if r.nanOK && acc.IsFloat() {
		x = rc.call("where", acc, rc.call("isnan", ir.Bool, x), rc.constant(0, acc), x)
	}
	rdt := acc
	if op == ReduceArgMax || op == ReduceArgMin {
		rdt = ir.I64
	}
	y := rc.reduce(op, rdt, x)
	rc.stage(nil)
	return rc.storeResult(l, 0, y)
}

// mean divides the sum by the count (an index expression: sizes may be
// symbolic) in a following outer stage.
func (r redRule) mean(l *lowerer, rc *redCtx) error {
	acc := accType(rc.c.Node.Out().Type.Tensor.DType)
	if !acc.IsFloat() {
		return fmt.Errorf("mean: result type %s is not a float", acc)
	}
	s := rc.reduce(ReduceSum, acc, rc.loadAs(acc))
	rc.stage(nil)
	return rc.storeResult(l, 0, rc.call("truediv", acc, s, rc.index(rc.count(), acc)))
}

// variance is two r-stages: the mean, then the sum of squared deviations
// from it; var = ssd / max(N - correction, 0) (std: its square root).
func (r redRule) variance(l *lowerer, rc *redCtx) error {
	acc := accType(rc.c.Node.Out().Type.Tensor.DType)
	if !acc.IsFloat() {
		return fmt.Errorf("%s: result type %s is not a float", rc.c.Op, acc)
	}
	corr, err := correction(rc.c)
	if err != nil {
		return err
	}
	s := rc.reduce(ReduceSum, acc, rc.loadAs(acc))
	rc.stage(nil)
	n := rc.index(rc.count(), acc)
	mu := rc.call("truediv", acc, s, n)
	d := rc.call("sub", acc, rc.loadAs(acc), mu)
	ssd := rc.reduce(ReduceSum, acc, rc.call("mul", acc, d, d))
	rc.stage(nil)
	den := rc.call("maximum", acc, rc.call("sub", acc, n, rc.constant(corr, acc)), rc.constant(0, acc))
	v := rc.call("truediv", acc, ssd, den)
	if r.std {
		v = rc.call("sqrt", acc, v)
	}
	if err := rc.storeResult(l, 0, v); err != nil {
		return err
	}
	if r.withMu {
		return rc.storeResult(l, 1, mu)
	}
	return nil
}

// correction reads `correction` (default 1) or `unbiased`.
func correction(c *ops.Call) (float64, error) {
	switch {
	case c.Has("correction") && !c.IsNone("correction"):
		return c.Float("correction")
	case c.Has("unbiased"):
		u, err := c.Bool("unbiased")
		return b2f(u), err
	}
	return 1, nil
}

// valuesIndices is max.dim / min.dim: the extremum and its first index.
func (r redRule) valuesIndices(l *lowerer, rc *redCtx) error {
	acc := accType(rc.in.layout.DType)
	x := rc.loadAs(acc)
	argOp := map[ReduceOp]ReduceOp{ReduceMax: ReduceArgMax, ReduceMin: ReduceArgMin}[r.op]
	v := rc.reduce(r.op, acc, x)
	ix := rc.reduce(argOp, ir.I64, x)
	rc.stage(nil)
	if err := rc.storeResult(l, 0, v); err != nil {
		return err
	}
	return rc.storeResult(l, 1, ix)
}

func (r redRule) aminmax(l *lowerer, rc *redCtx) error {
	acc := accType(rc.in.layout.DType)
	x := rc.loadAs(acc)
	lo, hi := rc.reduce(ReduceMin, acc, x), rc.reduce(ReduceMax, acc, x)
	rc.stage(nil)
	if err := rc.storeResult(l, 0, lo); err != nil {
		return err
	}
	return rc.storeResult(l, 1, hi)
}

// logsumexp: m = max x; log(sum exp(x - m)) + m, with m taken as 0 where
// it is infinite (ATen's guard against inf - inf).
func (r redRule) logsumexp(l *lowerer, rc *redCtx) error {
	acc := accType(rc.c.Node.Out().Type.Tensor.DType)
	if !acc.IsFloat() {
		acc = ir.F32
	}
	m := rc.reduce(ReduceMax, acc, rc.loadAs(acc))
	rc.stage(nil)
	zero := rc.constant(0, acc)
	safe := rc.call("where", acc, rc.call("isinf", ir.Bool, m), zero, m)
	e := rc.call("exp", acc, rc.call("sub", acc, rc.loadAs(acc), safe))
	s := rc.reduce(ReduceSum, acc, e)
	rc.stage(nil)
	return rc.storeResult(l, 0, rc.call("add", acc, rc.call("log", acc, s), safe))
}
