#!/bin/bash
# Judge every Dynamo-level graph in testdata/dynamo against PyTorch eager:
# kiln's seed-7 inputs (internal/e2e's: kiln run -passes fakeprop,aten),
# made valid where eager would refuse them (a batch norm's running variance
# positive, BERT's buffered token types 0 and positions 0..511, token ids in
# the vocabulary, one_hot classes below num_classes), then judge.py --inputs.
#
#     nice -n 10 tools/e2e_judge/judge_dynamo.sh [WORK]
set -u
cd "$(dirname "$0")/../.."
work=${1:-$(mktemp -d /tmp/judge_dynamo.XXXXXX)}
go build -o "$work/kiln" ./cmd/kiln || exit 1
for f in testdata/dynamo/*.fx.txt; do
  b=$(basename "$f" .fx.txt)
  rm -rf "${work:?}/$b" && mkdir -p "$work/$b"
  "$work/kiln" run -passes fakeprop,aten -seed 7 -save-inputs "$work/$b/in" "$f" > /dev/null 2>&1
  if ! ls "$work/$b/in"/*.npy > /dev/null 2>&1; then
    echo "== $b: kiln run made no inputs: $("$work/kiln" compile -o "$work/$b/c" "$f" 2>&1 | grep -m1 error)"
    continue
  fi
  python3 - "$work/$b/in" <<'PY'
import glob, os, sys
import numpy as np
for f in glob.glob(os.path.join(sys.argv[1], "*.npy")):
    n, x = os.path.basename(f), np.load(f)
    if "running_var" in n:
        x = np.abs(x) + 0.1
    elif "buffers_token_type_ids" in n:
        x = np.zeros_like(x)
    elif "buffers_position_ids" in n:
        x = np.arange(x.shape[-1], dtype=x.dtype).reshape(x.shape)
    elif n == "L_kw_input_ids_.npy":
        x = np.abs(x) % 100
    elif n == "L_idx_.npy":
        x = np.abs(x) % 5
    else:
        continue
    np.save(f, x)
PY
  python3 tools/e2e_judge/judge.py --inputs "$work/$b/in" --work "$work/$b/w" "$f" > "$work/$b/judge.txt" 2>&1
  echo "== $b: exit $? ($(grep -c 'True, go True\|equal to eager: True' "$work/$b/judge.txt") outputs accepted," \
    "$(grep -c 'False' "$work/$b/judge.txt") refused)"
done
