package lit

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
)

// Golden is the compare-or-update step every txtar runner shares: the
// runner produces its named output sections, Golden checks them against
// the case or, under -update, writes them back into the case file.
type Golden struct {
	File    string
	Archive *txtar.Archive
	// Names are the sections the runner owns, in the order a fresh case
	// lists them; each must be a vocabulary word.
	Names []string
	// Drop removes an owned section whose output is empty under -update
	// (a case holds only what it expects) and appends the others after the
	// rest of the case; otherwise sections are rewritten in place.
	Drop bool
	// Trim compares without trailing newlines.
	Trim bool
}

// Check compares got (owned section name → text) with the case, or under
// update rewrites the case file from got.
func (g Golden) Check(t testing.TB, got map[string]string, update bool) {
	t.Helper()
	for _, name := range g.Names {
		mustKnow(name)
	}
	if update {
		g.rewrite(t, got)
		return
	}
	for _, name := range g.Names {
		want, have := Section(g.Archive, name), got[name]
		if g.Trim {
			want, have = strings.TrimRight(want, "\n"), strings.TrimRight(have, "\n")
		}
		assert.Equal(t, want, have, "%s: section %s differs (go test -update rewrites it)", g.File, name)
	}
}

func (g Golden) rewrite(t testing.TB, got map[string]string) {
	t.Helper()
	if g.Drop {
		owned := map[string]bool{}
		for _, name := range g.Names {
			owned[name] = true
		}
		var files []txtar.File
		for _, f := range g.Archive.Files {
			if !owned[f.Name] {
				files = append(files, f)
			}
		}
		g.Archive.Files = files
	}
	for _, name := range g.Names {
		if !g.Drop || got[name] != "" {
			SetSection(g.Archive, name, got[name])
		}
	}
	if err := os.WriteFile(g.File, txtar.Format(g.Archive), 0o644); err != nil {
		t.Fatalf("update %s: %v", g.File, err)
	}
}
