package driver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Progress is quiet on a writer that is not a terminal unless asked, and
// quiet before its delay; forced on, it names each stage with its count.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p, err := NewProgress(&buf, "auto")
	require.NoError(t, err)
	require.Nil(t, p, "auto: a buffer is not a terminal")
	p.Stage("lower", 10, "nodes") // a nil Progress does nothing
	p.Done()

	p, err = NewProgress(&buf, "on")
	require.NoError(t, err)
	p.Stage("parse", 0, "")
	p.Done()
	require.Empty(t, buf.String(), "a run shorter than the delay prints nothing")

	p, err = NewProgress(&buf, "on")
	require.NoError(t, err)
	p.start = time.Now().Add(-3 * time.Second) // as if the run began 3 s ago
	p.Stage("lower", 15553, "nodes")
	p.Stage("lower", 15553, "nodes")
	p.Stage("fuse", 7938, "kernels")
	p.Done()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3, "%q", buf.String())
	require.Regexp(t, `^kiln: +3\.\ds  lower \(15553 nodes\)$`, lines[0])
	require.Regexp(t, `^kiln: +3\.\ds  fuse \(7938 kernels\)$`, lines[1])
	require.Regexp(t, `^kiln: +3\.\ds  done$`, lines[2])

	_, err = NewProgress(&buf, "sometimes")
	require.ErrorContains(t, err, "want auto, on or off")
}
