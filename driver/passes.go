package driver

// The passes the driver can run register themselves in their init
// functions; linking them here makes them available to every driver user.
import (
	_ "github.com/kiln-compiler/kiln/passes/align"
	_ "github.com/kiln-compiler/kiln/passes/aten"
	_ "github.com/kiln-compiler/kiln/passes/cse"
	_ "github.com/kiln-compiler/kiln/passes/dce"
	_ "github.com/kiln-compiler/kiln/passes/decompose"
	_ "github.com/kiln-compiler/kiln/passes/fakeprop"
	_ "github.com/kiln-compiler/kiln/passes/functionalize"
	_ "github.com/kiln-compiler/kiln/passes/postgrad"
	_ "github.com/kiln-compiler/kiln/passes/vmap"
)
