"""Run a script under TORCH_TRACE and ExecutionTraceObserver.

    kiln-trace OUT script.py [args...]        (or python -m kiln_trace.run OUT script.py ...)

writes OUT/torch_trace/ (the structured logs of every torch.compile in the
script, one file per rank) and OUT/execution_trace.json (every op the script ran).
TORCH_TRACE must be set before torch is imported, so the script runs in a
fresh interpreter.
"""
import os
import subprocess
import sys


def run_traced(script, out, args=(), execution_trace=True, env=None):
    """Run script in a subprocess; returns (torch_trace_dir, execution_trace_path or None)."""
    os.makedirs(out, exist_ok=True)
    tt = os.path.join(out, "torch_trace")
    et = os.path.join(out, "execution_trace.json") if execution_trace else ""
    e = dict(os.environ if env is None else env, TORCH_TRACE=tt)
    subprocess.run([sys.executable, "-m", "kiln_trace._child", et, script, *args], env=e, check=True)
    return tt, et or None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tt, et = run_traced(argv[1], argv[0], argv[2:])
    print(f"TORCH_TRACE logs in {tt}; Execution Trace in {et}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
