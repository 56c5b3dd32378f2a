# apt-private.sh, sourced by the scripts beside it: apt against another
# Debian suite with a private configuration, so that .debs can be downloaded
# and unpacked without installing them or touching this machine's apt state.
#
#   apt_mirror                    the archive this machine already uses (the
#                                 only one reachable here)
#   apt_private SUITE COMPONENT…  sets apt_o, the options that point apt-get
#                                 and apt-cache at SUITE, and apt_work, a
#                                 temporary folder removed at exit (.debs go
#                                 to $apt_work/debs); fetches the index

apt_mirror() {
	local uri
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
	echo "${uri:-http://deb.debian.org/debian}"
}

apt_private() {
	local suite=$1
	shift
	apt_work=$(mktemp -d)
	trap 'rm -rf "$apt_work"' EXIT
	mkdir -p "$apt_work/lists" "$apt_work/etc" "$apt_work/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(apt_mirror) $suite $*" >"$apt_work/etc/sources.list"
	apt_o=(-o "Dir::Etc::sourcelist=$apt_work/etc/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$apt_work/lists" -o APT::Get::List-Cleanup=0)
	apt-get "${apt_o[@]}" update -q >/dev/null
}
