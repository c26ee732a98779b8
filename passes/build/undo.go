package build

import "github.com/kiln-compiler/kiln/ir"

// Undo records the in-place changes a pass makes to the nodes and values
// it keeps, so that a pass that stops on an error leaves the graph as it
// found it. (New nodes only enter the graph at Builder.Finish, and use
// lists are only rebuilt there.)
type Undo struct {
	steps []func()
}

// Args records n's arguments before the pass replaces them.
func (u *Undo) Args(n *ir.Node) {
	args, kwargs := n.Args, n.Kwargs
	u.steps = append(u.steps, func() { n.Args, n.Kwargs = args, kwargs })
}

// Type records v's type before the pass replaces it.
func (u *Undo) Type(v *ir.Value) {
	t := v.Type
	u.steps = append(u.steps, func() { v.Type = t })
}

// Annot records v's annotation before the pass replaces it.
func (u *Undo) Annot(v *ir.Value) {
	t := v.Annot
	u.steps = append(u.steps, func() { v.Annot = t })
}

// Restore undoes every recorded change, latest first.
func (u *Undo) Restore() {
	for i := len(u.steps) - 1; i >= 0; i-- {
		u.steps[i]()
	}
	u.steps = nil
}
