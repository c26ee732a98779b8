package passes

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/kiln-compiler/kiln/diag"
	"github.com/kiln-compiler/kiln/ir"
)

// PrintMode selects when the manager dumps the IR.
type PrintMode uint8

const (
	PrintNever   PrintMode = iota
	PrintAll               // after every pass
	PrintChanged           // after passes that changed the graph
)

// Manager runs pipelines. The zero value runs quietly, verifying after every
// pass that changed the graph.
type Manager struct {
	Print      PrintMode
	PrintAfter map[string]bool // -print-after=NAME
	Out        io.Writer       // where IR dumps go (os.Stderr when nil)
	VerifyEach bool            // verify after every pass, changed or not (tests)
	ReproDir   string          // where a failing pass's reproducer is written
	// AfterPass, when set, runs after each pass with the graph before and
	// after it; translation validation and the HTML report hook in here.
	AfterPass func(step Step, before, after *ir.Graph, res *PassResult) error
	// Snapshot copies a graph for AfterPass's "before"; nil disables it.
	Snapshot func(*ir.Graph) *ir.Graph
}

// PassResult is what the manager measured for one pass.
type PassResult struct {
	Pass     string
	Changed  bool
	Duration time.Duration
	HashIn   uint64
	HashOut  uint64
	Err      error
}

// Result is one pipeline run.
type Result struct {
	Passes []PassResult
}

// Run applies the pipeline to g. It stops at the first pass that fails; the
// error wraps the pass name and, for a panic, the node being processed.
func (m *Manager) Run(p *Pipeline, ctx *Context, g *ir.Graph) (*Result, error) {
	res := &Result{}
	stage := ir.StageParsed
	hash := Hash(g) // each pass's output hash is the next one's input hash
	for _, step := range p.Steps {
		var before *ir.Graph
		if m.AfterPass != nil && m.Snapshot != nil {
			before = m.Snapshot(g)
		}
		pr := m.runStep(step, ctx, g, hash)
		hash = pr.HashOut
		if step.Info.Stage > stage {
			stage = step.Info.Stage
		}
		if pr.Err == nil && (pr.Changed || m.VerifyEach) {
			if err := ir.Verify(g, stage); err != nil {
				pr.Err = fmt.Errorf("after pass %s: %w", step.Info.Name, err)
			}
		}
		if pr.Err == nil && !pr.Changed && pr.HashIn != pr.HashOut {
			pr.Err = fmt.Errorf("pass %s reported no change but changed the graph", step.Info.Name)
		}
		if pr.Err == nil && ctx.Diags.HasErrors() {
			pr.Err = errStopped
		}
		res.Passes = append(res.Passes, pr)
		m.dump(step, g, pr)
		if pr.Err == nil && m.AfterPass != nil {
			pr.Err = m.AfterPass(step, before, g, &res.Passes[len(res.Passes)-1])
		}
		if pr.Err != nil {
			m.writeRepro(p, step, g, pr.Err)
			if errors.Is(pr.Err, errStopped) {
				return res, nil // diagnostics already say why
			}
			return res, pr.Err
		}
	}
	return res, nil
}

// errStopped marks a pass that reported error diagnostics: the pipeline
// stops, and the diagnostics are the whole story.
var errStopped = errors.New("stopped by error diagnostics")

func (m *Manager) runStep(step Step, ctx *Context, g *ir.Graph, hashIn uint64) (pr PassResult) {
	pr.Pass = step.Info.Name
	pr.HashIn = hashIn
	ctx.pass = step.Info.Name
	ctx.current = nil
	start := time.Now()
	defer func() {
		pr.Duration = time.Since(start)
		pr.HashOut = Hash(g)
		if r := recover(); r != nil {
			where := ""
			if ctx.current != nil {
				where = fmt.Sprintf(" at node %s (%s, %s)", ctx.current.Name, ctx.current.Target, ctx.current.Pos)
			}
			pr.Err = fmt.Errorf("pass %s panicked%s: %v\n%s", step.Info.Name, where, r, debug.Stack())
		}
	}()
	changed, err := step.Pass.Run(ctx, g)
	pr.Changed = changed
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			if d.Pass == "" {
				d.Pass = step.Info.Name
				ctx.Diags.Add(*d) // a diagnostic returned without going through ctx
			}
			pr.Err = errStopped
			return pr
		}
		pr.Err = fmt.Errorf("pass %s: %w", step.Info.Name, err)
	}
	return pr
}

// At tells the manager which node the pass is working on, so that a panic
// can name it.
func (c *Context) At(n *ir.Node) { c.current = n }

func (m *Manager) dump(step Step, g *ir.Graph, pr PassResult) {
	show := m.Print == PrintAll || m.Print == PrintChanged && pr.Changed || m.PrintAfter[step.Info.Name]
	if !show {
		return
	}
	out := m.Out
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "# -- IR after %s (changed=%v) --\n%s", step.Info.Name, pr.Changed, g.String())
}

// writeRepro saves the pipeline and the graph as it was when the pass failed.
func (m *Manager) writeRepro(p *Pipeline, step Step, g *ir.Graph, err error) {
	if m.ReproDir == "" || errors.Is(err, errStopped) {
		return
	}
	if mkErr := os.MkdirAll(m.ReproDir, 0o755); mkErr != nil {
		return
	}
	text := fmt.Sprintf("# kiln reproducer: pass %s failed\n# pipeline: %s\n# error: %s\n%s",
		step.Info.Name, p.String(), firstLine(err.Error()), g.String())
	_ = os.WriteFile(filepath.Join(m.ReproDir, "repro.fx"), []byte(text), 0o644)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// Hash fingerprints g's printed form, so the manager can tell whether a pass
// changed the graph whatever the pass claims.
func Hash(g *ir.Graph) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, g.String())
	return h.Sum64()
}
