package lowering

// RunExternRT lets the external tests' loopEval run extern kernels through
// rt as schedEval does.
var RunExternRT = runExternRT
