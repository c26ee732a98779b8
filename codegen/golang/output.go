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
			r.stmt(false, "f.outputs[%d] = %s\n", i, v)
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
			r.stmt(false, "f.outputs[%d] = &rt.Tensor{DType: %q, Shape: %s, Data: %s}\n", i, o.Layout.DType.Abbr(), exprList(o.Layout.Shape), frameBuf(o.Buffer))
			continue
		}
		r.stmt(true, "if f.outputs[%d], err = rt.Gather(%s, %q, %s, %s, %s); err != nil {\nreturn rt.Wrap(\"output %d\", err)\n}\n",
			i, frameBuf(o.Buffer), o.Layout.DType.Abbr(), exprList(o.Layout.Shape), exprList(o.Layout.Strides), int64Code(o.Layout.Offset), i)
	}
	for i, in := range r.p.Inputs {
		if in.Buffer == nil || !in.Mutated {
			continue
		}
		r.stmt(false, "if %s {\nif err := rt.WriteBack(f.inputs[%d], %s, %s, %s); err != nil {\nreturn rt.Wrap(%q, err)\n}\n}\n",
			r.owns[in.Buffer], i, frameBuf(in.Buffer), exprList(in.Layout.Strides), int64Code(in.Layout.Offset), "input "+in.Name)
	}
	for _, b := range r.p.Buffers {
		if r.root[b] == b && !handedOut[b] {
			r.stmt(false, "rt.ReleaseBuffer(%s)\n", frameBuf(b))
		}
	}
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
