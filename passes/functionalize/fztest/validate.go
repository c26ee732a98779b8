package fztest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// Seeds are the random inputs every validation runs on.
var Seeds = []uint64{1, 2, 3}

// Validate is translation validation of a functionalized graph: for each
// seed, the case's input graph (typed by fakeprop, run eagerly with real
// aliasing) and after run on equal random inputs must give the same
// outputs and leave the inputs with the same contents.
func (c *Case) Validate(t *testing.T, after *ir.Graph) {
	t.Helper()
	before := c.Run(t, "fakeprop")
	require.False(t, before.Failed, "%s: fakeprop failed on the input", c.File)
	for _, seed := range Seeds {
		if err := Equivalent(before.Graph, after, seed); err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
	}
}

// RefError is a failure to run the eager reference graph itself.
type RefError struct{ Err error }

func (e *RefError) Error() string { return "the eager graph fails: " + e.Err.Error() }
func (e *RefError) Unwrap() error { return e.Err }

// Equivalent runs before (eagerly, unchecked) and after (with runtime
// type checks) on equal random inputs made for before's inputs, and says
// how their outputs or final input contents differ, if they do. A failure
// of the eager graph is a *RefError; one of after is returned as it is.
func Equivalent(before, after *ir.Graph, seed uint64) error {
	return EquivalentWithin(before, after, seed, nil)
}

// EquivalentWithin is Equivalent at tolerance tol (nil: the dtype's
// torch.testing default).
func EquivalentWithin(before, after *ir.Graph, seed uint64, tol interp.TolFunc) error {
	want, wantIn, err := run(before, before, seed, false)
	if err != nil {
		return &RefError{Err: err}
	}
	got, gotIn, err := run(after, before, seed, true)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("seed %d: %d outputs, the eager graph has %d", seed, len(got), len(want))
	}
	for i := range want {
		if m := interp.Compare(want[i], got[i], tol); m != nil {
			return fmt.Errorf("seed %d: output %d differs from the eager graph's: %v", seed, i, m)
		}
	}
	for i := range wantIn {
		if m := interp.Compare(wantIn[i], gotIn[i], tol); m != nil {
			return fmt.Errorf("seed %d: input %s ends with other contents than in the eager graph: %v",
				seed, before.Inputs[i].Name, m)
		}
	}
	return nil
}

// run runs g on inputs made for inputsOf and returns its outputs and its
// inputs' final contents, seen through the geometry they started with (a
// graph may transpose_ an input, a metadata change no functional graph
// makes; AOTAutograd replays it outside the graph).
func run(g, inputsOf *ir.Graph, seed uint64, check bool) (outs, ins []any, err error) {
	opts := interp.Options{Seed: seed, CheckTypes: check}
	inputs, err := interp.MakeInputs(inputsOf, opts)
	if err != nil {
		return nil, nil, err
	}
	start := make([]any, len(inputs))
	for i, x := range inputs {
		if t, ok := x.(*interp.Tensor); ok {
			start[i] = &interp.Tensor{DType: t.DType, Shape: slices.Clone(t.Shape), Strides: slices.Clone(t.Strides), Offset: t.Offset, Storage: t.Storage}
		} else {
			start[i] = x
		}
	}
	res, err := interp.Run(g, inputs, opts)
	if err != nil {
		return nil, nil, err
	}
	return res.Outputs, start, nil
}
