"""Regenerate kiln's real-trace test data from the installed PyTorch.

    python3 tools/traces/gen.py            # all scenarios (a few minutes: Inductor compiles C++)
    python3 tools/traces/gen.py cnn_train  # one

Each scenario of scenarios.py runs in a fresh interpreter; TORCH_TRACE logs land in
testdata/traces/torchtrace/NAME.log, Execution Traces in testdata/traces/et/NAME.json
(the larger ones only as .json.gz). To keep the repository small the logs are trimmed, and only by
dropping whole events (the envelope line and its payload) of kinds kiln ignores —
chromium_event timings, interned file names, config dumps, cache keys, generated
C++ — and the bulky config fields of compilation_metrics (dynamo_config keeps the
capture_* settings kiln reads); every other kept line is
byte-for-byte what PyTorch wrote. The first line of each file names the PyTorch
version (a comment line kiln's readers skip, like PyTorch's own glog preamble).
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "testdata", "traces")

# TORCH_TRACE scenarios; the DTRACE ones need TORCH_DTRACE for dtrace_structured events.
TORCH_TRACE = ["cnn_train", "transformer_infer", "norm_mlp_infer", "graph_break_fails", "item_scalar",
               "nonzero_dynamic", "custom_op_fake", "custom_op_nofake", "view_input"]
DTRACE = ["draft_export_fake_kernels"]
ET = ["et_mlp", "et_dtypes", "et_compiled"]
GZIP_ONLY = ["et_mlp", "et_dtypes"]

DROP_EVENTS = {"chromium_event", "str", "dynamo_cpp_guards_str", "inductor_output_code"}
DROP_ARTIFACTS = {"fx_graph_cache_miss", "fx_graph_cache_hit", "fx_graph_cache_bypass", "torch._functorch.config",
                  "aot_autograd_runtime_wrappers", "fx_graph_runnable", "aot_forward_graph_fw_metadata",
                  "aot_backward_graph_fw_metadata", "aotautograd_cache_miss", "aotautograd_cache_bypass",
                  "aotautograd_cache_hit", "inductor_triton_kernel_to_post_grad_nodes"}
KEEP_DYNAMO_CONFIG = {"capture_scalar_outputs", "capture_dynamic_output_shape_ops"}  # what kiln reads of it
BULKY_METRICS = {"inductor_config", "stack_trace", "exception_stack_trace", "graph_node_shapes",
                 "inductor_fx_remote_cache_hit_keys", "inductor_fx_remote_cache_miss_keys"}


def header(kind):
    return f"# kiln test data: {kind} written by PyTorch {torch.__version__}; regenerate with tools/traces/gen.py\n"


def event_kind(line):
    """The event name of a glog-prefixed envelope line, or None."""
    _, sep, env = line.partition("] ")
    if not sep:
        return None, None
    try:
        d = json.loads(env)
    except ValueError:
        return None, None
    keys = [k for k in d if k not in ("frame_id", "frame_compile_id", "attempt", "has_payload")]
    kind = keys[0] if keys else ""
    if kind == "artifact":
        return kind, d
    return kind, d


def trim(lines):
    out, keep = [], True
    for line in lines:
        if line.startswith("\t"):
            if keep:
                out.append(line)
            continue
        kind, d = event_kind(line)
        keep = not (kind in DROP_EVENTS or kind == "artifact" and d["artifact"].get("name") in DROP_ARTIFACTS)
        if keep and kind in ("compilation_metrics", "bwd_compilation_metrics"):
            prefix, _, _ = line.partition("] ")
            m = d[kind]
            for k in BULKY_METRICS & set(m):
                del m[k]
            if m.get("dynamo_config"):
                cfg = json.loads(m["dynamo_config"])
                m["dynamo_config"] = json.dumps({k: v for k, v in cfg.items() if k in KEEP_DYNAMO_CONFIG}, sort_keys=True)
            line = prefix + "] " + json.dumps(d) + "\n"
        if keep:
            out.append(line)
    return out


def run(name, env_var, *args):
    env = dict(os.environ, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    with tempfile.TemporaryDirectory() as d:
        if env_var:
            env[env_var] = d
        p = subprocess.run([sys.executable, os.path.join(HERE, "scenarios.py"), name, *args], env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{name} failed:\n{p.stderr[-3000:]}")
        return [(os.path.basename(f), open(f).readlines()) for f in sorted(glob.glob(os.path.join(d, "*.log")))]


def main(names):
    os.makedirs(os.path.join(OUT, "torchtrace"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "et"), exist_ok=True)
    for name in TORCH_TRACE + DTRACE:
        if names and name not in names:
            continue
        logs = run(name, "TORCH_DTRACE" if name in DTRACE else "TORCH_TRACE")
        assert len(logs) == 1, f"{name}: {len(logs)} logs"
        kept = trim(logs[0][1])
        with open(os.path.join(OUT, "torchtrace", name + ".log"), "w") as f:
            f.write(header("a TORCH_TRACE log"))
            f.writelines(kept)
        print(f"{name}: {len(logs[0][1])} lines, kept {len(kept)}")
    if not names or "ranks" in names:
        # A folder of per-rank logs, as TORCH_TRACE=/dir writes them for a distributed job.
        d = os.path.join(OUT, "torchtrace_ranks")
        os.makedirs(d, exist_ok=True)
        for fname, lines in run("ranks", "TORCH_TRACE"):
            rank = fname.split("_rank_")[1].split("_")[0]
            with open(os.path.join(d, f"dedicated_log_torch_trace_rank_{rank}.log"), "w") as f:
                f.write(header("a TORCH_TRACE log"))
                f.writelines(trim(lines))
            print(f"ranks: {fname}: {len(lines)} lines")
    for name in ET:
        if names and name not in names:
            continue
        path = os.path.join(OUT, "et", name + ".json")
        run(name, None, path)
        with open(path) as f:
            et = json.load(f)
        print(f"{name}: schema {et['schema']}, {len(et['nodes'])} nodes")
    if not names or "et_mlp" in names:
        # The gzipped form users store, and the same trace converted to the 1.0.x layout
        # (PyTorch 2.15 writes only 1.1.x), by et_to_1_0.py.
        src = os.path.join(OUT, "et", "et_mlp.json")
        subprocess.run([sys.executable, os.path.join(HERE, "et_to_1_0.py"), src,
                        os.path.join(OUT, "et", "et_mlp_1_0.json")], check=True)
    # Only the gzipped form of the larger traces is committed.
    for name in GZIP_ONLY:
        src = os.path.join(OUT, "et", name + ".json")
        if os.path.exists(src):
            with open(src, "rb") as f, gzip.GzipFile(src + ".gz", "wb", mtime=0) as g:
                shutil.copyfileobj(f, g)
            os.remove(src)


if __name__ == "__main__":
    main(sys.argv[1:])
