package lowering

import "github.com/kiln-compiler/kiln/ops"

// An alias op (torch.special's: ops.SpecialAliases)
// lowers as its base op does: the parameters have the same names.
func init() {
	for alias, base := range ops.SpecialAliases() {
		if r, ok := rules[qualify(base)]; ok {
			if _, dup := rules[alias]; !dup {
				rules[alias] = r
			}
		}
	}
}
