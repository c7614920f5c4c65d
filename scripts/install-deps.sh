#!/bin/sh
# Installs the Debian packages SowZero needs, only when something is missing.
set -e
PKGS="build-essential pkg-config libopenblas-dev check gnuplot-nox libonnx-dev protobuf-c-compiler libprotobuf-c-dev"
# `install-deps.sh web`: also what make test-export uses: the browser for the
# web page's test and the ONNX checker.
[ "${1:-}" = web ] && PKGS="$PKGS chromium python3-onnx"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "Installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $missing
