"""Convert a 1.1.x Execution Trace (what PyTorch 2.15 writes) to the 1.0.x layout.

PyTorch ≥ 2.4 writes only schema 1.1.x; traces recorded with older releases (and
published ones) use 1.0.x, which kiln also reads. The 1.0.x layout, as MLCommons
Chakra's converter reads it: the parent is "parent" (1.1.x: "ctrl_deps"), inputs and
outputs are flat fields ("inputs", "input_shapes", "input_types"; 1.1.x nests them
as inputs.values/shapes/types/strides and adds strides), and the attributes
(rf_id, op_schema, ...) are top-level fields (1.1.x: an "attrs" list).

    python3 tools/traces/et_to_1_0.py IN.json OUT.json
"""
import json
import sys


def convert(et):
    nodes = []
    for n in et["nodes"]:
        m = {"name": n["name"], "id": n["id"]}
        for a in n.get("attrs", []):
            m[a["name"]] = a["value"]
        m["parent"] = n["ctrl_deps"]
        for side in ("inputs", "outputs"):
            one = side[:-1]
            m[side] = n[side]["values"]
            m[one + "_shapes"] = n[side]["shapes"]
            m[one + "_types"] = n[side]["types"]
        nodes.append(m)
    out = {k: v for k, v in et.items() if k != "nodes"}
    out["schema"] = "1.0.1"
    out["nodes"] = nodes
    return out


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        et = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump(convert(et), f)
