package driver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/graphgen"
	"github.com/kiln-compiler/kiln/report"
)

// compileInto runs `kiln compile`'s flow into dir: streamed through Dumps
// as the CLI does, or written at the end from the texts the run kept.
func compileInto(t *testing.T, src, dir string, streamed bool) *driver.Run {
	opts := driver.Options{Pipeline: driver.CompilePipeline, Record: true}
	if streamed {
		opts.Dumps = driver.NewDumps(dir)
	}
	run, err := driver.Compile(driver.Input{Name: "gen.fx", Src: []byte(src)}, opts)
	require.NoError(t, err)
	require.False(t, run.Diags.HasErrors())
	progs, err := driver.Backend(run, driver.BackendOptions{Go: true, CUDA: true})
	require.NoError(t, err)
	require.Len(t, progs, 1)
	if streamed { // the big texts went to disk and were let go
		require.Empty(t, progs[0].Go)
		require.Empty(t, progs[0].CUDA)
		for _, c := range run.Stages[0].Columns {
			if c.LineCount() > report.MaxColumnLines && c.Text != "" {
				require.Truef(t, c.Changed && !c.NewForm, "column %s (%d lines) kept its text", c.Title, c.LineCount())
			}
		}
	}
	require.NoError(t, driver.WriteOutputs(dir, "", false, run, progs))
	return run
}

// Streaming the dumps (each stage's text written as the stage finishes,
// the code generators writing straight into their files, long texts let
// go) must write the very files the end-of-run writer does: on a graph
// whose texts are past what the report inlines, and on one that fits.
func TestStreamedDumpsMatchWritten(t *testing.T) {
	for _, nodes := range []int{120, 6000} {
		src := graphgen.Blocks(graphgen.Config{Nodes: nodes})
		streamed, written := t.TempDir(), t.TempDir()
		compileInto(t, src, streamed, true)
		compileInto(t, src, written, false)
		files, err := os.ReadDir(written)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(files), 15)
		for _, f := range files {
			want, err := os.ReadFile(filepath.Join(written, f.Name()))
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(streamed, f.Name()))
			require.NoError(t, err, "nodes=%d", nodes)
			// graph.svg may name the folder (where graph.dot is).
			assert.Equal(t, strings.ReplaceAll(string(want), written, "DIR"), strings.ReplaceAll(string(got), streamed, "DIR"), "nodes=%d %s", nodes, f.Name())
		}
		streamedFiles, err := os.ReadDir(streamed)
		require.NoError(t, err)
		require.Equal(t, len(files), len(streamedFiles), "nodes=%d", nodes)
	}
}

// Fusion's program is printed only when someone reads it: on a graph whose
// fused program has more instructions than a report column shows (and no
// file holds fuse's text) it is not printed, and its column says so; a
// small graph's fuse column is the program.
func TestFuseTextPrintedOnlyWhenShown(t *testing.T) {
	for _, c := range []struct {
		nodes     int
		unprinted bool
	}{{120, false}, {6000, true}} {
		run := compileInto(t, graphgen.Blocks(graphgen.Config{Nodes: c.nodes}), t.TempDir(), true)
		var fuse, plan *report.Column
		for i := range run.Stages[0].Columns {
			switch col := &run.Stages[0].Columns[i]; col.Title {
			case "fuse":
				fuse = col
			case "plan":
				plan = col
			}
		}
		require.NotNil(t, fuse, "nodes=%d", c.nodes)
		require.NotNil(t, plan, "nodes=%d", c.nodes)
		assert.Equal(t, c.unprinted, fuse.Unprinted, "nodes=%d", c.nodes)
		assert.False(t, plan.Unprinted, "plan's text is ir_post_fusion.txt")
		assert.Equal(t, !c.unprinted, fuse.Inlined(), "nodes=%d", c.nodes)
		if !c.unprinted {
			assert.Contains(t, fuse.Text, "kernel", "nodes=%d", c.nodes)
		}
	}
}
