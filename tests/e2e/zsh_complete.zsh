# Prints what zsh's completion shows for command lines, each typed into one interactive zsh
# under a pseudo-terminal (zpty) with the completions of DOCS_DIR loaded by compinit, then a Tab;
# the line is cleared (Ctrl-U) before the next. Each output follows a line "=== LINE".
#   zsh -f tests/e2e/zsh_complete.zsh DOCS_DIR 'minimt translate --format ' 'minimt ' ...
# The words listed (or the line completed in place) are in the output, with terminal noise.
zmodload zsh/zpty
docs=$1
shift
zpty z "env TERM=dumb zsh -f -i"
zpty -w z "PS1='> '; fpath=(${(q)docs} \$fpath); autoload -Uz compinit; compinit -u -D; print RE\"\"ADY"
out="" chunk=""
for i in {1..100}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.1
  [[ $out == *READY* ]] && break
done
for line in "$@"; do
  zpty -w -n z "$line"$'\t'
  sleep 1  # the listing (the first Tab also loads _minimt)
  out=""
  while zpty -r -t z chunk; do out+=$chunk; done
  print -r -- "=== $line"
  print -r -- "$out"
  zpty -w -n z $'\x15'  # Ctrl-U: clear the line
  sleep 0.2
  while zpty -r -t z chunk; do :; done
done
zpty -d z
