#!/bin/bash
# `cmake --install` into a fresh prefix, then the installed minimt used from another folder, as
# someone who installed it would: the default model found in PREFIX/share/minimt/models, a model
# by name, `minimt models`, the man page rendered by man -l, the completions loaded by their shells.
#   tests/e2e/test_install.sh BUILD_DIR
# Ends with `N passed, N failed`; exits 1 on any failure.
set -u
BUILD=$(realpath "${1:?usage: $0 BUILD_DIR}")
source "$(dirname "$0")/../support.sh"
prefix=$scratch/prefix
mkdir -p "$scratch/elsewhere" "$scratch/home"
cmake --install "$BUILD" --prefix "$prefix" >"$scratch/install.log" 2>&1
check "cmake --install --prefix PREFIX: status" "$?" "0"

for file in bin/minimt share/minimt/models/en-fr/config.json \
  share/minimt/models/en-fr/model.safetensors share/man/man1/minimt.1 \
  share/bash-completion/completions/minimt share/zsh/site-functions/_minimt \
  share/fish/vendor_completions.d/minimt.fish share/doc/minimt/README.md \
  share/doc/minimt/docs/scripting.md; do
  check "installed: PREFIX/$file" "$([[ -s $prefix/$file ]] && echo yes)" "yes"
done

# From another folder, with no model settings and an empty HOME.
run() { (cd "$scratch/elsewhere" && env -u MINIMT_MODEL -u MINIMT_MODEL_PATH -u XDG_DATA_HOME \
  HOME="$scratch/home" "$prefix/bin/minimt" "$@"); }
check "installed minimt translate, default model, from another folder" \
  "$(run translate "I am a student." 2>&1)" "Je suis étudiant."
check "installed minimt info: the model in PREFIX/share/minimt/models/en-fr" \
  "$(run info 2>&1 | sed -n 's/^model  *//p')" "$prefix/share/minimt/models/en-fr"
check "installed minimt translate --model en-fr (by name)" \
  "$(run translate --model en-fr "The black cat sees the small dog." 2>&1)" \
  "Le chat noir voit le petit chien."
check "installed minimt models: en-fr from PREFIX, the default" \
  "$(run models 2>&1 | grep -F "$prefix/share/minimt/models/en-fr" | grep -c "(default)$")" "1"
check "installed minimt models --path: PREFIX's models folder, installed" \
  "$(run models --path | grep -cxF "$prefix/share/minimt/models	installed")" "1"

page=$prefix/share/man/man1/minimt.1
rendered=$(MANWIDTH=100 man --warnings -l "$page" 2>"$scratch/man.err" | col -b)
check "man -l PREFIX/share/man/man1/minimt.1: no warnings" "$(cat "$scratch/man.err")" ""
check "man -l: the translate section" "$(grep -c '^   minimt translate \[OPTIONS\]' <<<"$rendered")" "1"

got=$(bash --norc -c 'source "$1" && complete -p minimt' _ "$prefix/share/bash-completion/completions/minimt")
check "bash loads the installed completion" "$got" "complete -F _minimt minimt"
got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$2/zcompdump";
  print -r -- ${_comps[minimt]}' _ "$prefix/share/zsh/site-functions" "$scratch")
check "zsh (compinit over PREFIX/share/zsh/site-functions) registers _minimt" "$got" "_minimt"
got=$(fish --no-config -c 'source $argv[1]; complete -C"minimt translate --format "' \
  "$prefix/share/fish/vendor_completions.d/minimt.fish" | cut -f1 | tr '\n' ' ')
check "fish loads the installed completion (--format values)" "$got" "jsonl text "

finish
