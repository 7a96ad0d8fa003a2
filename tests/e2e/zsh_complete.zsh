# Prints what zsh's completion lists for a command line, typed into an interactive zsh under a
# pseudo-terminal (zpty) with the completions of DOCS_DIR loaded by compinit, then a Tab.
#   zsh -f tests/e2e/zsh_complete.zsh DOCS_DIR 'minimt translate --format '
# The words listed (or the line completed in place) are in the output, with terminal noise.
zmodload zsh/zpty
docs=$1 line=$2
zpty z "env TERM=dumb zsh -f -i"
zpty -w z "PS1='> '; fpath=(${(q)docs} \$fpath); autoload -Uz compinit; compinit -u -D; print RE\"\"ADY"
out="" chunk=""
for i in {1..100}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.1
  [[ $out == *READY* ]] && break
done
zpty -w -n z "$line"$'\t'
sleep 1.5  # the listing comes after compinit's first load of _minimt
out=""
while zpty -r -t z chunk; do out+=$chunk; done
zpty -d z
print -r -- "$out"
