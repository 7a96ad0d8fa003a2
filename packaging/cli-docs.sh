#!/usr/bin/env bash
# Writes the man page and the bash, zsh and fish completions of minimt from the real --help of
# the executable and of every subcommand that `minimt --help` lists, so that a new subcommand,
# option or value appears in them at the next build (CMakeLists.txt runs this after linking).
#   packaging/cli-docs.sh MINIMT OUT_DIR MODELS_DIR DOC_DIR
# writes OUT_DIR/minimt.1, OUT_DIR/minimt.bash, OUT_DIR/_minimt and OUT_DIR/minimt.fish.
# MODELS_DIR and DOC_DIR are the installed folders the man page names under FILES.
# $MINIMT_EMULATOR, when set, runs minimt (a cross build: qemu-aarch64).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
minimt=$1 out=$2 models_dir=$3 doc_dir=$4
mkdir -p "$out"
run_minimt() { ${MINIMT_EMULATOR:-} "$minimt" "$@"; }

# The parsed help, one record per line, fields separated by $sep:
#   SUB   name  description
#   USAGE sub   usage line (minimt ...)
#   ABOUT sub   first line of the subcommand's help
#   OPT   sub   names (-m,--model)  type (empty: a flag)  values  default  range  constraints  description
#   POS   sub   name  type  constraints  description
#   FOOT  sub   a line of the text after the options (heads' column legend), as printed
records=()
sep=$'\x1f'  # field separator (a tab is IFS white space: read would merge empty fields)

# Values an option takes when its help says so: {a,b} in the type, "any of a,b" in the text, or a
# text made of "value: meaning" clauses separated by "; " (as --format and --align-rule say it).
values_of() {
  local type=$1 text=$2 clause word values=()
  if [[ $type =~ \{([^}]*)\} ]]; then
    echo "${BASH_REMATCH[1]//,/ }"
    return
  fi
  if [[ $text =~ any\ of\ ([a-z0-9_-]+(,[a-z0-9_-]+)+) ]]; then
    echo "${BASH_REMATCH[1]//,/ }"
    return
  fi
  [[ $text == *"; "* ]] || return 0
  while [[ -n $text ]]; do
    clause=${text%%; *}
    [[ $clause == "$text" ]] && text="" || text=${text#*; }
    [[ $clause =~ ^([a-z0-9_-]+):\  ]] || return 0
    word=${BASH_REMATCH[1]}
    values+=("$word")
  done
  echo "${values[*]}"
}

# Sets type (what comes first) and constraints (from the first of " Needs:", " Excludes:",
# " REQUIRED" on) of "TYPE ... Needs: --x Excludes: y".
split_constraints() {
  local cut=" $1"
  cut=${cut%%" Needs:"*}
  cut=${cut%%" Excludes:"*}
  cut=${cut%%" REQUIRED"*}
  constraints=${1:${#cut}}
  constraints=${constraints# }
  type=${cut# }
}

# One entry of a help section: its head (names and type) and its description.
add_entry() {
  local section=$1 sub=$2 head=$3 desc=$4 names rest type="" default="" range="" constraints=""
  head=${head#"${head%%[! ]*}"}
  names=${head%% *}
  rest=""
  [[ $head == *" "* ]] && rest=${head#* }
  case $section in
    sub) records+=("SUB${sep}$names${sep}$desc") ;;
    pos)
      split_constraints "$rest"
      records+=("POS${sep}$sub${sep}$names${sep}$type${sep}$constraints${sep}$desc")
      ;;
    opt)
      # "TYPE[:DETAIL][=DEFAULT] Needs: ... Excludes: ..."; a flag has no TYPE.
      split_constraints "$rest"
      rest=$type
      type=""
      if [[ -n $rest ]]; then
        type=${rest%%[:=]*}
        [[ $rest == *=* && ${rest##*=} != *"}"* ]] && default=${rest##*=}
        [[ $rest =~ in\ \[([^]]*)\] ]] && range=${BASH_REMATCH[1]}
      fi
      local values=""
      [[ -n $type ]] && values=$(values_of "$rest" "$desc")
      records+=("OPT${sep}$sub${sep}$names${sep}$type${sep}$values${sep}$default${sep}$range${sep}$constraints${sep}$desc")
      ;;
  esac
}

# Parses `minimt SUB --help` (CLI11's layout: entries indented by 2, descriptions in column 30,
# on the next line when the head is too long).
parse_help() {
  local sub=$1 lines i line section="" head desc n seen=""
  mapfile -t lines < <(run_minimt ${sub:+"$sub"} --help)
  [[ -n $sub ]] && records+=("ABOUT${sep}$sub${sep}${lines[0]}")
  n=${#lines[@]}
  for ((i = 0; i < n; i++)); do
    line=${lines[i]}
    case $line in
      "Usage: "*)
        line=${line#Usage: }
        records+=("USAGE${sep}$sub${sep}minimt ${line#* }")
        [[ $line == *" "* ]] || records[-1]="USAGE${sep}$sub${sep}minimt"
        continue
        ;;
      Positionals:) section=pos seen=1 && continue ;;
      Options:) section=opt seen=1 && continue ;;
      Subcommands:) section=sub seen=1 && continue ;;
      "") section="" && continue ;;  # a section ends at a blank line (a footer may follow)
    esac
    if [[ -z $section && -n $seen && -n $sub ]]; then  # the footer, after every section
      records+=("FOOT${sep}$sub${sep}$line")
      continue
    fi
    [[ -n $section && $line =~ ^\ \ [^\ ] ]] || continue
    if ((i + 1 < n)) && [[ ${lines[i + 1]} =~ ^\ {30}[^\ ] ]]; then
      head=$line desc=""
    else
      head=${line:0:30} desc=${line:30}
    fi
    while ((i + 1 < n)) && [[ ${lines[i + 1]} =~ ^\ {30}[^\ ] ]]; do
      desc+="${desc:+ }${lines[i + 1]:30}"
      i=$((i + 1))
    done
    head=${head%"${head##*[! ]}"}
    add_entry "$section" "$sub" "$head" "$desc"
  done
}

parse_help ""
subcommands=()
for record in "${records[@]}"; do
  [[ $record == SUB* ]] && { IFS=$sep read -r _ name _ <<<"$record"; subcommands+=("$name"); }
done
for sub in "${subcommands[@]}"; do parse_help "$sub"; done
((${#subcommands[@]})) || { echo "cli-docs: $minimt --help lists no subcommand" >&2; exit 1; }

version=$(run_minimt --version)
version=${version#minimt }

source "$here/cli-docs-man.sh"
source "$here/cli-docs-completions.sh"
write_man >"$out/minimt.1.tmp" && mv "$out/minimt.1.tmp" "$out/minimt.1"
write_bash >"$out/minimt.bash.tmp" && mv "$out/minimt.bash.tmp" "$out/minimt.bash"
write_zsh >"$out/_minimt.tmp" && mv "$out/_minimt.tmp" "$out/_minimt"
write_fish >"$out/minimt.fish.tmp" && mv "$out/minimt.fish.tmp" "$out/minimt.fish"
