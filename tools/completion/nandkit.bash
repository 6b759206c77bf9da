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
    # --opt=VALUE: bash splits at '=' (COMP_WORDBREAKS), so the option is the
    # word before the '=' and the value typed so far follows it.
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    case $prev in
    --chip)
        COMPREPLY=($(compgen -W "$("$nk" sim list 2>/dev/null | awk 'NR > 1 && /^[^ ]/ { print $1 }')" -- "$cur"))
        return ;;
    --layout)
        COMPREPLY=($(compgen -W "linux mkyaffs2 inband" -- "$cur")); return ;;
    --bb)
        COMPREPLY=($(compgen -W "skipbad padbad dumpbad" -- "$cur")); return ;;
    --ecc)
        # ecc correct/check take stored codes in hex here: nothing to offer
        [[ $cmd == ecc ]] && { COMPREPLY=(); return; }
        COMPREPLY=($(compgen -W "none hamming hamming512 hamming256-sm hamming512-sm bch4 bch8 bch8-1024 on-die hw" -- "$cur")); return ;;
    --scheme)
        COMPREPLY=($(compgen -W "hamming256 hamming512 hamming256-sm hamming512-sm bch4-512 bch8-512 bch8-1024 bch16-1024" -- "$cur")); return ;;
    --mtd-ecc)
        COMPREPLY=($(compgen -W "kernel nandkit" -- "$cur")); return ;;
    --loop)
        COMPREPLY=($(compgen -W "byte unrolled" -- "$cur")); return ;;
    esac
    if [[ $cmd == sim && $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "create list" -- "$cur"))
        return
    fi
    if [[ $cmd == ecc && $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "calc check correct" -- "$cur"))
        return
    fi
    if [[ $cmd == help && $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "$(_nandkit_commands "$nk")" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_nandkit_options "$nk" "$cmd")" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _nandkit nandkit
