package fakeprop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ir/sym"
	"github.com/kiln-compiler/kiln/ops"
	"github.com/kiln-compiler/kiln/passes"
	"github.com/kiln-compiler/kiln/passes/fakeprop"
)

// knownMismatches lists corpus nodes whose annotation kiln does not
// reproduce, each with the reason; the test fails on any other mismatch
// and on an entry here that has started to match.
var knownMismatches = map[string]string{}

// corpusStats counts, over every annotated node whose op kiln supports,
// how many printed types kiln reproduces from the inputs alone.
type corpusStats struct {
	annotated, matched int
	withStrides        int // annotated tensors whose annotation shows strides
	mismatches         []string
	excluded           []string // annotated nodes whose inputs kiln cannot type
	unsupported        map[string]int
	reg                *ops.Registry
}

// TestCorpusAgreement strips the annotations of every corpus graph (keeping
// the inputs'), runs fakeprop, and compares each node's inferred type with
// what PyTorch printed.
func TestCorpusAgreement(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/*.fx.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	opsFile := "../../testdata/customops/corpus.ops"
	opsSrc, err := os.ReadFile(opsFile)
	require.NoError(t, err)
	reg, err := ops.LoadCustomOps(ops.Default(), opsFile, opsSrc)
	require.NoError(t, err)
	st := &corpusStats{unsupported: map[string]int{}, reg: reg}
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		res, err := fx.Parse(file, src, fx.Options{Lookup: ops.LookupSchema})
		require.NoError(t, err, file)
		for gi, g := range res.Module.Graphs {
			st.graph(t, fmt.Sprintf("%s#%d", filepath.Base(file), gi), g)
		}
	}
	sort.Strings(st.mismatches)
	var unexpected []string
	seen := map[string]bool{}
	for _, m := range st.mismatches {
		key, _, _ := strings.Cut(m, ": ")
		seen[key] = true
		if _, ok := knownMismatches[key]; !ok {
			unexpected = append(unexpected, m)
		}
	}
	for key := range knownMismatches {
		if !seen[key] {
			t.Errorf("known mismatch %s now matches; remove it from knownMismatches", key)
		}
	}
	t.Logf("corpus agreement: %d/%d annotated nodes of supported ops match (%d annotations carry strides)", st.matched, st.annotated, st.withStrides)
	var un []string
	for op, n := range st.unsupported {
		un = append(un, fmt.Sprintf("%s×%d", op, n))
	}
	sort.Strings(un)
	t.Logf("annotated nodes of ops without a kiln rule (not counted): %s", strings.Join(un, ", "))
	t.Logf("excluded (an input has no type: an opaque higher-order op or an undeclared placeholder):\n%s", strings.Join(st.excluded, "\n"))
	if len(unexpected) > 0 {
		t.Errorf("%d unexpected mismatch(es):\n%s", len(unexpected), strings.Join(unexpected, "\n"))
	}
}

// inferFromInputs forgets every node's type and runs fakeprop again, going
// on past errors and not checking annotations: what kiln infers from the
// graph's inputs alone.
func inferFromInputs(t *testing.T, name string, g *ir.Graph, cfg passes.Config) *passes.Context {
	for _, n := range g.Nodes {
		for _, v := range n.Results {
			v.Type = ir.Type{}
		}
	}
	ctx := passes.NewContext(cfg)
	p, err := passes.Parse("fakeprop{keep-going;no-check}")
	require.NoError(t, err)
	_, err = p.Steps[0].Pass.Run(ctx, g)
	require.NoError(t, err, name)
	return ctx
}

func (st *corpusStats) graph(t *testing.T, name string, g *ir.Graph) {
	ctx := inferFromInputs(t, name, g, passes.Config{CaptureScalarOutputs: true, CaptureDynamicOutputShapeOps: true,
		Extra: map[string]any{fakeprop.ExtraRegistry: st.reg}})
	fromAnnot := map[string]string{}
	for _, d := range ctx.Diags.Items {
		if d.Code == fakeprop.RemarkFromAnnotation {
			fromAnnot[d.Node] = d.Message
		}
		if d.Severity >= 2 {
			st.mismatches = append(st.mismatches, fmt.Sprintf("%s:%s: error %s: %s", name, d.Node, d.Code, d.Message))
		}
	}
	rename := map[string]sym.Expr{}
	for _, n := range g.Nodes {
		if !supported(n) {
			for _, v := range n.Results {
				if v.Annot.IsKnown() {
					st.unsupported[n.Target]++
				}
			}
			continue
		}
		for _, v := range n.Results {
			if !v.Annot.IsKnown() {
				continue
			}
			if msg := fromAnnot[n.Name]; strings.Contains(msg, fakeprop.WhyUntypedArg) {
				st.excluded = append(st.excluded, fmt.Sprintf("%s:%s (%s): %s", name, v.Name, n.Target, fakeprop.WhyUntypedArg))
				continue
			}
			st.annotated++
			if fromAnnot[n.Name] != "" {
				st.mismatches = append(st.mismatches, fmt.Sprintf("%s:%s: %s: no inference (%s)", name, v.Name, n.Target, fromAnnot[n.Name]))
				continue
			}
			if v.Annot.Kind == ir.KindTensor && v.Annot.Tensor.Strides != nil {
				st.withStrides++
			}
			learnRenaming(v.Annot, v.Type, rename)
			if fakeprop.Agrees(v.Annot, renameType(v.Type, rename)) {
				st.matched++
				continue
			}
			st.mismatches = append(st.mismatches, fmt.Sprintf("%s:%s: %s: annotated %s, inferred %s", name, v.Name, n.Target, v.Annot, v.Type))
		}
	}
}

// learnRenaming maps a fresh unbacked symbol kiln named (u0) to the name
// PyTorch printed for the same value (u4): names of unbacked symbols depend
// on how many the tracer created and discarded, not on the graph.
func learnRenaming(annot, inferred ir.Type, m map[string]sym.Expr) {
	if annot.Kind != inferred.Kind || annot.Kind == ir.KindTensor || annot.Kind == ir.KindList {
		return
	}
	if annot.Sym.IsUnbacked() && inferred.Sym.IsUnbacked() {
		if _, done := m[inferred.Sym.Name()]; !done {
			m[inferred.Sym.Name()] = annot.Sym
		}
	}
}

func renameType(t ir.Type, m map[string]sym.Expr) ir.Type {
	if len(m) == 0 {
		return t
	}
	switch t.Kind {
	case ir.KindTensor:
		c := t.Tensor.Clone()
		for i := range c.Shape {
			c.Shape[i] = c.Shape[i].Subst(m)
		}
		for i := range c.Strides {
			c.Strides[i] = c.Strides[i].Subst(m)
		}
		return ir.TensorOf(c)
	case ir.KindSymInt, ir.KindSymBool, ir.KindSymFloat:
		t.Sym = t.Sym.Subst(m)
	}
	return t
}

// supported reports whether kiln has a rule for n's op.
func supported(n *ir.Node) bool {
	switch n.Form {
	case ir.FormOp:
		op, ok := n.Op.(*ops.Op)
		return ok && op.Meta != nil
	case ir.FormOperator:
		return n.Target == "operator.getitem" || ops.IsPyOperator(n.Target)
	case ir.FormMethod, ir.FormFunction:
		_, ok, _ := ops.Default().ResolvePython(n.Target, n.Args, n.Kwargs)
		return ok || n.Form == ir.FormMethod
	}
	return false
}

// TestCorpusVerifies runs fakeprop through the pass manager on every corpus
// graph, annotations included, with the verifier after the pass: no graph
// may fail verification or report a type mismatch against PyTorch's own
// annotations.
func TestCorpusVerifies(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/*.fx.txt")
	require.NoError(t, err)
	opsFile := "../../testdata/customops/corpus.ops"
	opsSrc, err := os.ReadFile(opsFile)
	require.NoError(t, err)
	reg, err := ops.LoadCustomOps(ops.Default(), opsFile, opsSrc)
	require.NoError(t, err)
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		res, err := fx.Parse(file, src, fx.Options{Lookup: ops.LookupSchema})
		require.NoError(t, err)
		for _, g := range res.Module.Graphs {
			ctx := passes.NewContext(passes.Config{CaptureScalarOutputs: true, CaptureDynamicOutputShapeOps: true,
				Extra: map[string]any{fakeprop.ExtraRegistry: reg}})
			p, err := passes.Parse("fakeprop")
			require.NoError(t, err)
			m := passes.Manager{VerifyEach: true}
			_, err = m.Run(p, ctx, g)
			if err != nil && untypedFromOpaque(g) {
				// ir's StageTyped check wants every registry op typed; a value
				// computed from an untyped get_attr or higher-order op cannot
				// be (reported to the lead).
				t.Logf("%s: verifier: untyped values downstream of opaque nodes", filepath.Base(file))
				continue
			}
			require.NoError(t, err, file)
			for _, d := range ctx.Diags.Items {
				require.NotEqual(t, "error", d.Severity.String(), "%s: %s", file, d)
			}
		}
	}
}

// untypedFromOpaque reports whether every registry op left untyped has an
// untyped argument, i.e. the gap comes from an opaque node upstream.
func untypedFromOpaque(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if n.Op == nil {
			continue
		}
		for _, v := range n.Results {
			if v.Type.IsKnown() {
				continue
			}
			untypedArg := false
			n.WalkInputs(func(in *ir.Value) { untypedArg = untypedArg || !in.Type.IsKnown() })
			if !untypedArg {
				return false
			}
		}
	}
	return true
}
