#!/bin/bash
# The shell completions generated at build time (packaging/cli-docs.sh), used as a shell would.
#   tests/e2e/test_completions.sh MINIMT CLI_DOCS_DIR
# bash: sources minimt.bash, checks `complete -p minimt`, then sets COMP_WORDS/COMP_CWORD, calls
# the function and checks COMPREPLY: subcommands, options of translate, every option of every
# subcommand's --help, --format, --side, --align-rule and --dump-types values (the lists below
# are typed here, not read from minimt), model names from `minimt models` (a model made here on
# MINIMT_MODEL_PATH), file names. fish: `complete -C` on the same cases. zsh: the file parses,
# registers _minimt for minimt under compinit, its specs hold the same options and values, and a
# Tab typed into an interactive zsh (under a pseudo-terminal) lists values, subcommands, models.
# Ends with `N passed, N failed`; exits 1 on any failure.
set -u
MINIMT=$(realpath "${1:?usage: $0 MINIMT CLI_DOCS_DIR}")
DOCS=$(realpath "${2:?usage: $0 MINIMT CLI_DOCS_DIR}")
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../support.sh"
mkdir -p "$scratch/models/zz-test-model" "$scratch/work/sub dir"
echo '{}' >"$scratch/models/zz-test-model/config.json"  # `models --names` lists it by config.json
touch "$scratch/work/attention.json" "$scratch/work/attic.txt"
export MINIMT_MODEL_PATH=$scratch/models HOME=$scratch/home
unset XDG_DATA_HOME MINIMT_MODEL

# bash: COMPREPLY, sorted, for the words given (the last one is being completed).
complete_bash() {
  bash --norc --noprofile -c '
    source "$1" || exit 1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _minimt
    ((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$DOCS/minimt.bash" "$@"
}

got=$(bash --norc -c 'source "$1" && complete -p minimt' _ "$DOCS/minimt.bash")
check "bash: complete -p minimt" "$got" "complete -F _minimt minimt"
check "bash: minimt <Tab>" "$(complete_bash "$MINIMT" "")" \
  "--help --version -h convert heads info models score show tokenize translate view vocab "
check "bash: minimt t<Tab>" "$(complete_bash "$MINIMT" t)" "tokenize translate "
check "bash: minimt translate --be<Tab>" "$(complete_bash "$MINIMT" translate --be)" "--beam-size "
check "bash: minimt translate --al<Tab>" "$(complete_bash "$MINIMT" translate --al)" \
  "--align --align-heads --align-layer --align-rule --alternatives "
check "bash: --format <Tab>" "$(complete_bash "$MINIMT" translate --format "")" "jsonl text "
check "bash: score --format=j<Tab>" "$(complete_bash "$MINIMT" score --format = j)" "jsonl "
check "bash: tokenize --side <Tab>" "$(complete_bash "$MINIMT" tokenize --side "")" \
  "source target "
check "bash: --align-rule <Tab>" "$(complete_bash "$MINIMT" translate --align "" --align-rule "")" \
  "best-source best-target grow-diag-final intersection union "
check "bash: --dump-types encoder,<Tab>" \
  "$(complete_bash "$MINIMT" translate --dump-types encoder,)" \
  "encoder,cross encoder,decoder encoder,encoder "
check "bash: --model zz<Tab> (a model name from minimt models)" \
  "$(complete_bash "$MINIMT" translate --model zz)" "zz-test-model "
check "bash: -m <Tab> lists en-fr" "$(complete_bash "$MINIMT" info -m "" | grep -o en-fr)" "en-fr"
check "bash: view <Tab> (files)" "$(cd "$scratch/work" && complete_bash "$MINIMT" view att)" \
  "attention.json attic.txt "
check "bash: translate -i <Tab> (files)" "$(cd "$scratch/work" && complete_bash "$MINIMT" translate -i s)" \
  "sub dir "
check "bash: translate sentence <Tab> (free text: nothing)" \
  "$(complete_bash "$MINIMT" translate "The cat")" ""

# Every option of every subcommand's --help is offered after "minimt SUB -".
for sub in $("$MINIMT" --help | sed -n '/^Subcommands:/,$s/^  \([a-z][a-z-]*\) .*/\1/p'); do
  want=$("$MINIMT" "$sub" --help | sed -n '/^Options:/,$p' | grep -oE '^  -[^ ]+' |
    tr ',' '\n' | tr -d ' ' | sort | tr '\n' ' ')
  check "bash: minimt $sub -<Tab> offers every option of its --help" \
    "$(complete_bash "$MINIMT" "$sub" -)" "$want"
done

# fish: the candidates (without descriptions) for a command line.
complete_fish() {
  fish --no-config -c 'source $argv[1]; complete -C"$argv[2]"' "$DOCS/minimt.fish" "$1" |
    cut -f1 | sort | tr '\n' ' '
}
check "fish: minimt <Tab>" "$(complete_fish "$MINIMT ")" "convert heads info models score show tokenize translate view vocab "
check "fish: minimt translate --for<Tab>" "$(complete_fish "$MINIMT translate --for")" "--format "
check "fish: --format <Tab>" "$(complete_fish "$MINIMT translate --format ")" "jsonl text "
check "fish: --align-rule <Tab>" "$(complete_fish "$MINIMT score --align-rule ")" \
  "best-source best-target grow-diag-final intersection union "
check "fish: --dump-types encoder,<Tab>" "$(complete_fish "$MINIMT translate --dump-types encoder,")" \
  "encoder,cross encoder,decoder encoder,encoder "
check "fish: --model zz<Tab>" "$(complete_fish "$MINIMT translate --model zz")" "zz-test-model "
check "fish: view att<Tab> (files)" "$(cd "$scratch/work" && complete_fish "$MINIMT view att")" \
  "attention.json attic.txt "

# zsh: parses, registers itself under compinit, and carries the same facts.
zsh -n "$DOCS/_minimt"
check "zsh: _minimt parses" "$?" "0"
got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$2/zcompdump";
  print -r -- ${_comps[minimt]}' _ "$DOCS" "$scratch")
check "zsh: compinit registers _minimt for minimt" "$got" "_minimt"
got=$(zsh -f -c 'source "$1" 2>/dev/null; print -l -- ${_minimt_spec_translate} |
  grep -E "^--(format|model|align-rule)\[" | sed "s/\[.*\]/[]/"' _ "$DOCS/_minimt" | tr '\n' ' ')
check "zsh: translate's --format, --model, --align-rule specs" "$got" \
  "--model[]:DIR|NAME:_minimt_models --format[]:TEXT:(text jsonl) --align-rule[]:RULE:(union best-source best-target intersection grow-diag-final) "

# zsh for real: Tabs typed into an interactive zsh under a pseudo-terminal (zsh_complete.zsh).
mkdir "$scratch/bin" && ln -s "$MINIMT" "$scratch/bin/minimt"
zsh_out=$(cd "$scratch/work" && PATH=$scratch/bin:$PATH timeout 60 zsh -f "$HERE/zsh_complete.zsh" "$DOCS" \
  "minimt translate --format " "minimt " "minimt translate --model zz" | tr -d '\r')
zsh_answer() { awk -v want="=== $1" '$0 == want { on = 1; next } /^=== / { on = 0 } on' <<<"$zsh_out"; }
check "zsh: minimt translate --format <Tab> lists jsonl and text" \
  "$(zsh_answer "minimt translate --format " | grep -cx "jsonl  text")" "1"
check "zsh: minimt <Tab> lists the subcommands with their help" \
  "$(zsh_answer "minimt " | grep -oE "^(translate|score|heads|info|tokenize|view|show|vocab|models|convert) +-- " |
    cut -d' ' -f1 | sort | tr '\n' ' ')" "convert heads info models score show tokenize translate view vocab "
check "zsh: --model zz<Tab> completes the model name" \
  "$(zsh_answer "minimt translate --model zz" | grep -c "minimt translate --model zz-test-model $")" "1"

finish
