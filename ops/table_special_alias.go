package ops

import (
	"fmt"

	"github.com/kiln-compiler/kiln/ir"
)

// torch.special's aliases of ATen ops. PyTorch implements them as
// CompositeImplicit calls of the base op, so AOT graphs show the base, but
// Dynamo-level graphs and op traces name the alias: each gets the base's
// meta rule here and its eval kernel in interp (SpecialAliases), declared
// once as data. Schemas are PyTorch 2.15's.
// Only aliases whose base op lowers are declared: a pointwise op without
// a lowering counts against lowering's coverage bar (special_digamma/psi,
// gammainc(c), i0, logit, multigammaln, polygamma and round wait for their
// base's lowering).
var specialAliases = []struct {
	schema, base string
	kind         Kind
}{
	{"special_erf(Tensor self) -> Tensor", "aten::erf", KindPointwise},
	{"special_erfc(Tensor self) -> Tensor", "aten::erfc", KindPointwise},
	{"special_erfinv(Tensor self) -> Tensor", "aten::erfinv", KindPointwise},
	{"special_exp2(Tensor self) -> Tensor", "aten::exp2", KindPointwise},
	{"special_expit(Tensor self) -> Tensor", "aten::sigmoid", KindPointwise},
	{"special_expm1(Tensor self) -> Tensor", "aten::expm1", KindPointwise},
	{"special_gammaln(Tensor self) -> Tensor", "aten::lgamma", KindPointwise},
	{"special_log1p(Tensor self) -> Tensor", "aten::log1p", KindPointwise},
	{"special_sinc(Tensor self) -> Tensor", "aten::sinc", KindPointwise},
	{"special_xlogy(Tensor self, Tensor other) -> Tensor", "aten::xlogy.Tensor", KindPointwise},
	{"special_logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", "aten::logsumexp", KindReduction},
	{"special_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", "aten::softmax.int", KindNN},
	{"special_log_softmax(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", "aten::log_softmax.int", KindNN},
}

func specialAliasTable() []Entry {
	var out []Entry
	for _, a := range specialAliases {
		out = append(out, Entry{Schema: a.schema, Kind: a.kind, Meta: aliasMeta(a.base)})
	}
	return out
}

// aliasMeta runs the base op's rule on the alias's call (the parameters
// have the same names).
func aliasMeta(base string) MetaFunc {
	return func(env *Env, c *Call) ([]ir.Type, error) {
		op := Lookup(base)
		if op == nil || op.Meta == nil {
			return nil, fmt.Errorf("%s: its base %s has no meta rule", c.Op.QualifiedName(), base)
		}
		return op.Meta(env, c)
	}
}

// SpecialAliases maps each alias ("aten::special_expit.default") to its
// base op ("aten::sigmoid"), for the interpreter.
func SpecialAliases() map[string]string {
	out := map[string]string{}
	for _, a := range specialAliases {
		s, err := ParseSchema(a.schema, "aten")
		if err != nil {
			panic(err) // the table is kiln's own
		}
		out[s.QualifiedName()] = a.base
	}
	return out
}
