package suggest

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"compile", "opt", "run", "dot", "passes", "explain", "version", "help"}
	for _, tc := range []struct{ in, want string }{
		{"comple", "compile"}, {"compiel", "compile"}, {"otp", "opt"}, {"passe", "passes"},
		{"frobnicate", ""}, {"compile", ""}, {"x", ""},
	} {
		if got := Closest(tc.in, cmds); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Closest("functionalze", []string{"fakeprop", "functionalize", "dce"}); got != "functionalize" {
		t.Errorf("got %q", got)
	}
}
