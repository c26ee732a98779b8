"""The interpreter run_traced starts: TORCH_TRACE is already in its
environment; it runs the script under an ExecutionTraceObserver.

    python -m kiln_trace._child ET_PATH|"" SCRIPT [ARGS...]
"""
import runpy
import sys


def main(et, script, args):
    sys.argv = [script, *args]
    if not et:
        runpy.run_path(script, run_name="__main__")
        return
    from torch.profiler import ExecutionTraceObserver
    obs = ExecutionTraceObserver().register_callback(et)
    obs.start()
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        obs.stop()
        obs.unregister_callback()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
