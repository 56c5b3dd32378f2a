#!/bin/bash
# refresh.sh: write the compact declarations extract of one PyTorch version,
# internal/gen/decls/v<VERSION>.yaml.gz, from that version's torchgen.
#
#   internal/gen/decls/refresh.sh VERSION SITE_PACKAGES [PYTHON]
#
# SITE_PACKAGES holds its torchgen/ (a pip install, or a python3-torch .deb
# unpacked with dpkg -x: <dir>/usr/lib/python3/dist-packages). PYTHON runs
# torchgen (default python3; torchgen 2.6 and 2.14 run on Debian 12's 3.11).
# Nothing is installed. Then run go generate ./... and commit both.
#
# Example, Debian 13's 2.6.0 without installing it (docs: ../shared notes):
#   apt-get download python3-torch (from trixie) && dpkg -x python3-torch_*.deb /tmp/t26
#   internal/gen/decls/refresh.sh 2.6.0 /tmp/t26/usr/lib/python3/dist-packages
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
version=$1 site=$2 python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PYTHONPATH="$site" "$python" -m torchgen.gen -s "$site/torchgen/packaged/ATen" -d "$tmp" \
	--generate declarations_yaml >/dev/null
cd "$here/.."
go run . -declarations "$tmp/Declarations.yaml" -extract "decls/v$version.yaml.gz"
