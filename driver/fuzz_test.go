package driver_test

import (
	"testing"

	"github.com/kiln-compiler/kiln/driver"
	"github.com/kiln-compiler/kiln/internal/testgraphs"
	"github.com/kiln-compiler/kiln/passes"
)

// FuzzCompile feeds mutated example graphs through the whole pipeline:
// parse, passes, lowering, fusion, Go and CUDA codegen. Any input may be
// refused with diagnostics or an error; none may panic.
func FuzzCompile(f *testing.F) {
	graphs, err := testgraphs.Collect("../testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range graphs {
		if len(g.Src) < 4<<10 { // small seeds mutate into interesting inputs faster
			f.Add(g.Src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		run, err := driver.Compile(driver.Input{Name: "fuzz.fx", Src: src}, driver.Options{
			Pipeline: driver.CompilePipeline,
			Config:   passes.Config{CaptureScalarOutputs: true, CaptureDynamicOutputShapeOps: true}})
		if err != nil || run == nil {
			return
		}
		_, _ = driver.Backend(run, driver.BackendOptions{Go: true, CUDA: true})
	})
}
