package vmap_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	"github.com/kiln-compiler/kiln/passes/functionalize/fztest"
)

const scenario4 = "../../testdata/scenarios/04_vmap_inplace.fx"

// pytorchInplaceMessage is docs/REFERENCE.md's vmap message, verbatim.
const pytorchInplaceMessage = "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report instead."

// TestScenario4 is docs/SCENARIOS.md's Scenario 4 on its own file: vmap alone
// fails with vmap-inplace at the copy_ line with PyTorch's message;
// functionalize then vmap batches the graph, and the batched graph equals
// running the original graph on each batch element and stacking.
func TestScenario4(t *testing.T) {
	src, err := os.ReadFile(scenario4)
	require.NoError(t, err)
	copyLine := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "copy_: ") {
			copyLine = i + 1
		}
	}
	require.NotZero(t, copyLine)

	c := &fztest.Case{File: scenario4, Input: string(src), Pipeline: "fakeprop,vmap{in_dims=None,0;size=3}"}
	r := c.Run(t, "")
	require.True(t, r.Failed)
	var errs []diag.Diagnostic
	for _, d := range r.Diags {
		if d.Severity == diag.Error {
			errs = append(errs, d)
		}
	}
	require.Len(t, errs, 1)
	require.Equal(t, "vmap-inplace", errs[0].Code)
	require.Equal(t, copyLine, errs[0].Pos.Line)
	require.Equal(t, "copy_", errs[0].Node)
	require.Equal(t, pytorchInplaceMessage, errs[0].Message)
	require.Equal(t, c.Run(t, "fakeprop").Graph.String(), r.Graph.String(), "a failed vmap leaves the graph as it was")

	c.Pipeline = "fakeprop,functionalize,vmap{in_dims=None,0;size=3}"
	r = c.Run(t, "")
	require.False(t, r.Failed, "%v", r.Diags)
	CheckPerElement(t, c, r.Graph)
}
