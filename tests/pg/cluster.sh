#!/bin/sh
# A throwaway PostgreSQL cluster for the tests.
#
#   cluster.sh start DIR   makes DIR (it must not exist), initdb's a cluster
#                          in DIR/data, starts it listening only on a Unix
#                          socket in DIR, waits for it, and prints the
#                          connection URI of its database "postgres"
#   cluster.sh stop DIR    stops that cluster and removes DIR
#
# The server runs as an unprivileged user: as root (CI), the user "nobody"
# owns DIR and runs initdb and postgres. Debian's binaries are found through
# pg_config --bindir, else /usr/lib/postgresql/*/bin (RLYEH_PG_BINDIR, when
# set, is the only place looked in). Exit status 2 means that PostgreSQL is
# not installed; 1, any other failure.
set -eu

bindir() {
	if [ -n "${RLYEH_PG_BINDIR:-}" ]; then
		set -- "$RLYEH_PG_BINDIR"
	else
		set -- "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/*/bin
	fi
	for d in "$@"; do
		if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# Runs a command as the cluster's owner.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env -- "$@"
	else
		"$@"
	fi
}

[ $# -eq 2 ] || { echo "usage: $0 start|stop DIR" >&2; exit 1; }
cmd=$1
dir=$2

case $cmd in
start)
	bin=$(bindir) || { echo "PostgreSQL is not installed (no initdb, pg_ctl, postgres)" >&2; exit 2; }
	mkdir -m 700 "$dir"
	[ "$(id -u)" -ne 0 ] || chown nobody:nogroup "$dir"
	if ! as_owner "$bin/initdb" -D "$dir/data" -U rlyeh -A trust -E UTF8 --locale=C \
		--no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		exit 1
	fi
	# Durability is not what these tests test: no fsync, for speed.
	if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start >/dev/null; then
		cat "$dir/server.log" >&2
		exit 1
	fi
	echo "postgresql:///postgres?host=$dir&user=rlyeh"
	;;
stop)
	if bin=$(bindir) && [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 1
	;;
esac
