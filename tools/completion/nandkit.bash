# bash completion for nandkit. The commands and options come from the
# installed binary's own --help texts, so they never drift from it.
# Install as share/bash-completion/completions/nandkit (the build's install
# rule does), or source it.

_nandkit_commands()
{
    "$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}

_nandkit_options()
{
    "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ ,[])--?[a-zA-Z][-a-zA-Z0-9]*' | grep -oE -- '--?[a-zA-Z][-a-zA-Z0-9]*' | sort -u
}

_nandkit()
{
    local nk=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_nandkit_commands "$nk") --help --version -V" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]}
    case $prev in
    --chip)
        COMPREPLY=($(compgen -W "$("$nk" sim list 2>/dev/null | awk 'NR > 1 && /^[^ ]/ { print $1 }')" -- "$cur"))
        return ;;
    --layout)
        COMPREPLY=($(compgen -W "linux mkyaffs2 inband" -- "$cur")); return ;;
    --bb)
        COMPREPLY=($(compgen -W "skipbad padbad dumpbad" -- "$cur")); return ;;
    --ecc)
        COMPREPLY=($(compgen -W "none hamming bch4 bch8 hw" -- "$cur")); return ;;
    --mtd-ecc)
        COMPREPLY=($(compgen -W "kernel nandkit" -- "$cur")); return ;;
    --loop)
        COMPREPLY=($(compgen -W "byte unrolled" -- "$cur")); return ;;
    esac
    if [[ $cmd == sim && $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "create list" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_nandkit_options "$nk" "$cmd")" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _nandkit nandkit
