package report_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/passes"
	_ "github.com/kiln-compiler/kiln/passes/cse"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	"github.com/kiln-compiler/kiln/report"
)

func TestReportColumnsAndFolding(t *testing.T) {
	res, err := fx.Parse("g.fx", []byte(`def forward(self, x):
    a = x + 1
    b = x + 1
    dead = x * 3
    return (a, b)
`), fx.Options{})
	require.NoError(t, err)
	g := res.Module.Graphs[0]
	var rec report.Recorder
	rec.Start(g)
	pipe, err := passes.Parse("dce,dce,cse")
	require.NoError(t, err)
	m := passes.Manager{AfterPass: rec.Hook}
	ctx := passes.NewContext(passes.Config{})
	_, err = m.Run(pipe, ctx, g)
	require.NoError(t, err)
	require.Len(t, rec.Columns, 4)
	assert.True(t, rec.Columns[1].Changed, "the first dce removes dead")
	assert.False(t, rec.Columns[2].Changed, "the second has nothing left to do")
	assert.True(t, rec.Columns[3].Changed, "cse merges b into a")

	var page strings.Builder
	require.NoError(t, rec.Write(&page, append(ctx.Diags.Items, diag.Diagnostic{Severity: diag.Warning, Code: "w", Message: "a <warning>"})))
	html := page.String()
	assert.Contains(t, html, `<section class="col folded" id="c2">`)
	assert.Contains(t, html, "a &lt;warning&gt;")
	assert.Contains(t, html, `<div class="n">        return (<i>a</i>, <i>a</i>)</div>`)
	assert.Contains(t, html, `<div id="c0-dead">        <i>dead</i> = <i>x</i> * 3;  <i>x</i> = <i>dead</i> = None</div>`)
	assert.Contains(t, html, `<div id="c1-b">        <i>b</i> = <i>x</i> + 1;  <i>x</i> = None</div>`, "only the release tail moved: not new")
	assert.Contains(t, html, `<a href="#c0-dead"><code>g.fx:4:5</code></a> <b>remark[dce]</b>`, "dce's remark links to dead's line, which dce removed")
	assert.Contains(t, html, `<a href="#c1-b"><code>g.fx:3:5</code></a> <b>remark[cse]</b>`, "cse removed b: its remark links to b's last line")

	var again strings.Builder
	require.NoError(t, rec.Write(&again, append(ctx.Diags.Items, diag.Diagnostic{Severity: diag.Warning, Code: "w", Message: "a <warning>"})))
	assert.Equal(t, html, again.String(), "the report is deterministic")
}

// A big graph's report stays small: columns over MaxColumnLines are named
// (with their dump file), not inlined, and lists are capped.
func TestReportStaysSmallForBigGraphs(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 3*report.MaxColumnLines; i++ {
		fmt.Fprintf(&big, "        mul_%d: \"f32[8, 64]\" = torch.ops.aten.mul.Tensor(x, 2)\n", i)
	}
	rec := report.Recorder{Graph: "big"}
	rec.Columns = []report.Column{{Title: "input", Changed: true, Text: big.String(), File: "graph0.00-input.fx"},
		{Title: "fuse", Changed: true, Unprinted: true}}
	require.False(t, rec.Columns[1].Inlined(), "a stage never printed is not inlined, however short its (empty) text")
	for i := 0; i < 5*report.MaxKernels; i++ {
		rec.Kernels = append(rec.Kernels, report.Kernel{Name: fmt.Sprintf("kernel%d", i), Kind: "pointwise",
			Nodes: []string{fmt.Sprintf("mul_%d", i)}, LoopIR: strings.Repeat("x", 200), Code: strings.Repeat("y", 400)})
	}
	var diags []diag.Diagnostic
	for i := 0; i < 10*report.MaxDiags; i++ {
		diags = append(diags, diag.Diagnostic{Severity: diag.Remark, Code: "r", Message: strings.Repeat("m", 100)},
			diag.Diagnostic{Severity: diag.Warning, Code: "w", Message: "warn"})
	}
	var page strings.Builder
	require.NoError(t, rec.Write(&page, diags))
	html := page.String()
	assert.Less(t, len(html), 400_000, "%d bytes", len(html))
	assert.Contains(t, html, `12000 lines: too long to show here; see <a href="graph0.00-input.fx">graph0.00-input.fx</a>`)
	assert.Contains(t, html, `<h2 title="fuse">fuse</h2><p class="note">not printed: more instructions than a column shows</p>`)
	assert.Contains(t, html, "1200 more kernels: see the loop IR and code files")
	assert.Contains(t, html, "2700 more: see diagnostics.txt")
	assert.NotContains(t, html, "mul_4000:")
}
