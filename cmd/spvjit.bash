# bash completion for spvjit (installed as share/bash-completion/completions/spvjit).
#
# Completes the commands, each command's options, the values of --emit, -O,
# --tier and --memory, modules (*.spv), Amber scripts (*.amber, *.vkscript) and
# the file after '@' in DATA (--buffer 0:0=@in.npy).  Self-contained: it works with or without
# the bash-completion package.  testdata/tests/test_cli_docs.py checks that it
# offers every option `spvjit COMMAND --help` lists.

_spvjit_options() {
    case $1 in
    info) echo "--json --help" ;;
    specialize) echo "-D -o --help" ;;
    run) echo "-e --entry -D --groups --global --local --buffer --push --arg --print --out --repeat --json" \
        "--no-specialize --memory --timeout --threads --tier --help" ;;
    compile) echo "--emit -e -D --local --no-specialize --memory -O --tier -o --help" ;;
    amber) echo "-q -j --jobs --timeout --memory --json --junit --target-env --tier --no-fork --help" ;;
    esac
}

# Files and directories starting with $1, files only when their name matches
# the extended pattern $2 (empty: any file).
_spvjit_files() {
    local f
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            printf '%s/\n' "$f"
        elif [[ -z $2 || $f == $2 ]]; then
            printf '%s\n' "$f"
        fi
    done < <(compgen -f -- "$1")
}

_spvjit() {
    # Words are split at whitespace only (bash would also split DATA at ':' and
    # '='); the replies are trimmed back to bash's own current word at the end.
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -ra words <<< "$line"
    [[ $line == *[[:space:]] ]] && words+=("")
    local cword=$((${#words[@]} - 1))
    local cur=${words[cword]} prev=${words[cword - 1]} cmd=${words[1]}
    local -a cands=()

    if ((cword == 1)); then
        mapfile -t cands < <(compgen -W "info specialize run compile amber --help --version" -- "$cur")
    else
        case $prev in
        --emit)
            mapfile -t cands < <(compgen -W "llvm opt-llvm asm" -- "$cur") ;;
        -O)
            mapfile -t cands < <(compgen -W "0 1 2 3" -- "$cur") ;;
        --tier)
            mapfile -t cands < <(compgen -W "auto quick opt" -- "$cur") ;;
        --memory)
            mapfile -t cands < <(compgen -W "robust check unchecked" -- "$cur") ;;
        -o)
            mapfile -t cands < <(_spvjit_files "$cur" "") ;;
        --target-env)
            mapfile -t cands < <(compgen -W "spv1.0 spv1.1 spv1.2 spv1.3 spv1.4 spv1.5 spv1.6 vulkan1.0 vulkan1.1
                vulkan1.2 vulkan1.3" -- "$cur") ;;
        --json | --junit)
            [[ $cmd == amber ]] && mapfile -t cands < <(_spvjit_files "$cur" "") ;;
        -e | --entry | -D | --groups | --global | --local | --repeat | --threads | --print | -j | --jobs | --timeout) ;;
        --buffer | --arg | --push | --out)
            # DATA: the file after '@' (for --out: the file after '=')
            local head rest
            if [[ $prev != --out && $cur == *@* ]]; then
                head=${cur%%@*}@ rest=${cur#*@}
            elif [[ $prev == --out && $cur == *=* ]]; then
                head=${cur%%=*}= rest=${cur#*=}
            else
                head="" rest=""
            fi
            if [[ -n $head ]]; then
                local f
                while IFS= read -r f; do cands+=("$head$f"); done < <(_spvjit_files "$rest" "")
            fi
            ;;
        *)
            if [[ $cur == -* ]]; then
                mapfile -t cands < <(compgen -W "$(_spvjit_options "$cmd")" -- "$cur")
            elif [[ $cmd == amber ]]; then
                mapfile -t cands < <(_spvjit_files "$cur" "*.amber" ; _spvjit_files "$cur" "*.vkscript" | grep -v '/$')
            elif [[ $cmd == info || $cmd == specialize || $cmd == run || $cmd == compile ]]; then
                mapfile -t cands < <(_spvjit_files "$cur" "*.spv")
            fi
            ;;
        esac
    fi

    # Trim what bash already treats as earlier words (up to its last word break).
    local breaks=${COMP_WORDBREAKS// /} keep=${#cur} i
    for ((i = ${#cur} - 1; i >= 0; i--)); do
        if [[ $breaks == *"${cur:i:1}"* ]]; then
            keep=$((${#cur} - i - 1))
            break
        fi
    done
    local skip=$((${#cur} - keep)) c
    COMPREPLY=()
    for c in "${cands[@]}"; do
        COMPREPLY+=("${c:skip}")
    done
    # directories go on completing; files end the word
    if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
}

complete -F _spvjit spvjit
