#!/bin/bash
# End-to-end check of the shipped model models/en-fr with the minimt binary.
#   tests/e2e/test_shipped_model.sh MINIMT_BINARY
# Translates a dozen fixed held-out sentences and checks the exact French, whose expected
# strings are read from tools/model/data/heldout.tsv (written by tools/model/corpus.py, not by minimt);
# checks the showcase sentences of the README; and checks that out-of-domain input
# (hello world, an empty line, 300 digits) gives exactly one output line and exit 0.
# Ends with `N passed, N failed`; exits 1 on any failure.
set -u
MINIMT=${1:?usage: $0 MINIMT_BINARY}
source "$(dirname "$0")/../support.sh"
MODEL="$root/models/en-fr"
HELDOUT="$root/tools/model/data/heldout.tsv"

# the French the generator wrote for an English held-out sentence
expected_for() {
    awk -F'\t' -v en="$1" '$1 == en { print $2; found = 1; exit } END { exit !found }' "$HELDOUT"
}

# translate one sentence given as an argument; check exit 0 and the exact output
check_translation() {
    local en=$1 want=$2 got rc
    got=$("$MINIMT" translate --model "$MODEL" -q "$en" 2>/dev/null)
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "'$en': exit status $rc"
    elif [ "$got" != "$want" ]; then
        fail "'$en': got '$got', want '$want'"
    else
        pass
    fi
}

HELDOUT_SENTENCES=(
    "we do not listen to a baby"
    "A grey lamp is not new."
    "She is not a dancer."
    "The young women do not catch a young squirrel."
    "the old sister writes the new red letters"
    "I do not help the lion."
    "she washes an old donkey"
    "A woman does not visit a blue hospital."
    "the happy sisters visit an old church"
    "The happy mothers are dancers."
    "The uncle writes the white letters."
    "A student does not repair a blue wardrobe."
    "a school is white"
)

for en in "${HELDOUT_SENTENCES[@]}"; do
    if want=$(expected_for "$en"); then
        check_translation "$en" "$want"
    else
        fail "'$en' is not in $HELDOUT"
    fi
done

# showcase sentences (in training, shown in the README)
check_translation "The black cat sees the small dog." "Le chat noir voit le petit chien."
check_translation "I am a student." "Je suis étudiant."
check_translation "The small girl reads a red book." "La petite fille lit un livre rouge."

# the held-out lines on stdin in one run: one line out per line in, in order
printf '%s\n' "${HELDOUT_SENTENCES[@]}" | "$MINIMT" translate --model "$MODEL" -q > "$scratch/out" 2>/dev/null
rc=$?
if [ $rc -ne 0 ]; then
    fail "stdin batch: exit status $rc"
else
    i=0
    ok=1
    while IFS= read -r line; do
        want=$(expected_for "${HELDOUT_SENTENCES[$i]}")
        [ "$line" == "$want" ] || { ok=0; echo "  stdin line $((i + 1)): got '$line', want '$want'"; }
        i=$((i + 1))
    done < "$scratch/out"
    if [ $ok -eq 1 ] && [ $i -eq ${#HELDOUT_SENTENCES[@]} ]; then pass; else fail "stdin batch ($i lines)"; fi
fi

# out-of-domain input: exactly one output line, exit 0, no crash
digits=$(printf '1%.0s' $(seq 300))
for input in "hello world" "" "$digits"; do
    printf '%s\n' "$input" | "$MINIMT" translate --model "$MODEL" -q > "$scratch/out" 2>/dev/null
    rc=$?
    lines=$(wc -l < "$scratch/out")
    if [ $rc -ne 0 ]; then
        fail "out-of-domain '${input:0:20}': exit status $rc"
    elif [ "$lines" -ne 1 ]; then
        fail "out-of-domain '${input:0:20}': $lines output lines, want 1"
    else
        pass
    fi
done

finish
