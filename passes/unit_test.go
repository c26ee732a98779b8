package passes_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/passes"
)

// A toy program: the graph's node names, one a line; "bad" fails Verify.
type toyProg struct{ lines []string }

func (p *toyProg) String() string { return strings.Join(p.lines, "\n") + "\n" }
func (p *toyProg) Verify() error {
	for _, l := range p.lines {
		if l == "bad" {
			return errors.New("toy program holds a bad line")
		}
	}
	return nil
}

type funcUnit struct {
	name string
	run  func(ctx *passes.Context, u *passes.Unit) (bool, error)
}

func (p funcUnit) Name() string { return p.name }
func (p funcUnit) RunUnit(ctx *passes.Context, u *passes.Unit) (bool, error) {
	return p.run(ctx, u)
}

func registerUnit(info passes.Info, run func(*passes.Context, *passes.Unit) (bool, error)) {
	info.Summary = "test stage"
	info.NewUnit = func(passes.Options) (passes.UnitPass, error) { return funcUnit{info.Name, run}, nil }
	passes.Register(info)
}

func init() {
	registerUnit(passes.Info{Name: "t-lower"}, func(_ *passes.Context, u *passes.Unit) (bool, error) {
		p := &toyProg{}
		for _, n := range u.Graph.Nodes {
			p.lines = append(p.lines, n.Name)
		}
		u.Prog = p
		return true, nil
	})
	registerUnit(passes.Info{Name: "t-spoil", VerifyProgram: true}, func(_ *passes.Context, u *passes.Unit) (bool, error) {
		p := u.Prog.(*toyProg)
		p.lines = append(p.lines, "bad")
		return true, nil
	})
	registerUnit(passes.Info{Name: "t-emit", Emits: true}, func(_ *passes.Context, u *passes.Unit) (bool, error) {
		u.SetCode("t-emit", "// code for "+strings.TrimSpace(u.Prog.String()))
		return false, nil
	})
}

// Stages past the graph run through the same manager: timed and hashed,
// dumped by -print-after (a codegen stage's dump is its code), their
// output kept for the report.
func TestUnitStagesRunLikePasses(t *testing.T) {
	var out bytes.Buffer
	m := passes.Manager{Out: &out, KeepText: true, PrintAfter: map[string]bool{"t-lower": true, "t-emit": true}}
	_, res, err := run(t, "t-nop,t-lower,t-emit", m)
	require.NoError(t, err)
	require.Len(t, res.Passes, 3)
	lower := res.Passes[1]
	assert.True(t, lower.Changed)
	assert.NotEqual(t, lower.HashIn, lower.HashOut, "the program's hash is not the graph's")
	assert.Equal(t, "a\nb\n", lower.Text)
	assert.Equal(t, "// code for a\nb", res.Passes[2].Text)
	assert.Equal(t, lower.HashOut, res.Passes[2].HashOut, "emitting code leaves the program as it was")
	assert.Contains(t, out.String(), "# -- IR after t-lower (changed=true) --\na\nb\n# -- IR after t-emit (changed=false) --\n// code for a\nb")
}

func TestUnitStageVerifiesProgram(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "t-nop,t-lower,t-spoil,t-emit", passes.Manager{ReproDir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after pass t-spoil: toy program holds a bad line")
	repro, rerr := os.ReadFile(dir + "/repro.fx")
	require.NoError(t, rerr)
	// The program cannot be parsed back: the reproducer starts at lowering.
	assert.Contains(t, string(repro), "# pipeline: t-lower,t-spoil,t-emit\n")
	assert.Contains(t, string(repro), "def forward(self, x)")
}

// A reproducer holds the failing pass's input and the pipeline from that
// pass on, so that running it fails the same way at its first step.
func TestReproHoldsInputOfFailingStep(t *testing.T) {
	dir := t.TempDir()
	g := graph(t)
	p, err := passes.Parse("t-nop,t-breaks-uses,t-nop")
	require.NoError(t, err)
	want := g.String()
	_, err = (&passes.Manager{ReproDir: dir}).Run(p, passes.NewContext(passes.Config{}), g)
	var verr *ir.VerifyError
	require.True(t, errors.As(err, &verr))
	repro, rerr := os.ReadFile(dir + "/repro.fx")
	require.NoError(t, rerr)
	head, body, _ := strings.Cut(string(repro), "\n# error:")
	assert.Equal(t, "# kiln reproducer: pass t-breaks-uses failed\n# pipeline: t-breaks-uses,t-nop", head)
	_, graphText, _ := strings.Cut(body, "\n")
	assert.Equal(t, want, graphText, "the graph as the failing pass received it")
}
