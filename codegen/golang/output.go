package golang

import (
	"fmt"
	"strconv"

	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/lowering"
)

// emitOutputs returns each output (a tensor gathered from its buffer, or
// the buffer itself when it is exactly the output; or a value), writes
// mutated inputs back, and hands dead buffers back to the pool.
func (r *runGen) emitOutputs() error {
	r.c.line("outputs := make([]any, %d)", len(r.p.Outputs))
	reused := map[*lowering.Buffer]bool{}
	for _, b := range r.p.Buffers {
		if b.ReuseOf != nil {
			reused[b.ReuseOf] = true
		}
	}
	handedOut := map[*lowering.Buffer]bool{} // roots whose memory an output keeps
	for i, o := range r.p.Outputs {
		if o.Buffer == nil {
			v, err := valueExpr(o.Value)
			if err != nil {
				return fmt.Errorf("output %d (%s): %w", i, o.Name, err)
			}
			r.c.line("outputs[%d] = %s", i, v)
			continue
		}
		if _, err := info(o.Layout.DType); err != nil {
			return fmt.Errorf("output %d (%s): %w", i, o.Name, err)
		}
		if !r.done[o.Buffer] {
			return fmt.Errorf("output %d (%s): buffer %s is not in the program", i, o.Name, o.Buffer.Name)
		}
		root := r.root[o.Buffer]
		if root != nil && !handedOut[root] && !reused[o.Buffer] && covers(o.Layout, o.Buffer) {
			handedOut[root] = true
			r.c.line("outputs[%d] = &rt.Tensor{DType: %q, Shape: %s, Data: %s}", i, o.Layout.DType.Abbr(), exprList(o.Layout.Shape), bufName(o.Buffer))
			continue
		}
		r.c.line("if outputs[%d], err = rt.Gather(%s, %q, %s, %s, %s); err != nil {", i, bufName(o.Buffer), o.Layout.DType.Abbr(),
			exprList(o.Layout.Shape), exprList(o.Layout.Strides), int64Code(o.Layout.Offset))
		r.c.line("return nil, fmt.Errorf(\"output %d: %%w\", err)", i)
		r.c.line("}")
	}
	for i, in := range r.p.Inputs {
		if in.Buffer == nil || !in.Mutated {
			continue
		}
		r.c.line("if %s {", r.owns[in.Buffer])
		r.c.line("if err := rt.WriteBack(inputs[%d], %s, %s, %s); err != nil {", i, bufName(in.Buffer), exprList(in.Layout.Strides), int64Code(in.Layout.Offset))
		r.c.line("return nil, fmt.Errorf(\"input %%s: %%w\", %q, err)", in.Name)
		r.c.line("}")
		r.c.line("}")
	}
	for _, b := range r.p.Buffers {
		if r.root[b] == b && !handedOut[b] {
			r.c.line("rt.ReleaseBuffer(%s)", bufName(b))
		}
	}
	r.c.line("return outputs, err")
	return nil
}

// valueExpr renders a non-tensor output.
func valueExpr(v any) (string, error) {
	switch x := v.(type) {
	case nil: // a graph that returns None there
		return "nil", nil
	case int64:
		return "int64(" + strconv.FormatInt(x, 10) + ")", nil
	case int:
		return "int64(" + strconv.Itoa(x) + ")", nil
	case float64:
		return f64Lit(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case sym.Expr:
		if x.IsBool() {
			return "(" + x.Code() + ")", nil
		}
		return "int64(" + x.Code() + ")", nil
	}
	return "", fmt.Errorf("value %v (%T) is not supported", v, v)
}
