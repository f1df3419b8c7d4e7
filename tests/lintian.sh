#!/bin/sh
# The Debian package as a Debian host judges it: cpack -G DEB from the build
# directory, then lintian --pedantic. Any error or warning fails; the tags
# the package overrides say why in debian/rlyeh.lintian-overrides. Without
# lintian it exits 77 (skipped), except under CI=true, where that is a
# failure. Usage: lintian.sh BUILD_DIR
set -u
build=$1
for tool in lintian dpkg-deb dpkg-shlibdeps; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		if [ "${CI:-}" = "true" ]; then
			echo "FAIL: $tool is needed under CI (scripts/deps installs it)"
			exit 1
		fi
		echo "SKIP: $tool is not installed; the package was not checked"
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$build" && cpack -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1; then
	echo "FAIL cpack:"; tail -5 "$tmp/cpack.log"
	exit 1
fi
deb=$(ls "$tmp"/pkg/rlyeh_*.deb)
lintian --pedantic --info "$deb" >"$tmp/lintian" 2>&1
status=$?
grep -v '^running with root privileges' "$tmp/lintian"
if grep -Eq '^[EW]: ' "$tmp/lintian" || [ "$status" -ne 0 ]; then
	echo "FAIL lintian (exit status $status): errors or warnings above"
	exit 1
fi
echo "lintian: no errors, no warnings ($(basename "$deb"))"
