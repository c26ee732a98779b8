package ops

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPyTorchSchemasParse: every schema in PyTorch's table parses, so every
// overload's arity, defaults and alias annotations are known.
func TestPyTorchSchemasParse(t *testing.T) {
	ix := pytorchIndex()
	require.NotEmpty(t, ix.version)
	require.Greater(t, len(ix.lines), 4000)
	for q, l := range ix.lines {
		_, err := ParseSchema(l.schema, "aten")
		assert.NoError(t, err, q)
	}
	assert.True(t, IsHigherOrderOp("auto_functionalized_v2"))
	assert.True(t, IsHigherOrderOp("with_effects"))
}

// declaredSchemaDiffs lists declared ops whose schema differs from
// PyTorch's, with the reason; the test fails on any other difference and
// on an entry that no longer differs.
var declaredSchemaDiffs = map[string]string{
	"kiln::assert_alignment.default": "kiln's own op (the align pass's runtime check); PyTorch has none",
}

// TestDeclaredSchemasMatchPyTorch checks every schema kiln declares by hand
// against the one the installed PyTorch printed.
func TestDeclaredSchemasMatchPyTorch(t *testing.T) {
	var bad []string
	seen := map[string]bool{}
	n := 0
	for _, op := range Default().All() {
		q := op.QualifiedName()
		n++
		text, _, ok := PyTorchSchemaText(q)
		why := ""
		if !ok {
			why = "not in PyTorch " + PyTorchVersion()
		} else {
			want, err := ParseSchema(text, "aten")
			require.NoError(t, err)
			why = schemaDiff(op.Schema, want)
		}
		if why == "" {
			continue
		}
		seen[q] = true
		if _, known := declaredSchemaDiffs[q]; !known {
			bad = append(bad, fmt.Sprintf("%s: %s\n  kiln:    %s\n  pytorch: %s", q, why, op.Schema, text))
		}
	}
	for q := range declaredSchemaDiffs {
		if !seen[q] {
			t.Errorf("%s now matches PyTorch; remove it from declaredSchemaDiffs", q)
		}
	}
	sort.Strings(bad)
	t.Logf("%d declared schemas checked against PyTorch %s; %d listed differences", n, PyTorchVersion(), len(declaredSchemaDiffs))
	if len(bad) > 0 {
		t.Errorf("%d declared schema(s) differ from PyTorch's:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// schemaDiff says how got differs from want, "" when they mean the same:
// defaults compare by value (`0.0` is `0.`, `'none'` is `"none"`,
// `contiguous_format` is MemoryFormat 0, `stride=1` of an `int[2]` is `[1, 1]`).
func schemaDiff(got, want *Schema) string {
	if len(got.Params) != len(want.Params) {
		return fmt.Sprintf("%d parameters, PyTorch has %d", len(got.Params), len(want.Params))
	}
	if len(got.Returns) != len(want.Returns) || got.VarRet != want.VarRet {
		return "returns differ"
	}
	for i := range got.Params {
		if d := paramDiff(got.Params[i], want.Params[i]); d != "" {
			return fmt.Sprintf("parameter %d (%s): %s", i, want.Params[i].Name, d)
		}
	}
	for i := range got.Returns {
		g, w := got.Returns[i], want.Returns[i]
		g.Name, w.Name = "", ""
		if d := paramDiff(g, w); d != "" {
			return fmt.Sprintf("return %d: %s", i, d)
		}
	}
	return ""
}

func paramDiff(g, w Param) string {
	switch {
	case g.Name != w.Name:
		return fmt.Sprintf("named %q, PyTorch %q", g.Name, w.Name)
	case g.Type.String() != w.Type.String():
		return fmt.Sprintf("type %s, PyTorch %s", g.Type, w.Type)
	case g.KwOnly != w.KwOnly:
		return "keyword-only differs"
	case fmt.Sprint(g.Alias) != fmt.Sprint(w.Alias):
		return fmt.Sprintf("alias %v, PyTorch %v", g.Alias, w.Alias)
	case g.HasDef != w.HasDef:
		return "default present in one only"
	case g.HasDef && normDefault(g) != normDefault(w):
		return fmt.Sprintf("default %s, PyTorch %s", g.Default, w.Default)
	}
	return ""
}

var memoryFormats = map[string]string{"contiguous_format": "0", "preserve_format": "1", "channels_last": "2", "channels_last_3d": "3"}

func normDefault(p Param) string {
	d := strings.Trim(p.Default, `"'`)
	if m, ok := memoryFormats[d]; ok {
		return m
	}
	if p.Type.Base == TFloat && !p.Type.List {
		if f, err := strconv.ParseFloat(d, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	if p.Type.List && p.Type.ListLen > 0 && !strings.HasPrefix(d, "[") && d != "None" {
		return "[" + strings.Repeat(d+", ", p.Type.ListLen-1) + d + "]"
	}
	return d
}

// TestLookupKnowsEveryPyTorchOp: an overload kiln does not declare
// resolves to PyTorch's schema, without a meta rule, with the facts its
// tags give.
func TestLookupKnowsEveryPyTorchOp(t *testing.T) {
	// PyTorch's test op: kiln will never declare it.
	op := Lookup("aten::_test_ambiguous_defaults.b")
	require.NotNil(t, op)
	assert.True(t, op.FromPyTorch)
	assert.Nil(t, op.Meta)
	assert.Equal(t, "dummy a b", op.Schema.Params[0].Name+" "+op.Schema.Params[1].Name+" "+op.Schema.Params[2].Name)
	assert.NoError(t, op.CheckCall(1, nil))
	assert.Error(t, op.CheckCall(4, nil), "three parameters")
	assert.Equal(t, `"2"`, op.Schema.Params[2].Default)

	// An in-place op kiln does not declare knows it mutates, and its
	// functional form (the first such op in PyTorch's table).
	var inplace *Op
	for _, q := range PyTorchOps() {
		if o := Lookup(q); strings.HasPrefix(q, "aten::") && o.FromPyTorch && o.IsInplace() && strings.HasSuffix(o.Schema.Name, "_") &&
			Lookup("aten::"+strings.TrimSuffix(o.Schema.Name, "_")+"."+o.Schema.Overload) != nil {
			inplace = o
			break
		}
	}
	require.NotNil(t, inplace)
	assert.Equal(t, "aten::"+strings.TrimSuffix(inplace.Schema.Name, "_")+"."+inplace.Schema.Overload, inplace.Functional, inplace.QualifiedName())

	// Tags carry randomness and data dependence.
	assert.True(t, Lookup("aten::poisson.default").Random, "tagged nondeterministic_seeded")
	assert.False(t, Lookup("aten::poisson.default").IsPure())
	assert.True(t, Lookup("aten::masked_select.default").DataDep, "tagged dynamic_output_shape")

	// Packets resolve as declared ones do; a declared op is never replaced.
	assert.Equal(t, "aten::_test_string_default.default", Lookup("aten::_test_string_default").QualifiedName())
	assert.False(t, Lookup("aten::add.Tensor").FromPyTorch)
	assert.Nil(t, Default().Declared("aten::_test_string_default.default"))
	assert.Nil(t, Lookup("aten::no_such_op.default"))
	assert.Nil(t, Lookup("mylib::foo.default"))
}

func TestSuggest(t *testing.T) {
	r := Default()
	assert.Equal(t, "aten::softmax", r.Suggest("aten::sofmax.int"))
	assert.Equal(t, "aten::convolution_backward", r.Suggest("aten::convolution_backwards.default"))
	assert.Contains(t, r.Suggest("aten::add.Tensr"), "aten::add.Tensor", "right op, wrong overload: its overloads")
	assert.Equal(t, "", r.Suggest("mylib::rope_init.default"))
}

// BenchmarkPyTorchIndex is the first-use cost of PyTorch's table: splitting
// four thousand lines and parsing a hundred schemas on lookup.
func BenchmarkPyTorchIndex(b *testing.B) {
	names := PyTorchOps()[:100]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ix := buildPTIndex(pytorchSchemas)
		for _, q := range names {
			if ix.op(q) == nil {
				b.Fatal(q)
			}
		}
	}
}
