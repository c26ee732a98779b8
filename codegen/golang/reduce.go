package golang

import (
	"fmt"
	"slices"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// emitReduction runs every outer index on one goroutine's chunk; per
// index the stages run in order, an r-stage as nested loops whose
// innermost one is tight.
func (g *kernelGen) emitReduction() error {
	outer := g.k.Outer
	cost := sym.Const(0)
	for _, s := range g.k.Stages {
		cost = sym.Add(cost, product(s.Reduce))
	}
	g.c.line("total := int64(%s)", product(outer).Code())
	g.forChunks("int64(" + cost.Code() + ")")
	used := g.mentioned()
	cols, err := g.colsCalls(used) // sets g.wide, which sizes the stash
	if err != nil {
		return err
	}
	g.emitScratch()
	g.c.line("for p := lo; p < hi; p++ {")
	g.emitUnravel("p", outer, used)
	for _, call := range cols {
		g.c.line("if n := %s; n > 0 {", call)
		g.c.line("p += n - 1")
		g.c.line("continue")
		g.c.line("}")
	}
	for i, s := range g.k.Stages {
		g.c.line("// stage %d", i)
		if len(s.Reduce) == 0 {
			if err := g.emitBody(s.Body, general); err != nil {
				return fmt.Errorf("stage %d: %w", i, err)
			}
			continue
		}
		if err := g.emitReduceStage(s); err != nil {
			return fmt.Errorf("stage %d: %w", i, err)
		}
	}
	g.c.line("}")
	g.c.line("return nil")
	g.c.line("})")
	return nil
}

// emitReduceStage declares the stage's accumulators and loops over its
// reduction ranges. An accumulator is held in its dtype's register and
// rounded into the dtype at every step (lowering asks for f32 to
// accumulate half types). A scan's accumulator is the same register, read
// by the instructions after it in the loop: the scalar loop runs the range
// in order, and every lane path refuses a scan (simdRejectInstr), so no
// path splits or reorders it.
func (g *kernelGen) emitReduceStage(s *lowering.Stage) error {
	var reds []*lowering.Instr
	for _, in := range s.Body {
		if in.Op == lowering.OpReduce || in.Op == lowering.OpScan {
			reds = append(reds, in)
			if err := g.declareAcc(in); err != nil {
				return fmt.Errorf("tmp%d: %w", in.ID, err)
			}
		}
	}
	last := len(s.Reduce) - 1
	for i := range last {
		v := lowering.ReduceVar(i)
		g.c.line("for %s := int64(0); %s < int64(%s); %s++ {", v, v, s.Reduce[i].Code(), v)
	}
	flat := lowering.FlatReduceIndex(s.Reduce)
	extra := func() {
		for _, in := range reds {
			if in.Reduce == lowering.ReduceArgMax || in.Reduce == lowering.ReduceArgMin {
				g.c.line("k := %s", flat.Code())
				return
			}
		}
	}
	end := "int64(" + s.Reduce[last].Code() + ")"
	if err := g.tightLoop(lowering.ReduceVar(last), "int64(0)", end, s.Body, 1, true, extra); err != nil {
		return err
	}
	for range last {
		g.c.line("}")
	}
	for _, in := range reds {
		g.markUnused(in)
	}
	return nil
}

// reduceArg is the reduction's operand class: the accumulator's dtype,
// except for argmax/argmin (the operand's own) and any/all (bool).
func reduceArg(in *lowering.Instr) ir.DType {
	switch in.Reduce {
	case lowering.ReduceArgMax, lowering.ReduceArgMin:
		return in.Args[0].DType
	case lowering.ReduceAny, lowering.ReduceAll:
		return ir.Bool
	}
	return in.DType
}

// identity is the accumulator's start value for a register class.
func identity(op lowering.ReduceOp, r regClass) string {
	inf := map[regClass][2]string{
		regF32:  {"rt.Inf32(-1)", "rt.Inf32(1)"},
		regF64:  {"math.Inf(-1)", "math.Inf(1)"},
		regI64:  {"int64(math.MinInt64)", "int64(math.MaxInt64)"},
		regBool: {"false", "true"},
	}[r]
	switch op {
	case lowering.ReduceSum:
		return goType(r) + "(0)"
	case lowering.ReduceProd:
		return goType(r) + "(1)"
	case lowering.ReduceMax, lowering.ReduceArgMax, lowering.ReduceLogAddExp:
		return inf[0]
	case lowering.ReduceMin, lowering.ReduceArgMin:
		return inf[1]
	case lowering.ReduceAny:
		return "false"
	}
	return "true"
}

func (g *kernelGen) declareAcc(in *lowering.Instr) error {
	if len(in.Args) != 1 {
		return fmt.Errorf("reduce wants one operand")
	}
	d, err := info(in.DType)
	if err != nil {
		return err
	}
	switch in.Reduce {
	case lowering.ReduceArgMax, lowering.ReduceArgMin:
		ad, err := info(in.Args[0].DType)
		if err != nil {
			return err
		}
		if d.reg != regI64 || ad.reg == regBool {
			return fmt.Errorf("%s of %s into %s is not supported", in.Reduce, in.Args[0].DType.Abbr(), in.DType.Abbr())
		}
		g.c.line("%s_v, %s := %s, int64(0)", tmp(in), tmp(in), identity(in.Reduce, ad.reg))
		g.c.line("_ = %s_v", tmp(in))
		return nil
	case lowering.ReduceAny, lowering.ReduceAll:
		if d.reg != regBool {
			return fmt.Errorf("%s into %s is not supported", in.Reduce, in.DType.Abbr())
		}
	case lowering.ReduceSum, lowering.ReduceProd:
		if d.reg == regBool {
			return fmt.Errorf("%s into bool is not supported", in.Reduce)
		}
	}
	g.c.line("%s := %s", tmp(in), identity(in.Reduce, d.reg))
	return nil
}

// argFns are the runtime's argmax/argmin folds by operand class.
var argFns = map[lowering.ReduceOp][3]string{
	lowering.ReduceArgMax: {"rt.ArgMaxF32", "rt.ArgMaxF64", "rt.ArgMaxI64"},
	lowering.ReduceArgMin: {"rt.ArgMinF32", "rt.ArgMinF64", "rt.ArgMinI64"},
}

// emitReduceUpdate folds the operand into the accumulator.
func (g *kernelGen) emitReduceUpdate(in *lowering.Instr) error {
	x, err := arg(in, 0, reduceArg(in))
	if err != nil {
		return err
	}
	d := dtInfos[in.DType]
	acc := tmp(in)
	switch in.Reduce {
	case lowering.ReduceSum:
		g.c.line("%s = %s", acc, fmt.Sprintf(d.round, acc+" + "+x))
	case lowering.ReduceProd:
		g.c.line("%s = %s", acc, fmt.Sprintf(d.round, acc+" * "+x))
	case lowering.ReduceMax, lowering.ReduceMin:
		fn := map[lowering.ReduceOp]string{lowering.ReduceMax: "max", lowering.ReduceMin: "min"}[in.Reduce]
		if d.reg == regBool {
			fn = map[lowering.ReduceOp]string{lowering.ReduceMax: "||", lowering.ReduceMin: "&&"}[in.Reduce]
			g.c.line("%s = %s %s %s", acc, acc, fn, x)
			return nil
		}
		// Go's max and min propagate NaN: a NaN sticks.
		g.c.line("%s = %s(%s, %s)", acc, fn, acc, x)
	case lowering.ReduceArgMax, lowering.ReduceArgMin:
		g.c.line("%s_v, %s = %s(%s_v, %s, %s, k)", acc, acc, argFns[in.Reduce][dtInfos[reduceArg(in)].reg], acc, acc, x)
	case lowering.ReduceLogAddExp:
		fn := map[regClass]string{regF32: "rt.LogAddExp32", regF64: "rt.LogAddExp64"}[d.reg]
		if fn == "" {
			return fmt.Errorf("logaddexp into %s is not supported", in.DType.Abbr())
		}
		g.c.line("%s = %s", acc, fmt.Sprintf(d.round, fn+"("+acc+", "+x+")"))
	case lowering.ReduceAny:
		g.c.line("%s = %s || %s", acc, acc, x)
	case lowering.ReduceAll:
		g.c.line("%s = %s && %s", acc, acc, x)
	default:
		return fmt.Errorf("unknown reduction %d", in.Reduce)
	}
	return nil
}

// emitScratch makes the chunk's stash buffers (stash.go), from the
// runtime's pool: 16 rows of the stage's ranges, so that column lanes can
// keep one per lane of two groups, or g.wide rows for wide column lanes
// (the scalar and row loops use the first).
func (g *kernelGen) emitScratch() {
	bufs := make([]*lowering.Buffer, 0, len(g.scratch))
	for b := range g.scratch {
		bufs = append(bufs, b)
	}
	slices.SortFunc(bufs, func(a, b *lowering.Buffer) int { return a.ID - b.ID })
	for _, b := range bufs {
		size := fmt.Sprintf("%d * int64(%s) * %d", max(16, g.wide), product(g.scratch[b].Reduce).Code(), b.DType.ItemSize())
		g.c.line("%s := rt.AllocBuffer(%s)", bufName(b), size)
		g.c.line("defer rt.ReleaseBuffer(%s)", bufName(b))
		g.c.line("%s := %s(%s)", viewName(&lowering.Access{Buffer: b, DType: b.DType}), stashDType(b.DType), bufName(b))
	}
}
