// Package testgraphs collects every example graph under testdata/ for the
// tests that walk them all (translation validation, end-to-end codegen):
// plain .fx and .fx.txt files, and the .fx members of txtar regression
// cases. Corpus graphs printed without annotations get input types from
// the programs in their headers.
package testgraphs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/frontend/fx"
	"github.com/kiln-compiler/kiln/ir"
	"github.com/kiln-compiler/kiln/ops"
)

// Graph is one example file (which may hold several graphs).
type Graph struct {
	Name  string // path, plus ":member" for a txtar member
	Src   []byte
	Types map[string]ir.Type // input name → type, for unannotated inputs; "*" types every input
}

// headerTypes types the inputs of unannotated corpus graphs, from the
// programs in their headers.
var headerTypes = map[string]map[string]string{
	"018_fz_simple": {"arg0_1": "f32[4, 2]"}, "020_fz_copy_": {"arg0_1": "f32[2]"},
	"021_fz_everything": {"arg0_1": "f32[4, 2]"}, "022_fz_split": {"arg0_1": "f32[4, 2]"},
	"025_fz_index_mutation_fill_select":     {"arg0_1": "f32[2]"},
	"027_fz_optional_tensor_list_index_put": {"arg0_1": "f32[4, 2]"},
	"029_fz_old_split_a1_naming":            {"a_1": "f32[4, 2]"},
	"026_fz_instance_norm_running_stats":    {"arg0_1": "f32[20, 100, 35, 45]", "arg1_1": "f32[100]", "arg2_1": "f32[100]"},
	"028_fz_view_clone_view_inplace_bwd":    {"arg0_1": "f32[16, 64, 128, 128]"},
	// shapes the header leaves open are chosen to fit the program
	"036_export_tabular_graph_and_code_view_mutation": {"p_weight": "f32[4, 4]", "b_offset": "f32[4]", "x": "f32[2, 4]"},
	"037_minifier_repro_sgd_inplace_inputs":           {"*": "f32[4]"},
	"038_export_training_ir_input_and_buffer_add_":    {"b_buffer": "f32[4, 4]", "x": "f32[4, 4]"},
	"039_export_run_decompositions_buffer_mutation": {"p_linear_weight": "f32[2, 2]", "p_linear_bias": "f32[2]",
		"b_buffer": "f32[2, 2]", "x": "f32[2, 2]"},
	"031_log_prefixed_post_grad_cpu": {"arg0_1": "f32[8, 16][16, 1]cpu", "arg1_1": "f32[16][1]cpu"},
	// buf3 is Inductor's buffer for the written-back input: typed like it
	"032_graph_fragment_node_form_copy_":             {"arg0_1": "f32[3, 64, 64][4096, 64, 1]cuda:0", "buf3": "f32[3, 64, 64][4096, 64, 1]cuda:0"},
	"044_makefx_setitem_symint_copy_into_select":     {"x_1": "f32[10]"},
	"046_makefx_nested_tuple_return_sym_size":        {"x_1": "f32[3, 1]", "y_1": "f32[5]"},
	"047_makefx_resize_from_zero_return_none":        {"x_1": "f32[0]", "y_1": "f32[2]"},
	"114_makefx_resize_input_functionalized":         {"x_1": "f32[0]", "y_1": "f32[2]"},
	"050_minifier_after_aot_scatter_add_gnn":         {"arg0_1": "i64[2, 200000]", "arg1_1": "f32[10000, 32]"},
	"054_blogpost_mm_softmax_cpu_debug_dir.runnable": {"arg0_1": "f32[100, 100]", "arg1_1": "f32[100, 100]"},
}

// Collect reads every graph under root (the repository's testdata folder),
// sorted by path.
func Collect(root string) ([]Graph, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Graph
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) == "hostile" {
			continue // deliberately broken inputs (cmd/kiln's TestHostileInputs), not example graphs
		}
		switch {
		case strings.HasSuffix(f, ".txtar"):
			ar, err := txtar.ParseFile(f)
			if err != nil {
				return nil, err
			}
			for _, file := range ar.Files {
				if strings.HasSuffix(file.Name, ".fx") {
					out = append(out, Graph{Name: f + ":" + file.Name, Src: file.Data})
				}
			}
		case strings.HasSuffix(f, ".fx") || strings.HasSuffix(f, ".fx.txt"):
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			g := Graph{Name: f, Src: src}
			if g.Types, err = typesFor(filepath.Base(f)); err != nil {
				return nil, err
			}
			out = append(out, g)
		}
	}
	return out, nil
}

func typesFor(base string) (map[string]ir.Type, error) {
	for prefix, types := range headerTypes {
		if !strings.HasPrefix(base, prefix) {
			continue
		}
		out := map[string]ir.Type{}
		for name, text := range types {
			t, err := ir.ParseType(text)
			if err != nil {
				return nil, fmt.Errorf("%s: input %s: %w", base, name, err)
			}
			out[name] = t
		}
		return out, nil
	}
	return nil, nil
}

// ForEach calls fn for graph gi of every file under root that parses
// (files that do not are passed over: the parser's tests report them),
// with the header's types set on the inputs the graph leaves untyped.
func ForEach(t testing.TB, root string, fn func(tg Graph, gi int, g *ir.Graph)) {
	t.Helper()
	graphs, err := Collect(root)
	require.NoError(t, err)
	for _, tg := range graphs {
		res, err := fx.Parse(tg.Name, tg.Src, fx.Options{Lookup: ops.LookupSchema})
		if err != nil {
			continue
		}
		for gi, g := range res.Module.Graphs {
			types := tg.InputTypes(g)
			for _, in := range g.Inputs {
				if ty, ok := types[in.Name]; ok && !in.Type.IsKnown() {
					in.Type = ty
				}
			}
			fn(tg, gi, g)
		}
	}
}

// InputTypes expands "*" to every input of g.
func (tg Graph) InputTypes(g *ir.Graph) map[string]ir.Type {
	all, ok := tg.Types["*"]
	if !ok {
		return tg.Types
	}
	out := map[string]ir.Type{}
	for _, in := range g.Inputs {
		out[in.Name] = all
	}
	return out
}

// Elements sums the elements of every tensor value of g, each free symbol
// (backed or unbacked) at defaultSym and a dimension that does not
// evaluate counted as 1: the size the tests' element budgets bound.
func Elements(g *ir.Graph, defaultSym int64) int64 {
	env := map[string]int64{}
	total := int64(0)
	for _, v := range g.Values() {
		if v.Type.Kind != ir.KindTensor {
			continue
		}
		n := int64(1)
		for _, e := range v.Type.Tensor.Shape {
			for _, s := range e.Free() {
				env[s] = defaultSym
			}
			size, err := e.Eval(env)
			if err != nil {
				size = 1
			}
			n *= size
		}
		total += n
	}
	return total
}
