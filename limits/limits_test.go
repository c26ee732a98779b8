package limits

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if err := Check("rank", 3, 4, ""); err != nil {
		t.Fatalf("under the limit: %v", err)
	}
	err := Check("tensor rank", 5000, Rank, "")
	if err == nil || !strings.Contains(err.Error(), "tensor rank 5000 is past kiln's limit of 1024") {
		t.Fatalf("got %v", err)
	}
	e := Check("input size in bytes", 1<<40, InputBytes, "-max-input-bytes").(*Error)
	if !strings.Contains(e.Hint(), "-max-input-bytes") || !strings.Contains(e.Hint(), "docs/LIMITS.md") {
		t.Fatalf("hint %q names neither the flag nor the doc", e.Hint())
	}
}
