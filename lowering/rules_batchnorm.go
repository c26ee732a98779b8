package lowering

import (
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
)

// Batch norm, after torch/_decomp/decompositions.py native_batch_norm_helper:
// one kernel whose outer range is the channel (dim 1) and whose r-stages
// loop over every other dim (N, then the spatial dims), as Inductor's
// looped reduction reads:
//
//	training: sum x → mean; sum (x-mean)² → biased var; rstd = rsqrt(var+eps)
//	eval:     mean = running_mean[c]; rstd = 1/sqrt(running_var[c]+eps)
//	then:     save_mean, save_rstd, the updated running stats (training:
//	          momentum*mean + (1-momentum)*running_mean, and the unbiased
//	          var ssd/(n-1) for running_var), and a last r-stage storing
//	          (x-mean)*rstd*weight[c]+bias[c].
//
// Everything computes in the input's opmath type (f32 for half types) and
// is cast to each result's dtype when stored. _native_batch_norm_legit_
// functional returns the new running stats; native_batch_norm and
// batch_norm in training write them into running_mean/running_var, as
// eager PyTorch does (the input is then marked mutated).

// bnRule is one batch norm op.
type bnRule struct {
	training   string // the training parameter; "" when the op never trains
	stats      bool   // has running_mean / running_var
	functional bool   // results 3 and 4 are the new running stats
	inPlace    bool   // training updates running_mean / running_var in place
	saves      bool   // results 1 and 2 are save_mean / save_rstd
}

func batchNormRules() map[string]rule {
	t := map[string]bnRule{
		"_native_batch_norm_legit_functional":  {training: "training", stats: true, functional: true, saves: true},
		"_native_batch_norm_legit_no_training": {stats: true, saves: true},
		"_native_batch_norm_legit.no_stats":    {training: "training", saves: true},
		"native_batch_norm":                    {training: "training", stats: true, inPlace: true, saves: true},
		"batch_norm":                           {training: "training", stats: true, inPlace: true},
	}
	out := map[string]rule{}
	for name, r := range t {
		out[name] = r.lower
	}
	return out
}

// bnCtx is the batch norm kernel under construction.
type bnCtx struct {
	*kbuilder
	l       *lowerer
	c       *ops.Call
	in      tensorRef
	acc     ir.DType
	ranges  []sym.Expr // N and the spatial sizes
	idx     []sym.Expr // input index: r0, x0, r1, ...
	n       *Instr     // the element count per channel, in acc
	mean    *Instr
	rstd    *Instr
	biasVar *Instr    // training only
	ssd     *Instr    // training only: the sum of squared deviations
	running [2]*Instr // eval only: running_mean[c], running_var[c] as loaded
}

func (r bnRule) lower(l *lowerer, c *ops.Call) error {
	in, err := l.ref(c.Arg("input"))
	if err != nil {
		return err
	}
	shape := in.layout.Shape
	if len(shape) < 2 {
		return noLowering(c.Node, "", "%s on a %d-d input", c.Op, len(shape))
	}
	if !in.layout.DType.IsFloat() {
		return noLowering(c.Node, "", "%s on %s", c.Op, in.layout.DType)
	}
	training := false
	if r.training != "" {
		if training, err = c.Bool(r.training); err != nil {
			return err
		}
	}
	eps, err := c.Float("eps")
	if err != nil {
		return err
	}
	if !training && (!r.stats || c.IsNone("running_mean") || c.IsNone("running_var")) {
		return noLowering(c.Node, "pass running_mean and running_var", "%s in evaluation mode without running stats", c.Op)
	}
	out, err := l.resultRef(c, 0)
	if err != nil {
		return err
	}
	bc := &bnCtx{kbuilder: l.newKernel(shape[1:2]), l: l, c: c, in: in, acc: opmath(in.layout.DType)}
	bc.ranges = append([]sym.Expr{shape[0]}, shape[2:]...)
	bc.idx = []sym.Expr{sym.Symbol(ReduceVar(0)), sym.Symbol(OuterVar(0))}
	for i := 2; i < len(shape); i++ {
		bc.idx = append(bc.idx, sym.Symbol(ReduceVar(i-1)))
	}
	if training {
		bc.batchStats(eps)
	} else if err := bc.runningStats(eps); err != nil {
		return err
	}
	if r.saves {
		if err := bc.storeResults(1, bc.mean, bc.rstd); err != nil {
			return err
		}
	}
	switch {
	case training && r.stats:
		err = r.updateRunning(bc)
	case r.functional: // eval: the running stats come back unchanged
		err = bc.storeResults(3, bc.running[0], bc.running[1])
	}
	if err != nil {
		return err
	}
	return bc.normalize(out)
}

// loadX opens an r-stage over N and the spatial dims and reads x in acc.
func (bc *bnCtx) loadX() *Instr {
	bc.stage(slices.Clone(bc.ranges))
	return bc.cast(bc.load(bc.in, bc.idx), bc.acc)
}

// batchStats is the two-pass mean and biased variance of the channel.
func (bc *bnCtx) batchStats(eps float64) {
	count := sym.Const(1)
	for _, s := range bc.ranges {
		count = sym.Mul(count, s)
	}
	s := bc.reduce(ReduceSum, bc.acc, bc.loadX())
	bc.stage(nil)
	bc.n = bc.index(count, bc.acc)
	bc.mean = bc.call("truediv", bc.acc, s, bc.n)
	d := bc.call("sub", bc.acc, bc.loadX(), bc.mean)
	bc.ssd = bc.reduce(ReduceSum, bc.acc, bc.call("mul", bc.acc, d, d))
	bc.stage(nil)
	bc.biasVar = bc.call("truediv", bc.acc, bc.ssd, bc.n)
	bc.rstd = bc.call("rsqrt", bc.acc, bc.call("add", bc.acc, bc.biasVar, bc.constant(eps, bc.acc)))
}

// runningStats reads the channel's running mean and variance.
func (bc *bnCtx) runningStats(eps float64) error {
	x0 := []sym.Expr{sym.Symbol(OuterVar(0))}
	for i, name := range []string{"running_mean", "running_var"} {
		r, err := bc.l.ref(bc.c.Arg(name))
		if err != nil {
			return err
		}
		bc.running[i] = bc.load(r, x0)
	}
	bc.mean = bc.cast(bc.running[0], bc.acc)
	sd := bc.call("sqrt", bc.acc, bc.call("add", bc.acc, bc.cast(bc.running[1], bc.acc), bc.constant(eps, bc.acc)))
	bc.rstd = bc.call("reciprocal", bc.acc, sd)
	return nil
}

// storeResults stores xs into results from, from+1, ... at the channel,
// skipping results with no elements (eval-mode stats on CPU are empty).
func (bc *bnCtx) storeResults(from int, xs ...*Instr) error {
	for i, x := range xs {
		if from+i >= len(bc.c.Node.Results) {
			return nil
		}
		t, err := tensorType(bc.c.Node.Results[from+i])
		if err != nil {
			return err
		}
		if len(t.Shape) != 1 || isZero(t.Shape[0]) {
			if _, err := bc.l.fresh(bc.c.Node.Results[from+i]); err != nil {
				return err
			}
			continue
		}
		out, err := bc.l.resultRef(bc.c, from+i)
		if err != nil {
			return err
		}
		bc.store(out, []sym.Expr{sym.Symbol(OuterVar(0))}, x)
	}
	return nil
}

// updateRunning computes momentum*stat + (1-momentum)*running for the mean
// and the unbiased variance, into the results or in place.
func (r bnRule) updateRunning(bc *bnCtx) error {
	c := bc.c
	if c.IsNone("running_mean") || c.IsNone("running_var") {
		return nil
	}
	momentum, err := c.Float("momentum")
	if err != nil {
		return err
	}
	x0 := []sym.Expr{sym.Symbol(OuterVar(0))}
	// ATen's CPU kernel: var_sum / (n - 1); n = 1 gives NaN, as there.
	unbiased := bc.call("truediv", bc.acc, bc.ssd, bc.call("sub", bc.acc, bc.n, bc.constant(1, bc.acc)))
	for i, name := range []string{"running_mean", "running_var"} {
		old, err := bc.l.ref(c.Arg(name))
		if err != nil {
			return err
		}
		stat := []*Instr{bc.mean, unbiased}[i]
		dt := bc.acc
		if old.layout.DType == ir.F64 {
			dt = ir.F64
		}
		prev := bc.cast(bc.load(old, x0), dt)
		y := bc.call("add", dt, bc.call("mul", dt, bc.constant(momentum, dt), bc.cast(stat, dt)),
			bc.call("mul", dt, bc.constant(1-momentum, dt), prev))
		switch {
		case r.functional:
			out, err := bc.l.resultRef(c, 3+i)
			if err != nil {
				return err
			}
			bc.store(out, x0, y)
		case r.inPlace:
			bc.store(old, x0, y)
			bc.l.markMutated(old.buf)
		}
	}
	return nil
}

// normalize stores (x-mean)*rstd*weight+bias in a last r-stage.
func (bc *bnCtx) normalize(out tensorRef) error {
	y := bc.call("mul", bc.acc, bc.call("sub", bc.acc, bc.loadX(), bc.mean), bc.rstd)
	x0 := []sym.Expr{sym.Symbol(OuterVar(0))}
	for _, p := range []struct{ name, fn string }{{"weight", "mul"}, {"bias", "add"}} {
		if bc.c.IsNone(p.name) {
			continue
		}
		r, err := bc.l.ref(bc.c.Arg(p.name))
		if err != nil {
			return err
		}
		y = bc.call(p.fn, bc.acc, y, bc.cast(bc.load(r, x0), bc.acc))
	}
	bc.store(out, bc.idx, y)
	return nil
}

// markMutated flags the graph input whose storage a kernel writes.
func (l *lowerer) markMutated(b *Buffer) {
	for _, in := range l.p.Inputs {
		if in.Buffer == b {
			in.Mutated = true
		}
	}
}
