package ir

import (
	"errors"
	"fmt"

	"github.com/kiln-compiler/kiln/diag"
)

// Stage names the invariants that hold at a point in the pipeline. Each
// stage includes the ones before it.
type Stage uint8

const (
	StageParsed     Stage = iota // structure only
	StageTyped                   // after fakeprop: every value typed
	StageFunctional              // after functionalize: no mutation but the epilogue
)

// VerifyError lists every problem the verifier found.
type VerifyError struct {
	Problems []error
}

func (e *VerifyError) Error() string {
	msg := fmt.Sprintf("verify: %d problem(s)", len(e.Problems))
	for _, p := range e.Problems {
		msg += "\n  " + p.Error()
	}
	return msg
}

func (e *VerifyError) Unwrap() []error { return e.Problems }

// Verify checks g's invariants for stage and returns a *VerifyError listing
// every problem, or nil.
func Verify(g *Graph, stage Stage) error {
	v := verifier{g: g}
	if ix := newDenseIndex(g); ix != nil {
		v.runDense(stage, ix)
	} else {
		v.defined, v.nodeIDs, v.valueIDs = map[*Value]bool{}, map[int]bool{}, map[int]bool{}
		v.run(stage)
	}
	if len(v.problems) == 0 {
		return nil
	}
	return &VerifyError{Problems: v.problems}
}

type verifier struct {
	g        *Graph
	defined  map[*Value]bool
	nodeIDs  map[int]bool
	valueIDs map[int]bool
	problems []error
	kwBuf    []string
}

func (v *verifier) fail(n *Node, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if n == nil {
		v.problems = append(v.problems, errors.New(msg))
		return
	}
	v.problems = append(v.problems, &Problem{Pos: n.Pos, Node: n.Name, Target: n.Target, Msg: msg})
}

// Problem is one verifier finding about a node, with the node's position,
// so that a caller can report it as a positioned diagnostic.
type Problem struct {
	Pos          diag.Pos
	Node, Target string
	Msg          string
}

func (p *Problem) Error() string {
	return fmt.Sprintf("%s: node %s (%s): %s", p.Pos, p.Node, p.Target, p.Msg)
}

func (v *verifier) define(val *Value, n *Node) {
	if v.valueIDs[val.ID] {
		v.fail(n, "duplicate value id %d (%s)", val.ID, val.Name)
	}
	v.valueIDs[val.ID] = true
	v.defined[val] = true
}

func (v *verifier) run(stage Stage) {
	uses := map[*Value]int{}
	for _, in := range v.g.Inputs {
		v.define(in, nil)
		if in.Def != nil {
			v.fail(nil, "input %s has a defining node", in.Name)
		}
	}
	for _, n := range v.g.Nodes {
		if n.graph != v.g {
			v.fail(n, "node belongs to another graph")
		}
		if v.nodeIDs[n.ID] {
			v.fail(n, "duplicate node id %d", n.ID)
		}
		v.nodeIDs[n.ID] = true
		n.WalkInputs(func(in *Value) {
			uses[in]++
			if !v.defined[in] {
				v.fail(n, "uses %s before its definition", in.Name)
			}
		})
		v.checkCall(n)
		for i, r := range n.Results {
			if r.Def != n || r.Index != i {
				v.fail(n, "result %d (%s) does not point back at its node", i, r.Name)
			}
			v.define(r, n)
		}
		if stage >= StageTyped {
			v.checkTyped(n)
		}
		if stage >= StageFunctional {
			v.checkFunctional(n)
		}
	}
	outUses := map[*Value]int{}
	for i := range v.g.Outputs {
		v.g.Outputs[i].Walk(func(out *Value) {
			outUses[out]++
			if !v.defined[out] {
				v.fail(nil, "output %s is not defined in the graph", out.Name)
			}
		})
	}
	for _, val := range v.g.Values() {
		if len(val.users) != uses[val] {
			v.fail(val.Def, "use list of %s has %d entries, arguments hold %d", val.Name, len(val.users), uses[val])
		}
		if val.outputUses != outUses[val] {
			v.fail(val.Def, "output use count of %s is %d, outputs hold %d", val.Name, val.outputUses, outUses[val])
		}
	}
}

func (v *verifier) checkCall(n *Node) {
	if n.Op == nil {
		return
	}
	kw := v.kwBuf[:0]
	for _, k := range n.Kwargs {
		kw = append(kw, k.Name)
	}
	v.kwBuf = kw
	if err := n.Op.CheckCall(len(n.Args), kw); err != nil {
		v.fail(n, "%v", err)
	}
}

func (v *verifier) checkTyped(n *Node) {
	if !HasMetaRule(n) {
		return // opaque and schema-only ops have no meta rule; unannotated results stay untyped
	}
	untypedInput := false
	n.WalkInputs(func(in *Value) { untypedInput = untypedInput || !in.Type.IsKnown() })
	if untypedInput {
		return // nothing to infer from: an unannotated input or an opaque producer
	}
	for _, r := range n.Results {
		if !r.Type.IsKnown() {
			v.fail(n, "result %s has no type after type propagation", r.Name)
			continue
		}
		if t := r.Type.Tensor; r.Type.Kind == KindTensor && t.Strides != nil && len(t.Strides) != len(t.Shape) {
			v.fail(n, "result %s has rank %d but %d strides", r.Name, len(t.Shape), len(t.Strides))
		}
	}
}

// checkFunctional allows only the input-mutation epilogue: copy_ into a graph
// input, or into the input resized first where the graph resized it
// (resize_(x_1, [2]); copy_(resize_, new), as PyTorch's functionalization
// writes it).
func (v *verifier) checkFunctional(n *Node) {
	if n.Op == nil || !n.Op.Mutates() {
		return
	}
	switch {
	case n.Target == "aten::copy_.default" && len(n.Args) > 0 && isInputOrResized(n.Args[0]):
		return
	case n.Target == "aten::resize_.default" && len(n.Args) > 0 && n.Args[0].Kind == ArgValue && n.Args[0].Value.IsInput():
		return
	}
	v.fail(n, "mutating op remains after functionalization")
}

// isInputOrResized: a is a graph input, or resize_ of one.
func isInputOrResized(a Arg) bool {
	if a.Kind != ArgValue {
		return false
	}
	if a.Value.IsInput() {
		return true
	}
	d := a.Value.Def
	return d != nil && d.Target == "aten::resize_.default" && len(d.Args) > 0 && d.Args[0].Kind == ArgValue && d.Args[0].Value.IsInput()
}
