package decompose_test

import (
	"fmt"
	"math"

	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
)

// corpusJudgement is PyTorch's verdict on a corpus graph whose decomposed
// form and interp's whole ops differ past allclose at 1e-4 on random
// inputs: tools/e2e_judge/judge.py ran the graph in eager PyTorch (its
// dtypes and float64) and torch._dynamo.utils.same (allclose, else RMSE
// against float64 within 2x eager's) accepted both interp and the
// generated Go, which runs the decomposed graph. As internal/e2e's
// judged graphs, an output past allclose passes when RMS(after -
// before) / RMS(before) is within 2 x 2 x eager's RMSE / RMS(float64).
type corpusJudgement struct {
	why string
	rms map[int]float64 // bound per output index
}

var judgedCorpus = map[string]corpusJudgement{
	"107_compile_hf_gpt2_train_backward.fx.txt[0]": {
		"GPT-2 backward on randn: native_layer_norm_backward and embedding_dense_backward, decomposed as " +
			"torch/_decomp does, round in float32 where interp's kernels sum in float64; the embedding gradient " +
			"(out1, values to 7e9) is a sum that cancels. Bounds are judge.py's for each output; out1 RMSE vs float64 eager 210, interp 160, " +
			"go 297 (eager RMSE / RMS(float64) 5.97e-07); same() accepts interp and go on all 20 floating outputs " +
			"(torch 2.15.0)",
		map[int]float64{1: 2.39e-06, 2: 2.18e-06, 3: 2.2e-06, 4: 2.33e-06, 5: 1.83e-06, 6: 1.9e-06, 7: 1.3e-06,
			8: 1.47e-06, 9: 1.64e-06, 10: 1.76e-06, 11: 1.2e-06, 12: 1.19e-06, 13: 1.02e-06, 14: 1.04e-06, 15: 9.45e-07,
			16: 1.18e-06, 17: 1.25e-06, 18: 9.39e-07, 19: 1.01e-06, 20: 8.41e-07, 21: 1.02e-06, 22: 7.43e-07,
			23: 5.97e-07, 24: 5.56e-07, 25: 4.94e-07, 26: 3.35e-07, 27: 3.35e-07, 28: 5.33e-08}},
	// judge.py draws integer inputs from [0, 4); BERT's token-type
	// embedding has 2 rows, so 108 and 110 were judged with [0, 2).
	"108_compile_hf_bert_train_backward.fx.txt[0]": {
		"BERT backward on randn, as GPT-2's: out3 (word-embedding gradient, values to 4e6) RMSE vs float64 eager " +
			"0.0986, interp 0.124, go 0.0725; same() accepts interp and go on all 37 floating outputs (torch 2.15.0)",
		map[int]float64{3: 2.53e-06, 4: 4.05e-06, 5: 4.03e-06, 6: 3.32e-06, 7: 2.6e-06, 9: 2.4e-06, 10: 2.6e-06,
			11: 2.38e-06, 12: 2.91e-06, 13: 2.13e-06, 14: 1.65e-06, 15: 2.05e-06, 16: 2.08e-06, 17: 1.88e-06,
			18: 1.76e-06, 19: 1.48e-06, 20: 1.63e-06, 21: 1.4e-06, 22: 1.52e-06, 23: 1.71e-06, 24: 1.29e-06,
			25: 1.44e-06, 26: 1.44e-06, 27: 1.27e-06, 28: 1.45e-06, 29: 1.04e-06, 30: 9.34e-07, 31: 9.73e-07,
			32: 1.18e-06, 33: 1.29e-06, 34: 8.13e-07, 35: 6.39e-07, 36: 8.47e-07, 37: 4.25e-07, 38: 4.91e-07,
			39: 1.74e-07, 40: 3.51e-07}},
	"110_compile_hf_t5_encoder_train_backward.fx.txt[0]": {
		"T5 encoder backward on randn: out1 (embedding gradient, values to 5e8) RMSE vs float64 eager 5.79, " +
			"interp 3.93, go 6.38; same() accepts interp and go on all 19 floating outputs (torch 2.15.0)",
		map[int]float64{1: 1.79e-06, 2: 2.51e-06, 3: 2.21e-06, 4: 2.47e-06, 5: 2.22e-06, 6: 2.62e-06, 7: 2.07e-06,
			8: 2.59e-06, 9: 2.54e-06, 10: 2.34e-06, 11: 2.54e-06, 12: 2.48e-06, 13: 2.6e-06, 14: 1.97e-06,
			15: 1.73e-06, 16: 7.17e-07, 17: 7.06e-07, 18: 4.24e-07, 19: 2.1e-07}},
}

// withinJudgedRMS runs before and after on seed's inputs and accepts
// every output that is allclose at 1e-4 or, where the judgement bounds
// it, within the RMS bound.
func withinJudgedRMS(before, after *ir.Graph, seed uint64, j corpusJudgement) error {
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
		bound, ok := j.rms[i]
		if !ok {
			return fmt.Errorf("output %d: %v (no RMS judgement for it)", i, m)
		}
		if rel := relRMS(w[i].(*interp.Tensor), g[i].(*interp.Tensor)); rel > bound {
			return fmt.Errorf("output %d: RMS(after-before)/RMS(before) %.3g > %.3g judged (%s)", i, rel, bound, j.why)
		}
	}
	return nil
}

func relRMS(want, got *interp.Tensor) float64 {
	a, b := want.Floats(), got.Floats()
	var diff, ref float64
	for k := range a {
		diff += (b[k] - a[k]) * (b[k] - a[k])
		ref += a[k] * a[k]
	}
	return math.Sqrt(diff / ref)
}
