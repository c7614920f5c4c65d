#!/bin/sh
# The export tests (make test-export): trains a tiny network, exports it
# and a wider fixed-seed one as ONNX and JSON, writes positions of real
# games with the C network's outputs, then runs the ONNX checker and
# web/test/export.test.mjs (ONNX Runtime for Node, the JSON evaluator). The
# page has its own test, web/test/browser.test.mjs.
#
#   tests/export/run.sh BUILD_DIR
# Needs BUILD_DIR/sowzero, BUILD_DIR/tests/export/dump_cases and
# web/node_modules (npm ci); make test-export provides them. Fails (never
# skips) when something is missing.
set -eu
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
BIN=$BUILD/sowzero
DUMP=$BUILD/tests/export/dump_cases
OUT=$BUILD/export-test

for f in "$BIN" "$DUMP"; do
  [ -x "$f" ] || { echo "test-export: $f is missing (make test-export builds it)"; exit 1; }
done
command -v node >/dev/null || { echo "test-export: node (Node.js 20) is not installed"; exit 1; }
[ -d web/node_modules/onnxruntime-node ] ||
  { echo "test-export: web/node_modules is incomplete; run 'npm ci' in web/"; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/other"

echo "== a tiny training run (configs/tiny.ini, 0.3 minutes)"
"$BIN" train configs/tiny.ini --run "$OUT/run" --minutes 0.3 > "$OUT/train.log" 2>&1 ||
  { tail -5 "$OUT/train.log"; echo "test-export: training failed"; exit 1; }
tail -2 "$OUT/train.log"

echo "== networks: the trained one, a default-shape fixed-seed one, a Warri one"
"$DUMP" --make-net "$OUT/wide.weights" --hidden 256 --blocks 2 --seed 5
"$DUMP" --make-net "$OUT/other/warri.weights" --game warri --hidden 16 --blocks 1 --seed 3

# Kujifunza has 32 actions and 131 features: the widest action space. The
# game is newer than this test; without it the line below says so.
if printf 'game kujifunza\n' | "$BIN" engine | grep -q '^= kujifunza'; then
  "$DUMP" --make-net "$OUT/kujifunza.weights" --game kujifunza --hidden 64 --blocks 1 --seed 4
else
  echo "NOTE: this build has no kujifunza; the 32-action export is not checked"
fi

echo "== exports"
for fmt in onnx json; do
  "$BIN" export "$OUT/run" --format $fmt --out "$OUT/trained.$fmt"
  "$BIN" export "$OUT/wide.weights" --format $fmt --out "$OUT/wide.$fmt"
done
"$BIN" export "$OUT/other/warri.weights" --format onnx --out "$OUT/other/warri.onnx"
if [ -f "$OUT/kujifunza.weights" ]; then
  for fmt in onnx json; do
    "$BIN" export "$OUT/kujifunza.weights" --format $fmt --out "$OUT/kujifunza.$fmt"
  done
fi

echo "== the ONNX checker (Debian's python3-onnx, full check with shape inference)"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import onnx' 2>/dev/null ||
  { echo "test-export: python3-onnx is not installed (sh scripts/install-deps.sh web)"; exit 1; }
/usr/bin/python3 - "$OUT"/*.onnx "$OUT"/other/*.onnx <<'PY'
import sys
import onnx
for f in sys.argv[1:]:
    onnx.checker.check_model(onnx.load(f), full_check=True)
    print(f"{f}: valid ONNX (onnx {onnx.__version__})")
PY

echo "== positions of real games with the C network's outputs"
"$DUMP" "$OUT/run/best.weights" "$OUT/trained.cases.json" --replay "$OUT/run/replay.bin" \
  --samples 1000 --random 1000 --seed 11
"$DUMP" "$OUT/wide.weights" "$OUT/wide.cases.json" --replay "$OUT/run/replay.bin" \
  --samples 500 --random 1000 --seed 12

[ -f "$OUT/kujifunza.weights" ] &&
  "$DUMP" "$OUT/kujifunza.weights" "$OUT/kujifunza.cases.json" --random 1200 --seed 13

echo "== JavaScript tests (web/test/export.test.mjs)"
cd web
SOWZERO_BIN="$BIN" SOWZERO_EXPORT_DIR="$OUT" node --test test/export.test.mjs
