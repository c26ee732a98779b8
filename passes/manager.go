package passes

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"sync"
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
	// KeepText keeps each stage's printed output in PassResult.Text (the
	// HTML report's columns, the loop-IR dumps).
	KeepText bool
	// AfterPass, when set, runs after each graph pass with the graph before
	// and after it; translation validation hooks in here.
	AfterPass func(step Step, before, after *ir.Graph, res *PassResult) error
	// AfterStage, when set, runs after each stage past the graph (lower,
	// fuse, a code generator) with the unit as it left it: the driver
	// writes the stage's dump there and reports progress.
	AfterStage func(step Step, u *Unit, res *PassResult) error
	// Unread, when set, says that no one will read what a stage past the
	// graph prints (its report column too long to show, no dump of it):
	// a stage that reports a change is then not printed at all, and its
	// hash stays 0 (not computed). Printing the loop program is ~0.4 s on
	// a 100k-node graph. Ignored with VerifyEach or IR printing asked for.
	Unread func(step Step, u *Unit) bool
	// Snapshot copies a graph for AfterPass's "before"; nil disables it.
	Snapshot func(*ir.Graph) *ir.Graph
	// TrustUnchanged takes a stage that reports no change at its word: a
	// stage past the graph (verify, a code generator) is not printed and
	// hashed again, and where no one reads a graph's text or hash (no
	// dump, no report, no Snapshot for translation validation) graphs are
	// not hashed at all (HashIn and HashOut stay 0): on a 1M-node graph
	// each hash is a print of seconds. VerifyEach checks every claim anyway.
	TrustUnchanged bool
}

// PassResult is what the manager measured for one pass.
type PassResult struct {
	Pass     string
	Changed  bool
	Duration time.Duration
	HashIn   uint64 // 0: not computed (Manager.TrustUnchanged)
	HashOut  uint64
	Err      error
	// Text is the stage's printed output (the graph, the program, or the
	// code a codegen stage emitted), when Manager.KeepText.
	Text string
	// Lines counts Text's lines where the caller let Text go (a large
	// stage no dump needs, kept only for its length).
	Lines int
	// Unprinted says the stage was not printed: no one would read it
	// (Manager.Unread).
	Unprinted bool
}

// Result is one pipeline run.
type Result struct {
	Passes []PassResult
}

// Run applies the pipeline to g. It stops at the first pass that fails; the
// error wraps the pass name and, for a panic, the node being processed.
func (m *Manager) Run(p *Pipeline, ctx *Context, g *ir.Graph) (*Result, error) {
	return m.RunUnit(p, ctx, &Unit{Graph: g})
}

// RunUnit applies the pipeline to u: graph passes and the stages past the
// graph alike get timed, hashed, verified, dumped, and reproduced on failure.
func (m *Manager) RunUnit(p *Pipeline, ctx *Context, u *Unit) (*Result, error) {
	res := &Result{}
	stage := ir.StageParsed
	in := u.Printed // each pass's output is the next one's input
	u.Printed = ""  // stale after the first stage; tens of MB on a large graph
	var hash uint64
	switch {
	case in != "":
		hash = HashText(in)
	case m.needsText(u):
		in = u.Text()
		hash = HashText(in)
	case !m.skipsGraphHash(u):
		hash = Hash(u.Graph)
	}
	for i := 0; i < len(p.Steps); {
		batch := p.Steps[i : i+emitRun(p.Steps[i:])]
		var before *ir.Graph
		if step := batch[0]; step.Unit == nil && m.AfterPass != nil && m.Snapshot != nil {
			before = m.Snapshot(u.Graph)
		}
		if m.onlyEmitsFrom(p, i, u) {
			in = "" // no later step reads it (tens of MB while code is generated)
		}
		outs := m.runSteps(batch, ctx, u, in, hash)
		for k, step := range batch {
			pr, out := outs[k].pr, outs[k].out
			hash = pr.HashOut
			if step.Info.Stage > stage {
				stage = step.Info.Stage
			}
			if pr.Err == nil {
				pr.Err = m.verify(step, u, stage, pr.Changed)
			}
			if pr.Err == nil && !pr.Changed && pr.HashIn != pr.HashOut {
				pr.Err = fmt.Errorf("pass %s reported no change but changed the graph", step.Info.Name)
			}
			if pr.Err == nil && ctx.Diags.HasErrors() {
				pr.Err = errStopped
			}
			if m.KeepText {
				pr.Text = stepText(step, u, out)
			}
			res.Passes = append(res.Passes, pr)
			m.dump(step, u, out, pr)
			last := &res.Passes[len(res.Passes)-1]
			switch {
			case pr.Err == nil && step.Unit == nil && m.AfterPass != nil:
				pr.Err = m.AfterPass(step, before, u.Graph, last)
			case pr.Err == nil && step.Unit != nil && m.AfterStage != nil:
				pr.Err = m.AfterStage(step, u, last)
			}
			if pr.Err != nil {
				m.writeRepro(p, i+k, u, in, pr.Err)
				if errors.Is(pr.Err, errStopped) {
					return res, nil // diagnostics already say why
				}
				return res, pr.Err
			}
			in = out
		}
		i += len(batch)
	}
	return res, nil
}

// onlyEmitsFrom says whether steps i.. of p are code generators that
// will not print the program again (TrustUnchanged): their text is the
// code they emit, so none reads the program's text.
func (m *Manager) onlyEmitsFrom(p *Pipeline, i int, u *Unit) bool {
	if !m.TrustUnchanged || m.VerifyEach || u.Prog == nil {
		return false
	}
	for _, step := range p.Steps[i:] {
		if !step.Info.Emits || step.Unit == nil {
			return false
		}
	}
	return true
}

// emitRun is how many steps from steps[0] run together: a run of code
// generators (rows that say Emits) only reads the program, each writing
// its own Unit.Code entry, so they run at once; any other step runs alone.
func emitRun(steps []Step) int {
	n := 1
	for steps[0].Info.Emits && n < len(steps) && steps[n].Info.Emits {
		n++
	}
	return n
}

type stepOut struct {
	pr  PassResult
	out string
}

// runSteps runs a batch (emitRun) from the same input: one step here, or
// code generators on goroutines of their own, each with a context of its
// own whose diagnostics join ctx's in step order.
func (m *Manager) runSteps(batch []Step, ctx *Context, u *Unit, in string, hash uint64) []stepOut {
	outs := make([]stepOut, len(batch))
	if len(batch) == 1 {
		outs[0].pr, outs[0].out = m.runStep(batch[0], ctx, u, in, hash)
		return outs
	}
	ctxs := make([]*Context, len(batch))
	var wg sync.WaitGroup
	for k, step := range batch {
		ctxs[k] = &Context{Config: ctx.Config, Diags: &diag.List{}}
		wg.Go(func() { outs[k].pr, outs[k].out = m.runStep(step, ctxs[k], u, in, hash) })
	}
	wg.Wait()
	for _, c := range ctxs {
		ctx.Diags.Items = append(ctx.Diags.Items, c.Diags.Items...)
	}
	return outs
}

// needsText says whether anyone reads the unit's text after a stage: the
// report (KeepText), a dump, a reproducer (which needs the failing stage's
// input). Otherwise a graph is only hashed, streamed through the hash
// (on a 1M-node graph the text is hundreds of MB).
func (m *Manager) needsText(u *Unit) bool {
	return u.Prog != nil || m.KeepText || m.ReproDir != "" || m.Print != PrintNever || len(m.PrintAfter) > 0
}

// skipsGraphHash says whether graph stages go unhashed (TrustUnchanged).
func (m *Manager) skipsGraphHash(u *Unit) bool {
	return m.TrustUnchanged && !m.VerifyEach && m.Snapshot == nil && !m.needsText(u)
}

// verify runs the checks that hold after step: the IR verifier at the
// pipeline's stage after a graph pass that changed the graph, the program's
// verifier after a stage whose row asks for it (or after everything, with
// VerifyEach).
func (m *Manager) verify(step Step, u *Unit, stage ir.Stage, changed bool) error {
	var err error
	switch {
	case step.Unit == nil && (changed || m.VerifyEach):
		err = ir.Verify(u.Graph, stage)
	case step.Unit != nil && u.Prog != nil && (step.Info.VerifyProgram || m.VerifyEach):
		err = u.Prog.Verify()
	}
	if err != nil {
		return fmt.Errorf("after pass %s: %w", step.Info.Name, err)
	}
	return nil
}

// stepText is what a stage's dump shows: the code a codegen stage emitted,
// else the unit as the stage left it (already printed as out).
func stepText(step Step, u *Unit, out string) string {
	if step.Info.Emits {
		return u.Code[step.Info.Name]
	}
	return out
}

// printAfter prints the unit a step left (or reuses its input's text where
// that is known to be unchanged) and sets pr's HashOut; a printer that
// panics on what the step left is the step's error, not a crash.
func (m *Manager) printAfter(step Step, u *Unit, pr *PassResult, progIn Program, in string, hashIn uint64) (out string) {
	defer func() {
		if r := recover(); r != nil {
			pr.Err = fmt.Errorf("printing the program after pass %s panicked: %v\n%s", step.Info.Name, r, debug.Stack())
			out, pr.HashOut = in, hashIn
		}
	}()
	switch {
	case m.TrustUnchanged && !m.VerifyEach && step.Unit != nil && !pr.Changed && u.Prog == progIn && progIn != nil:
		out, pr.HashOut = in, hashIn
	case step.Unit != nil && pr.Changed && m.unread(step, u):
		out, pr.HashOut, pr.Unprinted = "", 0, true
	case step.Unit == nil && m.skipsGraphHash(u):
		pr.HashOut = hashIn // 0: not computed
	case !m.needsText(u):
		pr.HashOut = Hash(u.Graph)
	default:
		out = u.Text()
		pr.HashOut = HashText(out)
	}
	if pr.HashOut == hashIn && out == in {
		out = in // one copy of the text, shared by every stage that left it so
	}
	if step.Unit != nil { // the printed program is a stage's whole output
		pr.Changed = pr.HashIn != pr.HashOut
	}
	return out
}

// errStopped marks a pass that reported error diagnostics: the pipeline
// stops, and the diagnostics are the whole story.
var errStopped = errors.New("stopped by error diagnostics")

// runStep runs one step with crash recovery; out is the unit printed after
// it, whose hash is HashOut.
func (m *Manager) runStep(step Step, ctx *Context, u *Unit, in string, hashIn uint64) (pr PassResult, out string) {
	pr.Pass = step.Info.Name
	pr.HashIn = hashIn
	ctx.startPass(step.Info.Name)
	defer ctx.endPass(u.Graph.Pos)
	start := time.Now()
	progIn := u.Prog
	defer func() {
		pr.Duration = time.Since(start)
		if r := recover(); r != nil {
			where := ""
			if ctx.current != nil {
				where = fmt.Sprintf(" at node %s (%s, %s)", ctx.current.Name, ctx.current.Target, ctx.current.Pos)
			}
			pr.Err = fmt.Errorf("pass %s panicked%s: %v\n%s", step.Info.Name, where, r, debug.Stack())
			// what a pass left when it panicked may not print: the input
			// stands for it
			out, pr.HashOut = in, hashIn
			return
		}
		out = m.printAfter(step, u, &pr, progIn, in, hashIn)
	}()
	var changed bool
	var err error
	// The label names the stage in a CPU profile (KILN_CPUPROFILE), on the
	// goroutines the stage starts too: `go tool pprof -tagfocus stage=fuse`.
	pprof.Do(context.Background(), pprof.Labels("stage", step.Info.Name), func(context.Context) {
		changed, err = step.run(ctx, u)
	})
	pr.Changed = changed
	if err != nil {
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			if d.Pass == "" {
				d.Pass = step.Info.Name
				ctx.Diags.Add(*d) // a diagnostic returned without going through ctx
			}
			pr.Err = errStopped
			return pr, out
		}
		pr.Err = fmt.Errorf("pass %s: %w", step.Info.Name, err)
	}
	return pr, out
}

// At tells the manager which node the pass is working on, so that a panic
// can name it.
func (c *Context) At(n *ir.Node) { c.current = n }

func (m *Manager) dump(step Step, u *Unit, out string, pr PassResult) {
	if m.shows(step.Info.Name, pr.Changed) {
		m.Dump(step.Info.Name, pr.Changed, stepText(step, u, out))
	}
}

// unread says whether step's printed program goes unread (Manager.Unread).
func (m *Manager) unread(step Step, u *Unit) bool {
	return m.Unread != nil && !m.VerifyEach && m.Print == PrintNever && !m.PrintAfter[step.Info.Name] &&
		!step.Info.Emits && m.Unread(step, u)
}

func (m *Manager) shows(stage string, changed bool) bool {
	return m.Print == PrintAll || m.Print == PrintChanged && changed || m.PrintAfter[stage]
}

// Dump writes a stage's output as the manager's dumps do. The driver calls
// it for the parse row (-print-after=parse), which runs before the manager.
func (m *Manager) Dump(stage string, changed bool, text string) {
	w := m.Out
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "# -- IR after %s (changed=%v) --\n%s", stage, changed, text)
}

// writeRepro saves what reproduces the failure, as MLIR's reproducers do:
// the failing step's input and the pipeline from that step on. A stage past
// the graph reads a program kiln cannot parse back, so its reproducer holds
// the graph lowering started from and the pipeline from lowering on.
func (m *Manager) writeRepro(p *Pipeline, i int, u *Unit, in string, err error) {
	if m.ReproDir == "" || errors.Is(err, errStopped) {
		return
	}
	if mkErr := os.MkdirAll(m.ReproDir, 0o755); mkErr != nil {
		return
	}
	from := i
	if p.Steps[i].Unit != nil {
		for from > 0 && p.Steps[from-1].Unit != nil {
			from--
		}
		in = u.Graph.String()
	}
	text := fmt.Sprintf("# kiln reproducer: pass %s failed\n# pipeline: %s\n# error: %s\n%s",
		p.Steps[i].Info.Name, p.From(from).String(), firstLine(err.Error()), in)
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
// changed the graph whatever the pass claims. The text streams through the
// hash: it is never one string. It is maphash with one seed per process:
// Hash(g) == HashText(g.String()), compared within a run, never stored.
func Hash(g *ir.Graph) uint64 {
	var h maphash.Hash
	h.SetSeed(textSeed)
	_, _ = g.WriteTo(&h)
	return h.Sum64()
}

// HashText is Hash over a graph's text already printed. maphash reads 16
// bytes at a time (FNV-1a, one byte per multiply, cost 0.26 s of CPU on
// the critical path of a 100k-node compile).
func HashText(text string) uint64 { return maphash.String(textSeed, text) }

var textSeed = maphash.MakeSeed()
