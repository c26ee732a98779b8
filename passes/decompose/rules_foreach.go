package decompose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// _foreach_ ops become one call of the per-tensor op per list element, as
// Inductor lowers them (torch/_inductor/lowering.py register_foreach_pointwise:
// one pointwise computation per element, grouped into a foreach kernel
// later). Parameter j of the foreach overload is parameter j of its target:
// a list argument passes its element i, anything else passes unchanged. A
// target parameter that is keyword-only is passed as a keyword, and left
// out when it holds the default.

// foreachTargets maps each functional _foreach_ overload to its per-element op.
var foreachTargets = func() map[string]string {
	m := map[string]string{}
	for _, op := range []string{"add", "sub"} {
		m["_foreach_"+op+".Scalar"] = op + ".Tensor"
		m["_foreach_"+op+".List"] = op + ".Tensor"
	}
	m["_foreach_add.Tensor"] = "add.Tensor"
	for _, op := range []string{"mul", "div"} {
		for _, form := range []string{"Scalar", "List", "Tensor"} {
			m["_foreach_"+op+"."+form] = op + ".Tensor"
		}
	}
	// A Scalar bound is clamp_min / clamp_max (ATen's foreach_maximum is
	// clamp_min for a scalar).
	m["_foreach_maximum.Scalar"], m["_foreach_maximum.List"] = "clamp_min.default", "maximum.default"
	m["_foreach_minimum.Scalar"], m["_foreach_minimum.List"] = "clamp_max.default", "minimum.default"
	m["_foreach_addcmul.Scalar"], m["_foreach_addcdiv.Scalar"] = "addcmul.default", "addcdiv.default"
	m["_foreach_pow.ScalarAndTensor"] = "pow.Scalar"
	m["_foreach_pow.Scalar"] = "pow.Tensor_Scalar"
	m["_foreach_pow.List"] = "pow.Tensor_Tensor"
	for _, op := range []string{"neg", "abs", "exp", "log", "sqrt", "reciprocal", "sigmoid", "tanh", "sign"} {
		m["_foreach_"+op+".default"] = op + ".default"
	}
	return m
}()

// foreachRows are the table rows of the _foreach_ decompositions, sorted
// by op name so the table reads the same on every run.
func foreachRows() []Rule {
	names := make([]string, 0, len(foreachTargets))
	for name := range foreachTargets {
		names = append(names, name)
	}
	slices.Sort(names)
	rows := make([]Rule, len(names))
	for i, name := range names {
		target := foreachTargets[name]
		rows[i] = Rule{"aten::" + name, "one " + target + " per list element (Inductor lowering.py register_foreach_pointwise)", foreach}
	}
	return rows
}

// foreach builds the per-element calls of a _foreach_ node; only used
// results are built (the others would be dead code).
func foreach(e *emitter, c *ops.Call) []*ir.Value {
	name := strings.TrimPrefix(c.Op.QualifiedName(), "aten::")
	target := ops.Lookup("aten::" + foreachTargets[name])
	if target == nil {
		e.err = fmt.Errorf("internal: no per-element op for %s", name)
		return nil
	}
	// The node has a result per element up to the last one read, so a
	// list may be longer than the results.
	n := len(e.orig.Results)
	for _, p := range c.Op.Schema.Params {
		if a := c.Arg(p.Name); a.IsSequence() && len(a.Elems) < n {
			e.whole("list %s has %d tensors for %d results", p.Name, len(a.Elems), n)
			return nil
		}
	}
	out := make([]*ir.Value, n)
	for i := range out {
		if e.used(i) {
			args, kwargs := foreachElemArgs(c, target, i)
			out[i] = e.call(target.QualifiedName(), args, kwargs...)
		}
	}
	return out
}

// foreachElemArgs are the arguments of element i's call of target.
func foreachElemArgs(c *ops.Call, target *ops.Op, i int) ([]ir.Arg, []ir.Kwarg) {
	var args []ir.Arg
	var kwargs []ir.Kwarg
	tps := target.Schema.Params
	for j, p := range c.Op.Schema.Params {
		if j >= len(tps) {
			break
		}
		a := c.Arg(p.Name)
		if a.IsSequence() {
			a = a.Elems[i]
		}
		tp := tps[j]
		switch {
		case !tp.KwOnly:
			args = append(args, a)
		case tp.HasDef && a.String() == tp.Default:
		default:
			kwargs = append(kwargs, kw(tp.Name, a))
		}
	}
	return args, kwargs
}
