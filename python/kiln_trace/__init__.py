"""kiln-trace: record PyTorch programs in the forms kiln reads.

    import kiln_trace

    with kiln_trace.record("trace.jsonl"):          # dispatcher op trace (JSON lines)
        model(x)

    torch.compile(model, backend=kiln_trace.backend("graphs"))(x)   # annotated FX per graph

    kiln_trace.run_traced("train.py", "out")        # TORCH_TRACE log + Execution Trace of a script

The op-trace format is documented in one place, kiln's frontend/optrace/optrace.go.
"""
from .record import record
from .backend import backend
from .run import run_traced

__all__ = ["record", "backend", "run_traced"]
