#!/bin/sh
# sh make.sh [TARGET...]: `make TARGET...` on a Debian machine that may not
# have make yet (a bare Debian 12 has only sh and apt). It installs make, the
# compiler and the libraries first (scripts/install-deps.sh), then runs make.
set -e
cd "$(dirname "$0")"
sh scripts/install-deps.sh
if ! command -v make >/dev/null 2>&1; then
  echo "make.sh: make is not installed; install make and a C compiler, then run make $*" >&2
  exit 1
fi
exec make "$@"
