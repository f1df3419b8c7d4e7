#!/bin/bash
# The bash completion, sourced into bash and called as bash would: the
# commands and each command's options are those of `rlyeh --help` and
# `rlyeh COMMAND --help`; files, directories, games and policies complete
# where they are arguments, and every game and policy offered is accepted
# by `rlyeh sim`. Usage: completion.sh COMPLETION_FILE RLYEH
set -u
file=$1
rlyeh=$2
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passes=0
failures=0

# shellcheck disable=SC1090
. "$file" || { echo "FAIL sourcing $file"; exit 1; }

# Completes the words given (the last is the one under the cursor) and
# prints the candidates sorted, on one line.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_rlyeh
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

sorted() { printf '%s\n' "$@" | sort -u | tr '\n' ' ' | sed 's/ $//'; }

expect() {
	local what=$1 want=$2 got=$3
	if [ "$got" = "$want" ]; then
		passes=$((passes + 1))
	else
		echo "FAIL $what: expected [$want], got [$got]"
		failures=$((failures + 1))
	fi
}

registered=$(complete -p rlyeh 2>&1)
expect "complete -p rlyeh" "complete -F _rlyeh rlyeh" "$registered"

# The commands, from the program's own list.
commands=$("$rlyeh" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
# shellcheck disable=SC2086
expect "commands" "$(sorted $commands help --help --version)" "$(comp rlyeh '')"
expect "commands starting with ch" "check-config check-db" "$(comp rlyeh ch)"

# Each command's options, from its --help (PostgreSQL tools' options left out).
for cmd in $commands; do
	opts=$("$rlyeh" "$cmd" --help | grep -Ev '^\s*(pg_[a-z_]+|psql)\b' |
		grep -oE '(^|[^a-z-])--[a-z][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u)
	# shellcheck disable=SC2086
	expect "options of $cmd" "$(sorted $opts --help)" "$(comp rlyeh "$cmd" --)"
done

# Arguments: games, variants, languages.
expect "sim --game" "cthulhu cthulhu-dice elder-signs" "$(comp rlyeh sim --game '')"
expect "sim --game=" "cthulhu cthulhu-dice elder-signs" "$(comp rlyeh sim --game = '')"
expect "sim --variant" "classic rival-cults" "$(comp rlyeh sim --variant '')"
expect "console --lang" "en nl" "$(comp rlyeh console --lang '')"
expect "sim --seed takes a number" "" "$(comp rlyeh sim --seed '')"

# Policies: for the game given before, each one the sources define, each accepted by sim.
for game in cthulhu-dice elder-signs cthulhu; do
	# The game's folder: the file that names the game and the files beside it.
	dir=$(dirname "$(grep -rl "\.name = \"$game\"" "$src"/src/core)")
	defined=$(sed -n '/policies\[\] = {/,/};/p' "$dir"/*.c |
		sed -n 's/^\s*{ "\([a-z0-9-]*\)", .*/\1/p')
	offered=$(comp rlyeh sim --game "$game" --policy '')
	# shellcheck disable=SC2086
	expect "policies of $game" "$(sorted $defined)" "$offered"
	for p in $offered; do
		if "$rlyeh" sim --game "$game" --players 2 --policy "$p" --games 1 >/dev/null 2>"$tmp/err"; then
			passes=$((passes + 1))
		else
			echo "FAIL sim --game $game --policy $p refused: $(cat "$tmp/err")"; failures=$((failures + 1))
		fi
	done
done
expect "policies default to cthulhu-dice's" "heuristic random solver" "$(comp rlyeh sim --policy '')"
expect "--game=cthulhu then --policy" "baseline" "$(comp rlyeh sim --game = cthulhu --policy b)"
expect "the last policy of a list" "random,heuristic" "$(comp rlyeh sim --policy random,h)"

# Files and directories.
mkdir "$tmp/pictures"
touch "$tmp/data.db" "$tmp/script.json" "$tmp/rlyeh.conf"
expect "backup --db FILE" "$tmp/data.db" "$(comp rlyeh backup --db "$tmp/da")"
expect "run --config FILE" "$tmp/rlyeh.conf" "$(comp rlyeh run --config "$tmp/rl")"
expect "check-db --config=FILE" "$tmp/rlyeh.conf" "$(comp rlyeh check-db --config = "$tmp/rl")"
expect "restore BACKUP" "$tmp/data.db" "$(comp rlyeh restore "$tmp/d")"
expect "replay SCRIPT" "$tmp/script.json" "$(comp rlyeh replay "$tmp/s")"
expect "console --pictures DIR (directories only)" "$tmp/pictures" "$(comp rlyeh console --pictures "$tmp/")"
expect "export GAME is a number" "" "$(comp rlyeh export '')"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
