#!/bin/bash
# Word alignment (minimt translate --align) on the shipped model models/en-fr.
#   tests/e2e/test_alignment_shipped.sh MINIMT_BINARY
# "The black cat sees the small dog." must link black with noir and cat with chat: crossing
# links, since French puts this adjective after its noun. Found by word, not by position: the
# test reads the indices of the words in the translation. Also checks the output format (a tab
# after the translation, one link per target word with best-source), --format jsonl, the
# layer/head/rule options (all five rules) and their errors. A missing model is a failure, not
# a skip. tests/e2e/test_alignment_gold.py measures the default rule against gold links.
# Ends with `N passed, N failed`; exits 1 on any failure.
set -u
MINIMT=${1:?usage: $0 MINIMT_BINARY}
source "$(dirname "$0")/../support.sh"
MODEL="$root/models/en-fr"

if [ ! -f "$MODEL/config.json" ]; then
    fail "the shipped model is missing: $MODEL/config.json (models/en-fr is committed with the" \
        "repository; tools/model/train.py makes it)"
    finish
fi

# index of word $2 in the space-separated words $1 (punctuation stripped), or -1
index_of() {
    local i=0 word
    for word in $1; do
        word=${word%[.,!?;:]}
        if [ "$word" = "$2" ]; then
            echo $i
            return
        fi
        i=$((i + 1))
    done
    echo -1
}

# has_link "0-0 1-2" 1 2: is source word 1 linked with target word 2?
has_link() {
    case " $1 " in *" $2-$3 "*) return 0 ;; esac
    return 1
}

check_pair() {  # sentence, english word, french word, [extra options...]
    local sentence=$1 en=$2 fr=$3
    shift 3
    local out translation links s t
    out=$("$MINIMT" translate --model "$MODEL" -q --align "$@" "$sentence" 2>&1)
    translation=${out%%$'\t'*}
    links=${out#*$'\t'}
    s=$(index_of "$sentence" "$en")
    t=$(index_of "$translation" "$fr")
    if [ "$t" -lt 0 ]; then
        fail "'$sentence' ($*): the translation '$translation' has no word '$fr'"
    elif ! has_link "$links" "$s" "$t"; then
        fail "'$sentence' ($*): $en (source word $s) is not linked with $fr (target word $t)" \
            "in '$links'; translation '$translation'"
    else
        pass
    fi
}

SENTENCE="The black cat sees the small dog."

# The output: translation, a tab, Pharaoh links.
out=$("$MINIMT" translate --model "$MODEL" -q --align "$SENTENCE")
rc=$?
[ $rc -eq 0 ] && pass || fail "--align: exit status $rc"
echo "$SENTENCE -> $out"
case "$out" in
    *$'\t'*) pass ;;
    *) fail "--align: no tab between the translation and the alignment in '$out'" ;;
esac
translation=${out%%$'\t'*}
links=${out#*$'\t'}
if [[ "$links" =~ ^[0-9]+-[0-9]+( [0-9]+-[0-9]+)*$ ]]; then pass; else fail "not Pharaoh: '$links'"; fi
words=($translation)
best=$("$MINIMT" translate --model "$MODEL" -q --align --align-rule best-source "$SENTENCE")
nlinks=(${best#*$'\t'})
[ ${#nlinks[@]} -eq ${#words[@]} ] && pass ||
    fail "best-source gives one link per target word: ${#nlinks[@]} links, ${#words[@]} words"

# The crossing links, with the default settings.
check_pair "$SENTENCE" black noir
check_pair "$SENTENCE" cat chat
noir=$(index_of "$translation" noir)
chat=$(index_of "$translation" chat)
[ "$chat" -ge 0 ] && [ "$noir" -gt "$chat" ] && pass ||
    fail "the links should cross: chat ($chat) comes before noir ($noir) in '$translation'"

# The same with every rule.
for rule in best-source best-target intersection union grow-diag-final; do
    check_pair "$SENTENCE" black noir --align-rule $rule
    check_pair "$SENTENCE" cat chat --align-rule $rule
done
# An elision: J'aime holds I and like; union and grow-diag-final link both, best-source one.
check_pair "I like the bird." I "J'aime" --align-rule union
check_pair "I like the bird." like "J'aime" --align-rule union
check_pair "I like the bird." like "J'aime" --align-rule grow-diag-final
check_pair "I like the bird." I "J'aime" --align-rule grow-diag-final
out=$("$MINIMT" translate --model "$MODEL" -q --align --align-rule best-source "I like the bird.")
[ "${out#*$'\t'}" = "0-0 3-1" ] && pass || fail "best-source on 'I like the bird.': '$out'"
"$MINIMT" translate --model "$MODEL" -q --align --align-rule grow-diag "$SENTENCE" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && pass || fail "--align-rule grow-diag (no such rule) should be a usage error: $rc"

# JSON Lines: the alignment is a field.
out=$("$MINIMT" translate --model "$MODEL" -q --align --format jsonl "$SENTENCE")
if /usr/bin/python3 -c '
import json, sys
record = json.loads(sys.argv[1])
assert record["alignment"] == sys.argv[2], (record.get("alignment"), sys.argv[2])
' "$out" "$links"; then pass; else fail "--format jsonl: no matching \"alignment\" in $out"; fi

# Options: every layer and head works; bad ones are refused.
layers=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decoder_layers"])' \
    "$MODEL/config.json")
heads=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["num_heads"])' \
    "$MODEL/config.json")
for ((l = 0; l < layers; l++)); do
    out=$("$MINIMT" translate --model "$MODEL" -q --align --align-layer $l --align-heads 0 "$SENTENCE")
    [[ "${out#*$'\t'}" =~ ^[0-9]+-[0-9]+( [0-9]+-[0-9]+)*$ ]] && pass ||
        fail "--align-layer $l --align-heads 0: '$out'"
done
out=$("$MINIMT" translate --model "$MODEL" -q --align --align-layer -1 "$SENTENCE")
[ "$out" = "$translation"$'\t'"$links" ] && pass || fail "--align-layer -1 should be the default: '$out'"
"$MINIMT" translate --model "$MODEL" -q --align --align-layer "$layers" "$SENTENCE" >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && pass || fail "--align-layer $layers (no such layer) should fail"
"$MINIMT" translate --model "$MODEL" -q --align --align-heads "$heads" "$SENTENCE" >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && pass || fail "--align-heads $heads (no such head) should fail"
"$MINIMT" translate --model "$MODEL" -q --align-layer 0 "$SENTENCE" >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "--align-layer without --align should be a usage error (exit 2)"

# A blank line and a failed line keep the two fields.
out=$(printf 'The dog.\n\n' | "$MINIMT" translate --model "$MODEL" -q --align)
lines=$(printf '%s\n' "$out" | wc -l)
[ "$lines" -eq 2 ] && pass || fail "two input lines gave $lines output lines: '$out'"

finish
