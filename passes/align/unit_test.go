package align_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/internal/fxtest"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/dce"
)

func TestOptions(t *testing.T) {
	for _, bad := range []string{
		"fakeprop,align{assume=views}",
		"fakeprop,align{misaligned-inputs=realign}",
		"fakeprop,align{input-offsets=arg0_1}",
		"fakeprop,align{input-offsets=arg0_1:-1}",
		"fakeprop,align{input-offsets=arg0_1:s0 > 1}",
		"fakeprop,align{input-offsets=arg0_1:(}",
		"fakeprop,align{input-offsets=arg0_1:1,arg0_1:2}",
		"fakeprop,align{vec=4}",
		"align",
	} {
		_, err := passes.Parse(bad)
		assert.Error(t, err, bad)
	}
	_, err := passes.Parse("fakeprop,align{assume=inputs-and-views;misaligned-inputs=copy;input-offsets=arg0_1:2*s0, arg1_1:3}")
	assert.NoError(t, err)
	_, err = align.New(align.AssumeProved, "sometimes", nil)
	assert.Error(t, err)
}

func runText(t *testing.T, src, pipeline string) (*ir.Graph, *passes.Context, error) {
	t.Helper()
	g := fxtest.Parse(t, "t.fx", src)
	ctx, err := fxtest.RunPipeline(t, g, pipeline, passes.Config{})
	return g, ctx, err
}

func errorsOf(ctx *passes.Context) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ctx.Diags.Items {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	return out
}

func TestUnknownInputOffset(t *testing.T) {
	src := readScenario(t, "03_misaligned_view.fx")
	_, ctx, err := runText(t, src, "fakeprop,align{input-offsets=x:1}")
	require.NoError(t, err)
	errs := errorsOf(ctx)
	require.Len(t, errs, 1)
	assert.Equal(t, align.CodeOption, errs[0].Code)
	assert.Contains(t, errs[0].Message, "no tensor input x")
}

func readScenario(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/scenarios", name))
	require.NoError(t, err)
	return string(data)
}

// Running align twice changes nothing the second time: no second
// assertion or copy, the same attributes.
func TestIdempotent(t *testing.T) {
	for _, pl := range []string{
		"fakeprop,align{input-offsets=arg0_1:1;misaligned-inputs=copy}",
		"fakeprop,align{assume=inputs-and-views}",
	} {
		once, _, err := runText(t, readScenario(t, "03_misaligned_input.fx"), pl)
		require.NoError(t, err)
		pl2 := pl + "," + strings.TrimPrefix(pl, "fakeprop,")
		twice, _, err := runText(t, readScenario(t, "03_misaligned_input.fx"), pl2)
		require.NoError(t, err)
		assert.Equal(t, once.String(), twice.String(), pl)
	}
}

// The assertion survives later passes (fakeprop again, DCE: it has
// effects) and a second align adds none.
func TestAssertionSurvives(t *testing.T) {
	g, _, err := runText(t, readScenario(t, "03_misaligned_view.fx"), "fakeprop,align,fakeprop,align,dce")
	require.NoError(t, err)
	assert.Contains(t, g.String(), "torch.ops.kiln.assert_alignment.default(arg0_1, 16)")
	assert.Equal(t, 1, strings.Count(g.String(), "assert_alignment.default"))
}

// The printed graph parses back, with the assertion bound to its schema,
// and prints the same after fakeprop and align again. (Until the registry
// declares kiln::assert_alignment, the parser is given the pass's entry.)
func TestPrintedGraphParsesBack(t *testing.T) {
	g, _, err := runText(t, readScenario(t, "03_misaligned_view.fx"), "fakeprop,align{assume=inputs-and-views}")
	require.NoError(t, err)
	text := g.String()
	lookup := func(target string) ir.OpSchema {
		if target == align.AssertTarget {
			return align.AssertOp()
		}
		return ops.LookupSchema(target)
	}
	res, err := fx.Parse("printed.fx", []byte(text), fx.Options{Lookup: lookup})
	require.NoError(t, err)
	g2 := res.Module.Graphs[0]
	p, err := passes.Parse("fakeprop,align{assume=inputs-and-views}")
	require.NoError(t, err)
	_, err = (&passes.Manager{VerifyEach: true}).Run(p, passes.NewContext(passes.Config{}), g2)
	require.NoError(t, err)
	assert.Equal(t, text, g2.String())
}

// No input makes the pass panic or fail internally: every corpus graph and
// scenario goes through fakeprop (keep-going) and align in every mode.
func TestCorpusNeverPanics(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/*.fx.txt")
	more, _ := filepath.Glob("../../testdata/scenarios/*.fx")
	files = append(files, more...)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		res, err := fx.Parse(f, data, fx.Options{Lookup: ops.LookupSchema})
		if err != nil {
			continue
		}
		for _, g := range res.Module.Graphs {
			for _, opts := range []string{"", "{assume=inputs-and-views}", "{misaligned-inputs=copy}"} {
				p, err := passes.Parse("fakeprop,align" + opts)
				require.NoError(t, err)
				ctx := passes.NewContext(passes.Config{CaptureScalarOutputs: true, CaptureDynamicOutputShapeOps: true})
				_, err = (&passes.Manager{VerifyEach: true}).Run(p, ctx, g)
				if err != nil && strings.Contains(err.Error(), "pass fakeprop") {
					break // fakeprop's problem with this graph, not align's
				}
				assert.NoError(t, err, "%s %s", f, opts)
			}
		}
	}
}

// A symbolic example offset counts for the largest constant dividing it:
// 4*s0 f32 = 16*s0 bytes is aligned (and asserted); 2*s0 f32 = 8*s0 bytes
// proves 8, so scalar access.
func TestSymbolicInputOffset(t *testing.T) {
	g, ctx, err := runText(t, readScenario(t, "03_misaligned_input.fx"), "fakeprop,align{input-offsets=arg0_1:4*s0,arg1_1:2*s0}")
	require.NoError(t, err)
	require.Empty(t, errorsOf(ctx))
	assert.Equal(t, ir.Attrs{{Key: "align", Val: "16"}, {Key: "vec", Val: "4"}}, g.Inputs[0].Attrs)
	assert.Equal(t, ir.Attrs{{Key: "align", Val: "8"}, {Key: "vec", Val: "1"}}, g.Inputs[1].Attrs)
	assert.Contains(t, g.String(), "assert_alignment.default(arg0_1, 16)")
	assert.NotContains(t, g.String(), "assert_alignment.default(arg1_1")
	assert.Contains(t, ctx.Remarks("align"), "align: arg1_1 is 8-byte aligned: graph input whose example is at storage offset 2*s0 elements of f32 = 8*s0 bytes (a multiple of 8), over a storage base taken 16-byte aligned; vector width 1: not 16-byte aligned")
}
