#!/bin/sh
# The layout docs/ARCHITECTURE.md draws, checked: every #include of the
# library points down the dependency order (or within its folder), no
# *_internal.h is included from outside its folder, and no source file
# passes 800 lines (450 in trainer/). Prints each breach; exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
# Each folder and the folders it may include (besides itself).
allowed() {
  case "$1" in
    base) echo "" ;;
    game) echo "base" ;;
    egdb) echo "base game" ;;
    nn) echo "base" ;;
    export) echo "base nn" ;;
    search) echo "base game egdb nn" ;;
    arena) echo "base game egdb nn search" ;;
    trainer) echo "base game egdb nn search arena" ;;
    protocol) echo "base game egdb nn search" ;;
    cli) echo "base game egdb nn export search arena trainer protocol" ;;
    wasm) echo "base game egdb protocol cli" ;;
    tests) echo "base game egdb nn export search arena trainer protocol tests" ;;
    python) echo "base game egdb nn search arena" ;;
    *) echo "?" ;;
  esac
}
bad=0
for f in $(git ls-files '*.c' '*.h'); do
  dir=${f%%/*}
  ok=$(allowed "$dir")
  [ "$ok" = "?" ] && continue
  for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
    idir=${inc%%/*}
    case "$inc" in onnx/*) continue ;; esac
    if [ "$idir" != "$dir" ]; then
      case " $ok " in
        *" $idir "*) ;;
        *) echo "$f: includes $inc (upward or sideways: $dir may use: ${ok:-libc only})"; bad=1 ;;
      esac
      case "$inc" in
        *_internal.h) echo "$f: includes $inc, private to $idir/"; bad=1 ;;
      esac
    fi
  done
  n=$(wc -l < "$f")
  [ "$n" -gt 800 ] && { echo "$f: $n lines (at most 800)"; bad=1; }
  # The trainer's files stay small enough to hold one job each.
  case "$f" in trainer/*) [ "$n" -gt 450 ] && { echo "$f: $n lines (trainer/: at most 450)"; bad=1; } ;; esac
done
exit $bad
