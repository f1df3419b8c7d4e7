# bash completion for rlyeh(1): the commands, each command's options, and
# their arguments (files, directories, games, policies, languages).
# Installed as share/bash-completion/completions/rlyeh; or: source this file.

_rlyeh_policies()
{
	case $1 in
	elder-signs) echo "greedy-2 expect ev best" ;;
	cthulhu) echo "baseline random" ;;
	*) echo "random heuristic solver" ;;
	esac
}

_rlyeh()
{
	local cur prev cmd game i w opts
	local commands="run console sim analyze replay export check-config check-db backup restore migrate-store help"
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value arrives as "--opt" "=" "value" (= is a word break).
	if [ "$cur" = "=" ] && [ "${prev#--}" != "$prev" ]; then
		cur=""
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
		return 0
	fi
	cmd=${COMP_WORDS[1]}

	# The argument of the option before the cursor.
	case $cmd:$prev in
	run:--config | check-db:--config | backup:--config | restore:--config | \
		check-db:--db | backup:--db | restore:--db | export:--db | console:--db)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0
		;;
	console:--pictures)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0
		;;
	console:--lang)
		mapfile -t COMPREPLY < <(compgen -W "en nl" -- "$cur")
		return 0
		;;
	run:--shards)
		mapfile -t COMPREPLY < <(compgen -W "auto" -- "$cur")
		return 0
		;;
	sim:--game)
		mapfile -t COMPREPLY < <(compgen -W "cthulhu-dice elder-signs cthulhu" -- "$cur")
		return 0
		;;
	sim:--variant)
		mapfile -t COMPREPLY < <(compgen -W "classic rival-cults" -- "$cur")
		return 0
		;;
	sim:--cultists)
		mapfile -t COMPREPLY < <(compgen -W "2 3" -- "$cur")
		return 0
		;;
	sim:--policy)
		game=cthulhu-dice
		for ((i = 2; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			if [ "$w" = "--game" ]; then
				game=${COMP_WORDS[i + 1]}
				[ "$game" = "=" ] && game=${COMP_WORDS[i + 2]}
			elif [ "${w#--game=}" != "$w" ]; then
				game=${w#--game=}
			fi
		done
		# A comma-separated list: complete its last element.
		local head="" last=$cur
		if [ "${cur%,*}" != "$cur" ]; then
			head=${cur%,*},
			last=${cur##*,}
		fi
		mapfile -t COMPREPLY < <(compgen -P "$head" -W "$(_rlyeh_policies "$game")" -- "$last")
		compopt -o nospace 2>/dev/null
		return 0
		;;
	console:--seed | console:--name | console:--channel | console:--timeout | \
		console:--moderator | console:--against | sim:--players | sim:--rounds | \
		sim:--games | sim:--seed | sim:--threads)
		return 0
		;;
	esac

	case $cmd in
	run) opts="--config --shards --help" ;;
	console) opts="--seed --db --lang --name --channel --timeout --moderator --against --pictures --help" ;;
	sim) opts="--game --players --rounds --variant --cultists --games --seed --policy --threads --help" ;;
	analyze) opts="--random --help" ;;
	replay) opts="--help" ;;
	export) opts="--db --help" ;;
	check-config) opts="--help" ;;
	check-db | backup | restore) opts="--db --config --help" ;;
	migrate-store) opts="--help" ;;
	*) return 0 ;;
	esac
	if [ "${cur#-}" != "$cur" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
	fi
	# Positional arguments: files where the command takes one.
	case $cmd in
	replay | check-config | backup | restore | migrate-store)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		;;
	esac
	return 0
}

complete -F _rlyeh rlyeh
