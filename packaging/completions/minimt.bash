
# The rest is packaging/completions/minimt.bash: the completion function over the tables above.

# Model names from `minimt models --names` (the minimt being completed), then directories.
_minimt_models() {
  local cur=$1 exe=${COMP_WORDS[0]} names
  [[ $exe == "~/"* ]] && exe=$HOME/${exe#"~/"}
  names=$("$exe" models --names 2>/dev/null)
  mapfile -t COMPREPLY < <(compgen -W "$names" -- "$cur"; compgen -d -- "$cur")
  compopt -o filenames 2>/dev/null
  return 0
}

# COMPREPLY for the value of an option, by its kind (values:, list:, file, model, none).
_minimt_value() {
  local kind=$1 cur=$2 head
  case $kind in
    values:*) mapfile -t COMPREPLY < <(compgen -W "${kind#values:}" -- "$cur") ;;
    list:*)
      # A comma-separated list: complete the last item, keep what comes before it.
      head=""
      [[ $cur == *,* ]] && head=${cur%,*},
      mapfile -t COMPREPLY < <(compgen -P "$head" -W "${kind#list:}" -- "${cur##*,}")
      compopt -o nospace 2>/dev/null
      ;;
    file)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      compopt -o filenames 2>/dev/null
      ;;
    model) _minimt_models "$cur" ;;
    *) COMPREPLY=() ;;
  esac
  return 0
}

_minimt() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" sub="" i word
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  # --option=value: bash splits it at '=' (COMP_WORDBREAKS).
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    [[ $word == -* ]] && continue
    sub=$word
    break
  done
  if [[ -z $sub ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$_minimt_subcommands ${_minimt_options[minimt]}" -- "$cur")
    return 0
  fi
  if [[ -n ${_minimt_values["$sub $prev"]+set} ]]; then
    _minimt_value "${_minimt_values["$sub $prev"]}" "$cur"
    return 0
  fi
  if [[ $cur == -* || -z ${_minimt_positional[$sub]-} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_minimt_options[$sub]-}" -- "$cur")
    return 0
  fi
  _minimt_value "${_minimt_positional[$sub]}" "$cur"
}

complete -F _minimt minimt
