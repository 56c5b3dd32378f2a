#!/bin/bash
# debian13.sh: run GoTorch's build and tests against Debian 13's libtorch
# 2.6, in a Debian 13 (trixie) root made with debootstrap, on a Debian 12
# machine that must not get trixie's packages itself.
#
#   scripts/debian13.sh ensure     build the root, or rebuild it if it is
#                                  missing or stale (a different package list)
#   scripts/debian13.sh run CMD…   run CMD in the root, in a copy-free view of
#                                  this clone mounted at /src
#   scripts/debian13.sh path       print where the root is
#   scripts/debian13.sh versions   print the versions of the packages that
#                                  decide the results (libtorch, oneDNN,
#                                  BLAS, the compiler); every installed
#                                  package's is in $root/.gotorch-packages
#
# The root is rebuilt from scratch when its package list changes and when
# Debian's archive has a newer version of any package in it (a point
# release of trixie: libtorch 2.6.0+dfsg-7 replacing -6, say), so that it
# is what a fresh machine would build that day. Without the network, the
# root as it is stays, with a warning.
#
# The root lives outside the clone, in $GOTORCH_DEBIAN13 (default
# /var/cache/gotorch/debian13), so that CI reuses it between runs. Its Go
# build cache is kept beside it, in $GOTORCH_DEBIAN13-gocache, so that it
# outlives a rebuild of the root (the cache keys hold the compiler and the
# flags, the libtorch version among them); the Go toolchain (/usr/local/go)
# and the module cache are the host's, mounted in. Mounts are made in a private
# mount namespace (unshare) and vanish with the command.
#
# Needs root (debootstrap, chroot, mount). About 1.2 GiB on disk.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
root=${GOTORCH_DEBIAN13:-/var/cache/gotorch/debian13}
gocache=$root-gocache
suite=trixie
# What the root holds: libtorch 2.6 and the reference PyTorch, a C++
# compiler, what scripts/setup.sh would install (libgloo-dev for c10d's
# Gloo), git for Go's VCS stamps, and setuptools, which PyTorch 2.6's
# AOTInductor compiler needs (torch/aoti's test). Changing this list makes
# the root stale.
pkgs=(g++ make git ca-certificates libtorch-dev python3-torch libopenblas0-openmp dataset-fashion-mnist libgloo-dev python3-setuptools)
stamp_text="suite=$suite pkgs=${pkgs[*]} v=2"

say() { echo "debian13: $*" >&2; }
die() { echo "debian13: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"

# shellcheck source=scripts/apt-private.sh
. "$here/scripts/apt-private.sh"

fresh() { [ -f "$root/.gotorch-stamp" ] && [ "$(cat "$root/.gotorch-stamp")" = "$stamp_text" ]; }

# current: the archive has no newer version of any package in the root.
# apt-get update's lists are removed again (apt-get clean keeps the root
# small), so each check fetches them anew: about 30 MB, seconds. A check
# that found the root current stands for 6 hours (.gotorch-checked), so a
# session's many `run`s fetch the lists once; DEBIAN13_CHECK=1 forces it.
current() {
	local checked="$root/.gotorch-checked"
	if [ "${DEBIAN13_CHECK:-}" != 1 ] && [ -n "$(find "$checked" -mmin -360 2>/dev/null)" ]; then
		return 0
	fi
	if ! inside "$root" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1; then
		say "warning: cannot reach Debian's archive to check the root's versions; using it as it is"
		return 0
	fi
	local newer
	newer=$(inside "$root" apt list --upgradable 2>/dev/null | grep 'upgradable from' | sed 's|/[^ ]*||')
	inside "$root" sh -c 'rm -rf /var/lib/apt/lists/*' || true
	if [ -n "$newer" ]; then
		say "Debian has newer packages than the root, which is rebuilt:"
		echo "$newer" | sed 's/^/debian13:   /' >&2
		return 1
	fi
	touch "$checked"
}

# What decides the results: libtorch (and PyTorch, which writes goldens),
# oneDNN, BLAS, OpenMP and the compiler.
key_packages='^(libtorch|python3-torch|libdnnl|libonednn|libopenblas|libgomp|libsleef|libgloo|g\+\+|gcc|libc6|libstdc)'

versions() {
	[ -f "$root/.gotorch-packages" ] || die "no package list in $root: run scripts/debian13.sh ensure"
	echo "debian13: root built $(stat -c %y "$root/.gotorch-packages" | cut -d. -f1), packages that decide the results:"
	grep -E "$key_packages" "$root/.gotorch-packages" | sed 's/^/debian13:   /'
}

ensure() {
	if fresh && current; then
		return
	fi
	if ! command -v debootstrap >/dev/null; then
		say "installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2
	fi
	local m tmp
	m=$(apt_mirror)
	tmp=$root.new
	say "building a Debian 13 root in $root from $m (a few minutes)"
	rm -rf "$tmp"
	mkdir -p "$(dirname "$root")"
	debootstrap --variant=minbase --components=main,contrib \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		"$suite" "$tmp" "$m" >&2
	inside "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
	inside "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2
	inside "$tmp" apt-get clean
	inside "$tmp" sh -c 'rm -rf /var/lib/apt/lists/*'
	# The exact versions installed, every package (versions prints the
	# ones that decide the results).
	inside "$tmp" dpkg-query -W -f='${Package} ${Version}\n' | sort >"$tmp/.gotorch-packages"
	echo "$stamp_text" >"$tmp/.gotorch-stamp"
	rm -rf "$root"
	mv "$tmp" "$root"
	say "ready: $(version)"
}

version() {
	sed -n 's/.*TORCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
		"$root/usr/include/torch/csrc/api/include/torch/version.h" | paste -sd. | sed 's/^/libtorch /'
}

# inside DIR CMD…: run CMD chrooted in DIR, with /proc, /sys, /dev, the
# clone (/src), Go and the module cache mounted, in a private namespace.
inside() {
	local dir=$1
	shift
	local modcache
	modcache=$(/usr/local/go/bin/go env GOMODCACHE 2>/dev/null || echo /root/go/pkg/mod)
	mkdir -p "$dir/src" "$dir/usr/local/go" "$dir/root/go/pkg/mod" "$modcache" "$dir/root/.cache/go-build"
	if [ ! -d "$gocache" ]; then
		# A root from before the cache moved out: keep what it built.
		if [ -n "$(ls -A "$dir/root/.cache/go-build")" ]; then
			mv "$dir/root/.cache/go-build" "$gocache"
			mkdir -p "$dir/root/.cache/go-build"
		else
			mkdir -p "$gocache"
		fi
	fi
	unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
		dir=$1 src=$2 modcache=$3 gocache=$4
		shift 4
		mount -t proc proc "$dir/proc"
		mount --rbind /sys "$dir/sys"
		mount --rbind /dev "$dir/dev"
		mount --bind "$src" "$dir/src"
		mount --bind /usr/local/go "$dir/usr/local/go"
		mount --bind "$modcache" "$dir/root/go/pkg/mod"
		mount --bind "$gocache" "$dir/root/.cache/go-build"
		cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
		# The host'"'"'s CA bundle, which may hold a local CA that the root'"'"'s
		# ca-certificates lacks (go get through the module proxy needs it).
		ca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
		if [ -f "$ca" ]; then
			mkdir -p "$dir/etc/ssl/certs"
			cp "$ca" "$dir/etc/ssl/certs/gotorch-host-ca.crt"
		fi
		# What picks kernels and threads passes through (a host that pins
		# OpenBLAS to one core type must get the same numbers in the root).
		pass=()
		while IFS= read -r kv; do pass+=("$kv"); done < <(env | grep -E "^(OPENBLAS_|GOTORCH_|OMP_|BENCH_)[A-Za-z0-9_]*=" || true)
		exec chroot "$dir" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" CI="${CI:-}" "${pass[@]}" \
			GOPROXY="${GOPROXY:-}" GONOSUMDB="${GONOSUMDB:-}" GOFLAGS="${GOFLAGS:-}" \
			SSL_CERT_FILE=/etc/ssl/certs/gotorch-host-ca.crt \
			HTTPS_PROXY="${HTTPS_PROXY:-${https_proxy:-}}" HTTP_PROXY="${HTTP_PROXY:-${http_proxy:-}}" \
			NO_PROXY="${NO_PROXY:-${no_proxy:-}}" \
			PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /src && exec \"\$@\"" bash "$@"
	' bash "$dir" "$here" "$modcache" "$gocache" "$@"
}

case ${1:-} in
ensure) ensure ;;
path) echo "$root" ;;
versions) versions ;;
run)
	shift
	[ $# -gt 0 ] || die "run: no command"
	ensure
	say "$(version), $(chroot "$root" /usr/bin/g++ --version | head -1)"
	say "$(grep -E '^(libtorch2|libdnnl|libopenblas0|python3-torch )' "$root/.gotorch-packages" | paste -sd, | sed 's/,/, /g')"
	inside "$root" "$@"
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
