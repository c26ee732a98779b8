package cuda

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/lowering"
)

// reduceSpec is a reduction's combining function (a k_ prelude function
// on the accumulator's register; "" for argmax/argmin, which keep a value
// and an index) and its identity per register class.
type reduceSpec struct {
	fn       string
	identity [4]string // by reg: float, double, long long, bool
}

var (
	negInfF = "k_bits_f32(0xFF800000u)"
	posInfF = "k_bits_f32(0x7F800000u)"
	negInfD = "k_bits_f64(0xFFF0000000000000ULL)"
	posInfD = "k_bits_f64(0x7FF0000000000000ULL)"
	minI64  = "(-9223372036854775807LL - 1)"
	maxI64  = "9223372036854775807LL"
)

var reduceSpecs = map[lowering.ReduceOp]reduceSpec{
	lowering.ReduceSum:    {"add", [4]string{"0.0f", "0.0", "0LL", "false"}},
	lowering.ReduceProd:   {"mul", [4]string{"1.0f", "1.0", "1LL", "true"}},
	lowering.ReduceMax:    {"maximum", [4]string{negInfF, negInfD, minI64, "false"}},
	lowering.ReduceMin:    {"minimum", [4]string{posInfF, posInfD, maxI64, "true"}},
	lowering.ReduceArgMax: {"", [4]string{negInfF, negInfD, minI64, "false"}},
	lowering.ReduceArgMin: {"", [4]string{posInfF, posInfD, maxI64, "true"}},
	lowering.ReduceAny:    {"logical_or", [4]string{"0.0f", "0.0", "0LL", "false"}},
	lowering.ReduceAll:    {"logical_and", [4]string{"1.0f", "1.0", "1LL", "true"}},
	// logcumsumexp's scan (k_logaddexp: prelude_math.go); floats only
	lowering.ReduceLogAddExp: {"logaddexp", [4]string{negInfF, negInfD, "", ""}},
}

func isArg(r lowering.ReduceOp) bool { return r == lowering.ReduceArgMax || r == lowering.ReduceArgMin }

// initAccumulators sets a stage's accumulators to their identities.
func (g *kgen) initAccumulators(s *lowering.Stage) error {
	for _, in := range s.Body {
		if in.Op != lowering.OpReduce && in.Op != lowering.OpScan {
			continue
		}
		spec, ok := reduceSpecs[in.Reduce]
		if !ok {
			return fmt.Errorf("tmp%d: unknown reduction %s", in.ID, in.Reduce)
		}
		if len(in.Args) != 1 {
			return fmt.Errorf("tmp%d: reduce takes 1 argument, has %d", in.ID, len(in.Args))
		}
		vdt := in.DType
		if isArg(in.Reduce) {
			vdt = in.Args[0].DType
		}
		d, err := info(vdt)
		if err != nil {
			return err
		}
		init := fmt.Sprintf("%s = %s;", g.lane(fmt.Sprintf("tmp%d", in.ID)), spec.identity[d.reg])
		if isArg(in.Reduce) {
			init = fmt.Sprintf("%s = %s; %s = -1;", g.lane(fmt.Sprintf("tmp%d_v", in.ID)), spec.identity[d.reg], g.lane(fmt.Sprintf("tmp%d", in.ID)))
		}
		if g.plan.lanes > 1 {
			g.e.line("for (int v = 0; v < %d; ++v) { %s }", g.plan.lanes, init)
		} else {
			g.e.line("%s", init)
		}
	}
	return nil
}

// combine folds the current element into a reduce's accumulator.
func (g *kgen) combine(s *lowering.Stage, in *lowering.Instr) error {
	arg := in.Args[0]
	acc := g.lane(fmt.Sprintf("tmp%d", in.ID))
	if isArg(in.Reduce) {
		if in.DType != ir.I64 {
			return fmt.Errorf("%s must produce i64, not %s", in.Reduce, in.DType.Abbr())
		}
		best, cmp := g.lane(fmt.Sprintf("tmp%d_v", in.ID)), ">"
		if in.Reduce == lowering.ReduceArgMin {
			cmp = "<"
		}
		// The first maximum wins; NaN counts as larger than everything.
		x := g.ref(arg)
		g.e.line("if (%s < 0 || (%s != %s && %s == %s) || %s %s %s) { %s = %s; %s = %s; }",
			acc, x, x, best, best, x, cmp, best, best, x, acc, lowering.FlatReduceIndex(s.Reduce).Code())
		return nil
	}
	x, err := castExpr(g.ref(arg), arg.DType, in.DType)
	if err != nil {
		return err
	}
	fn := reduceSpecs[in.Reduce].fn
	if d, _ := info(in.DType); d.reg == regBool || in.Reduce == lowering.ReduceAny || in.Reduce == lowering.ReduceAll {
		if in.DType != ir.Bool {
			return fmt.Errorf("%s must produce bool, not %s", in.Reduce, in.DType.Abbr())
		}
		switch in.Reduce {
		case lowering.ReduceSum, lowering.ReduceMax, lowering.ReduceAny:
			fn = "logical_or"
		default:
			fn = "logical_and"
		}
	}
	g.e.line("%s = %s;", acc, roundExpr(fmt.Sprintf("k_%s(%s, %s)", fn, acc, x), in.DType))
	return nil
}

// fnClass is the set of register classes a function is defined on.
type fnClass uint8

const (
	onF fnClass = 1 << iota // float and double
	onI                     // long long
	onB                     // bool
)

func (c fnClass) has(r reg) bool {
	switch r {
	case regFloat, regDouble:
		return c&onF != 0
	case regInt:
		return c&onI != 0
	}
	return c&onB != 0
}

// fnClasses says, for every lowering.Fns name, on which operand registers
// the prelude defines k_<name>.
var fnClasses = map[string]fnClass{
	"neg": onF | onI, "abs": onF | onI, "exp": onF, "exp2": onF, "expm1": onF, "log": onF, "log2": onF,
	"log10": onF, "log1p": onF, "sqrt": onF, "rsqrt": onF, "reciprocal": onF, "sin": onF, "cos": onF,
	"tan": onF, "asin": onF, "acos": onF, "atan": onF, "sinh": onF, "cosh": onF, "tanh": onF, "asinh": onF,
	"acosh": onF, "atanh": onF, "sigmoid": onF, "erf": onF, "erfc": onF, "erfinv": onF, "floor": onF | onI,
	"ceil": onF | onI, "round": onF | onI, "trunc": onF | onI, "frac": onF, "sign": onF | onI | onB,
	"signbit": onF | onI | onB, "logical_not": onF | onI | onB, "bitwise_not": onI | onB,
	"isnan": onF | onI | onB, "isinf": onF | onI | onB, "isfinite": onF | onI | onB, "lgamma": onF,
	"add": onF | onI | onB, "sub": onF | onI, "mul": onF | onI | onB, "truediv": onF,
	"floordiv": onF | onI, "remainder": onF | onI, "fmod": onF | onI, "pow": onF | onI,
	"maximum": onF | onI | onB, "minimum": onF | onI | onB, "fmax": onF | onI, "fmin": onF | onI,
	"atan2": onF, "hypot": onF, "copysign": onF,
	"eq": onF | onI | onB, "ne": onF | onI | onB, "lt": onF | onI | onB, "le": onF | onI | onB,
	"gt": onF | onI | onB, "ge": onF | onI | onB,
	"logical_and": onF | onI | onB, "logical_or": onF | onI | onB, "logical_xor": onF | onI | onB,
	"bitwise_and": onI | onB, "bitwise_or": onI | onB, "bitwise_xor": onI | onB,
	"lshift": onI, "rshift": onI, "where": onF | onI | onB,
	"rand_uniform": onI, "rand_normal": onI, "rand_bits": onI, // int64 (seed, stream, index)
}

// FnDefinedOn reports whether the CUDA backend computes the lowering.Fns
// function name on operands of dtype dt (the operand type, not the
// result's: comparisons take floats and produce bool).
func FnDefinedOn(name string, dt ir.DType) bool {
	d, err := info(dt)
	return err == nil && fnClasses[name].has(d.reg)
}

// HasReduce reports whether the CUDA backend implements a reduction.
func HasReduce(op lowering.ReduceOp) bool {
	_, ok := reduceSpecs[op]
	return ok
}

// hasScan reports whether stage s holds an OpScan.
func hasScan(s *lowering.Stage) bool {
	for _, in := range s.Body {
		if in.Op == lowering.OpScan {
			return true
		}
	}
	return false
}
