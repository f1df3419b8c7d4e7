#!/bin/sh
# cmake --install into a staging directory: the binary, migrations, example
# configuration and unit file land where a prefix says, and the unit's
# ExecStart names the installed binary. Usage: install.sh BUILD_DIR
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passes=0
failures=0
for prefix in /usr /opt/rlyeh; do
	DESTDIR="$tmp/root" cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL install $prefix"; failures=$((failures + 1)); continue; }
	for f in bin/rlyeh share/rlyeh/rlyeh.conf share/rlyeh/migrations/0001_tables.sql lib/systemd/system/rlyeh.service lib/systemd/system/rlyeh@.service \
		share/man/man1/rlyeh.1.gz share/man/man5/rlyeh.conf.5.gz share/man/man8/rlyeh.service.8.gz \
		share/bash-completion/completions/rlyeh share/doc/rlyeh/copyright share/doc/rlyeh/changelog.Debian.gz; do
		if [ -e "$tmp/root$prefix/$f" ]; then passes=$((passes + 1)); else echo "FAIL $prefix/$f missing"; failures=$((failures + 1)); fi
	done
	if grep -q "^ExecStart=$prefix/bin/rlyeh run " "$tmp/root$prefix/lib/systemd/system/rlyeh.service"; then
		passes=$((passes + 1))
	else
		echo "FAIL ExecStart for prefix $prefix:"; grep ExecStart "$tmp/root$prefix/lib/systemd/system/rlyeh.service"
		failures=$((failures + 1))
	fi
	if grep -q "^ExecStart=$prefix/bin/rlyeh run --config \${CONFIGURATION_DIRECTORY}/%i.conf" "$tmp/root$prefix/lib/systemd/system/rlyeh@.service"; then
		passes=$((passes + 1))
	else
		echo "FAIL template ExecStart for prefix $prefix:"; grep ExecStart "$tmp/root$prefix/lib/systemd/system/rlyeh@.service"
		failures=$((failures + 1))
	fi
	# Every man: page the units name is found by man among the installed pages
	# (Documentation= is a list of words).
	# shellcheck disable=SC2013
	for ref in $(sed -n 's/^Documentation=//p' "$tmp/root$prefix/lib/systemd/system/rlyeh.service" \
		"$tmp/root$prefix/lib/systemd/system/rlyeh@.service"); do
		name=${ref#man:}; section=${name##*(}; section=${section%)}; name=${name%(*}
		if [ "${ref#man:}" != "$ref" ] && man -M "$tmp/root$prefix/share/man" -w "$section" "$name" >/dev/null 2>&1; then
			passes=$((passes + 1))
		else
			echo "FAIL $prefix: the units' Documentation=$ref is not an installed page"; failures=$((failures + 1))
		fi
	done
	"$tmp/root$prefix/bin/rlyeh" --version >/dev/null && passes=$((passes + 1)) || { echo "FAIL installed binary"; failures=$((failures + 1)); }
done
# A Debian package with the same layout.
if command -v dpkg-deb >/dev/null 2>&1 && command -v dpkg-shlibdeps >/dev/null 2>&1; then
	if (cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1); then
		deb=$(ls "$tmp"/pkg/rlyeh_*.deb 2>/dev/null | head -n 1)
		dpkg-deb -c "$deb" >"$tmp/contents"
		for f in ./usr/bin/rlyeh ./usr/lib/systemd/system/rlyeh.service ./usr/lib/systemd/system/rlyeh@.service ./usr/share/rlyeh/rlyeh.conf \
			./usr/share/man/man1/rlyeh.1.gz ./usr/share/man/man5/rlyeh.conf.5.gz ./usr/share/man/man8/rlyeh.service.8.gz \
			./usr/share/bash-completion/completions/rlyeh ./usr/share/doc/rlyeh/copyright ./usr/share/doc/rlyeh/changelog.Debian.gz; do
			grep -q " $f\$" "$tmp/contents" && passes=$((passes + 1)) || { echo "FAIL $f not in the package"; failures=$((failures + 1)); }
		done
		# Libraries from dpkg-shlibdeps, cairo (loaded by dlopen) and the font of the pictures.
		depends=$(dpkg-deb -f "$deb" Depends)
		case $depends in
		*libcairo2*fonts-dejavu-core*libc6*) passes=$((passes + 1)) ;;
		*) echo "FAIL Depends: $depends"; failures=$((failures + 1)) ;;
		esac
	else
		echo "FAIL cpack:"; tail -5 "$tmp/cpack.log"; failures=$((failures + 1))
	fi
else
	echo "FAIL dpkg-dev is missing (scripts/deps installs it)"; failures=$((failures + 1))
fi
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
