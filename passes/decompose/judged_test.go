package decompose_test

import (
	"fmt"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/internal/judged"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// withinJudgedRMS runs before and after on seed's inputs and accepts
// every output that is allclose at 1e-4 or, where PyTorch's judgement
// (internal/judged) bounds it, within the RMS bound: the decomposed ops
// round in float32 where interp's whole kernels sum in float64.
func withinJudgedRMS(before, after *ir.Graph, seed uint64, j judged.Judgement) error {
	opts := interp.Options{Seed: seed}
	inputs, err := interp.MakeInputs(before, opts)
	if err != nil {
		return err
	}
	want, err := interp.Run(before, interp.CopyValues(inputs), opts)
	if err != nil {
		return err
	}
	got, err := interp.Run(after, interp.CopyValues(inputs), opts)
	if err != nil {
		return err
	}
	w, g := fxtest.Flatten(want.Outputs), fxtest.Flatten(got.Outputs)
	for i := range w {
		m := interp.Compare(w[i], g[i], compiledModelTolerance)
		if m == nil {
			continue
		}
		ok, figures := j.Output(i, w[i].(*interp.Tensor), g[i].(*interp.Tensor))
		if figures == "" {
			return fmt.Errorf("output %d: %v (no RMS judgement for it)", i, m)
		}
		if !ok {
			return fmt.Errorf("output %d: %s fails (%s)", i, figures, j.Why)
		}
	}
	return nil
}
