// Package opcases replays PyTorch's answers for the ops of issue 11 (backward
// ops, nn ops, complex views, special functions, the oracle's bug list):
// tools/opcases/gen.py traced each case with make_fx(tracing_mode="fake") and
// ran it eagerly; the test strips the annotations, re-infers them with
// fakeprop, runs interp on the same inputs and compares both with PyTorch.
package opcases

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/interp"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

const dataFile = "../../testdata/opcases/ops.json"

type value struct {
	DType  string            `json:"dtype"`
	Shape  []int64           `json:"shape"`
	Values []json.RawMessage `json:"values"`
	Scalar json.RawMessage   `json:"scalar"`
	None   bool              `json:"none"`
}

type opCase struct {
	Name    string  `json:"name"`
	FX      string  `json:"fx"`
	Inputs  []value `json:"inputs"`
	Outputs []value `json:"outputs"`
}

type data struct {
	Torch string   `json:"torch"`
	Cases []opCase `json:"cases"`
}

// pending lists cases kiln does not pass yet, with the reason; the test
// fails on any other failure and on a pending case that now passes.
var pending = map[string]string{}

func TestOpCases(t *testing.T) {
	src, err := os.ReadFile(dataFile)
	require.NoError(t, err)
	var d data
	require.NoError(t, json.Unmarshal(src, &d))
	require.NotEmpty(t, d.Cases)
	types, values, nTypes, nValues := 0, 0, 0, 0
	var fails []string
	for _, c := range d.Cases {
		tOK, tN, vOK, vN, err := runCase(c)
		types, nTypes, values, nValues = types+tOK, nTypes+tN, values+vOK, nValues+vN
		why, isPending := pending[c.Name]
		switch {
		case err != nil && !isPending:
			fails = append(fails, fmt.Sprintf("%s: %v", c.Name, err))
		case err == nil && isPending:
			t.Errorf("%s passes now; remove it from pending (%s)", c.Name, why)
		case err != nil:
			t.Logf("pending %s: %s (%v)", c.Name, why, err)
		}
	}
	sort.Strings(fails)
	t.Logf("PyTorch %s: %d cases; node types %d/%d exact, output values %d/%d within torch.testing tolerances",
		d.Torch, len(d.Cases), types, nTypes, values, nValues)
	if len(fails) > 0 {
		t.Errorf("%d case(s) disagree with PyTorch:\n%s", len(fails), strings.Join(fails, "\n"))
	}
}

// runCase returns the typed nodes that match, the annotated nodes, the
// outputs that match and the outputs recorded, and the first disagreement.
func runCase(c opCase) (tOK, tN, vOK, vN int, err error) {
	res, err := fx.Parse(c.Name+".fx", []byte(c.FX), fx.Options{Lookup: ops.LookupSchema})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	g := res.Module.Graphs[0]
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			v.Type = ir.Type{}
		}
	}
	ctx := passes.NewContext(passes.Config{})
	p, err := passes.Parse("fakeprop{no-check}")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if _, err := p.Steps[0].Pass.Run(ctx, g); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("fakeprop: %v", err)
	}
	var firstErr error
	fromAnnot := map[string]bool{}
	for _, d := range ctx.Diags.Items {
		if d.Code == fakeprop.RemarkFromAnnotation {
			fromAnnot[d.Node] = true
			if firstErr == nil {
				firstErr = fmt.Errorf("fakeprop: %s", d.Message)
			}
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			if !v.Annot.IsKnown() {
				continue
			}
			tN++
			if !fromAnnot[n.Name] && fakeprop.Agrees(v.Annot, v.Type) && v.Annot.String() == v.Type.String() {
				tOK++
			} else if firstErr == nil {
				firstErr = fmt.Errorf("%s: PyTorch %s, kiln %s", v.Name, v.Annot, v.Type)
			}
		}
	}
	if c.Outputs == nil {
		return tOK, tN, 0, 0, firstErr
	}
	inputs := make([]any, len(c.Inputs))
	for i, in := range c.Inputs {
		if inputs[i], err = decode(in); err != nil {
			return tOK, tN, 0, 0, fmt.Errorf("input %d: %v", i, err)
		}
	}
	vN = len(c.Outputs)
	r, err := interp.Run(g, inputs, interp.Options{})
	if err != nil {
		return tOK, tN, 0, vN, errors.Join(firstErr, fmt.Errorf("interp: %v", err))
	}
	if len(r.Outputs) != len(c.Outputs) {
		return tOK, tN, 0, vN, fmt.Errorf("interp: %d outputs, PyTorch %d", len(r.Outputs), len(c.Outputs))
	}
	for i, out := range c.Outputs {
		want, err := decode(out)
		if err != nil {
			return tOK, tN, vOK, vN, err
		}
		if m := compare(want, r.Outputs[i]); m != "" {
			if firstErr == nil {
				firstErr = fmt.Errorf("output %d: %s", i, m)
			}
			continue
		}
		vOK++
	}
	return tOK, tN, vOK, vN, firstErr
}

func compare(want, got any) string {
	if want == nil || got == nil {
		if want != got {
			return fmt.Sprintf("PyTorch %v, kiln %v", want, got)
		}
		return ""
	}
	w, ok := want.(*interp.Tensor)
	if !ok || !w.DType.IsComplex() {
		if m := interp.Compare(want, got, nil); m != nil {
			return m.String()
		}
		return ""
	}
	g, ok := got.(*interp.Tensor)
	if !ok || g.DType != w.DType || fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) {
		return fmt.Sprintf("PyTorch %v, kiln %v", want, got)
	}
	// complex: compare the real views
	return compare(complexParts(w), complexParts(g))
}

// complexParts is view_as_real of a complex tensor, as a float tensor.
func complexParts(t *interp.Tensor) *interp.Tensor {
	part := ir.F32
	if t.DType == ir.C128 {
		part = ir.F64
	}
	shape := append(append([]int64{}, t.Shape...), 2)
	strides := make([]int64, 0, len(shape))
	for _, s := range t.Strides {
		strides = append(strides, 2*s)
	}
	strides = append(strides, 1)
	return &interp.Tensor{DType: part, Shape: shape, Strides: strides, Offset: 2 * t.Offset, Storage: t.Storage}
}

// decode builds an interp value from its JSON form.
func decode(v value) (any, error) {
	if v.None {
		return nil, nil
	}
	if v.DType == "" {
		var f float64
		if err := json.Unmarshal(v.Scalar, &f); err != nil {
			return nil, err
		}
		return f, nil
	}
	dt, ok := ir.DTypeFromAbbr(v.DType)
	if !ok {
		return nil, fmt.Errorf("dtype %q", v.DType)
	}
	fs := make([]float64, len(v.Values))
	for i, raw := range v.Values {
		f, err := number(raw)
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	if dt.IsComplex() {
		part := ir.F32
		if dt == ir.C128 {
			part = ir.F64
		}
		re := interp.FromFloats(part, []int64{int64(len(fs))}, fs)
		t, err := interp.Empty(dt, v.Shape, nil, re.Device())
		if err != nil {
			return nil, err
		}
		copy(t.Storage.Data, re.Storage.Data)
		return t, nil
	}
	if dt.IsFloat() {
		return interp.FromFloats(dt, v.Shape, fs), nil
	}
	is := make([]int64, len(fs))
	for i, f := range fs {
		is[i] = int64(f)
	}
	return interp.FromInts(dt, v.Shape, is), nil
}

func number(raw json.RawMessage) (float64, error) {
	s := string(raw)
	switch s {
	case `"nan"`:
		return math.NaN(), nil
	case `"inf"`:
		return math.Inf(1), nil
	case `"-inf"`:
		return math.Inf(-1), nil
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return strconv.ParseFloat(s, 64)
}
