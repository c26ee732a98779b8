package ir

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir/sym"
)

// TestParallelPrintMatchesSequential: a graph large enough to be printed
// in chunks on several cores (String, and WriteTo's batches) prints
// exactly what the one-pass printer writes, stack comments changing inside and across chunks and
// values released in other chunks than the one defining them.
func TestParallelPrintMatchesSequential(t *testing.T) {
	g := NewGraph("GraphModule")
	x := g.AddInput("x", TensorOf(NewTensor(F32, []sym.Expr{sym.Const(4)}, CPU)), diag.Pos{})
	prev := x
	n := 3*parallelPrintChunk + 17
	var early *Value
	for i := 0; i < n; i++ {
		args := []Arg{ValueArg(prev), ValueArg(x)}
		if early != nil && i == n-5 {
			args[1] = ValueArg(early) // last used far from where it was made
		}
		node := g.NewNode(fmt.Sprintf("add_%d", i), "aten::add.Tensor", FormOp, args, nil, 1)
		node.Results[0].Type = x.Type
		node.Stack = fmt.Sprintf("# File: m.py:%d in forward", i/7000)
		g.Append(node)
		prev = node.Results[0]
		if i == 10 {
			early = prev
		}
	}
	g.SetOutputs([]Arg{ValueArg(prev)})
	var seq textBuf
	g.writeFlushing(&seq, nil) // one pass, one core
	par := g.String()
	require.Equal(t, seq.String(), par)
	require.Contains(t, par, "add_10 = None")
	var streamed strings.Builder // batches of chunks on every core
	_, err := g.WriteTo(&streamed)
	require.NoError(t, err)
	require.Equal(t, seq.String(), streamed.String())
}
