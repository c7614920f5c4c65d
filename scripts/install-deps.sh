#!/bin/sh
# Installs the Debian packages SowZero needs, only when something is missing.
# Plain POSIX sh: it runs before make and a compiler exist (make.sh), on a
# bare Debian that has only sh and apt.
#   install-deps.sh          what building, testing and training need
#   install-deps.sh web      also what make test-export uses: the browser for
#                            the web page's test and the ONNX checker
#   install-deps.sh dev      also what make format-check, make mutants and make
#                            fuzz use (clang and its libFuzzer runtime)
#   install-deps.sh --list [web|dev|all]   prints the package names only
set -e
PKGS="build-essential pkg-config libopenblas-dev check gnuplot-nox libonnx-dev
  python3-dev python3-numpy python3-pytest
  protobuf-c-compiler libprotobuf-c-dev libopenmpi-dev openmpi-bin"
WEB="chromium python3-onnx emscripten"
DEV="clang-format python3 clang libclang-rt-dev"
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
case "${1:-}" in
  "") ;;
  web) PKGS="$PKGS $WEB" ;;
  dev) PKGS="$PKGS $DEV" ;;
  all) PKGS="$PKGS $WEB $DEV" ;;
  *) echo "install-deps: unknown set '$1' (web, dev or all)" >&2; exit 2 ;;
esac
if [ $list = 1 ]; then
  echo $PKGS
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: no dpkg-query/apt-get, so not Debian: install the equivalents of" >&2
  echo "  $PKGS" >&2
  echo "yourself; the build goes on with what is there." >&2
  exit 0
fi

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

# Root installs directly; anyone else through sudo, if there is one.
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: SowZero needs these Debian packages:$missing" >&2
    echo "Installing them takes root, and sudo is not installed. As root, run" >&2
    echo "  apt-get update && apt-get install -y$missing" >&2
    echo "then run this command again." >&2
    exit 1
  fi
fi
echo "Installing:$missing"
$SUDO apt-get update
# Through env: sudo drops the caller's environment, and with it this setting.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
