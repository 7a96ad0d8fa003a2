"""What test_families.py counts and compares: one Results object, the 1e-4 comparisons of
log-probabilities, scores and attention matrices, and the minimt commands it runs."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

TOLERANCE = 1e-4


class Results(support.Tally):
    """The checks (support.Tally) and what was compared, for the test's summary."""

    def __init__(self):
        super().__init__()
        self.tokens = self.matrices = self.ended = self.cut = self.scored = self.processed = 0
        self.max_diff = self.max_attention_diff = 0.0
        # searches compared with generate() (test_families.compare_search)
        self.searches = self.search_tokens = self.search_finished = 0
        self.defaults = self.cases = self.cases_cut = 0
        self.rules_decide = 0  # case outputs minimt's own beam rules would change
        self.search_diff = 0.0


def run(cmd, input=None, env=None):
    """support.run as text; `env` holds changes to the environment (None removes)."""
    return support.run(cmd, input=input, env=env, text=True, timeout=600)


def minimt(binary, *args, stdin=None, env=None):
    p = run([binary] + list(args), input=stdin, env=env)
    if p.returncode:
        raise RuntimeError("minimt %s failed (%d): %s" % (args[0], p.returncode, p.stderr))
    return p.stdout


def close(a, b, tolerance=TOLERANCE):
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b))


def compare_stack(res, where, got, want):
    """got: the dump's [layer][head][rows][keys]; want: per layer a [head, rows, keys] tensor
    (the decoder's rows hold exact zeros above the diagonal in both)."""
    if not res.check(len(got) == len(want), "%s: %d layers, reference %d"
                     % (where, len(got), len(want))):
        return
    for layer, (mine, ref) in enumerate(zip(got, want)):
        ref = ref.tolist()
        shape_ok = len(mine) == len(ref) and all(
            len(m) == len(r) and all(len(a) == len(b) for a, b in zip(m, r))
            for m, r in zip(mine, ref))
        if not res.check(shape_ok, "%s layer %d: shape differs" % (where, layer)):
            continue
        diff = max(abs(a - b) for m, r in zip(mine, ref) for ra, rb in zip(m, r)
                   for a, b in zip(ra, rb))
        res.max_attention_diff = max(res.max_attention_diff, diff)
        res.matrices += len(mine)
        res.check(diff <= TOLERANCE, "%s layer %d: attention differs by %.2e" % (where, layer,
                                                                               diff))


def compare_output(res, where, record, sentence, ref, piece_ids, text):
    """record: minimt's jsonl record; sentence: its dump entry; ref: hf_generate.greedy."""
    mine = [piece_ids(p) for p in sentence["output_tokens"]]
    res.check(mine == ref["tokens"], "%s: minimt ids %s, reference %s" % (where, mine,
                                                                         ref["tokens"]))
    res.check(record["tokens"] == sentence["output_tokens"],
              "%s: the record's tokens %s and the dump's output tokens %s are one list (eos "
              "included)" % (where, record["tokens"], sentence["output_tokens"]))
    res.check(record.get("cut_short", False) == (not ref["finished"]),
              "%s: cut_short %s, reference finished %s" % (where, record.get("cut_short"),
                                                           ref["finished"]))
    lps = record["token_log_probs"]
    res.check(close(lps, ref["greedy_log_probs"]), "%s: log-probabilities %s vs %s"
              % (where, lps, ref["greedy_log_probs"]))
    res.check(close(sentence["output_log_probs"], ref["log_probs"]),
              "%s: dump log-probabilities %s vs teacher-forced %s"
              % (where, sentence["output_log_probs"], ref["log_probs"]))
    res.check(abs(record["score"] - sum(ref["greedy_log_probs"])) <=
              TOLERANCE * max(1, len(lps)), "%s: score %r vs %r"
              % (where, record["score"], sum(ref["greedy_log_probs"])))
    if text is not None:
        res.check(record["translation"] == text, "%s: text %r vs %r"
                  % (where, record["translation"], text))
    if len(lps) == len(ref["greedy_log_probs"]):
        res.max_diff = max([res.max_diff] + [abs(a - b) for a, b in
                                             zip(lps, ref["greedy_log_probs"])])
    res.tokens += len(lps)
    res.ended += ref["finished"]
    res.cut += not ref["finished"]
    compare_stack(res, where + " encoder", sentence["encoder_self_attention"], ref["encoder"])
    compare_stack(res, where + " decoder", sentence["decoder_self_attention"], ref["decoder"])
    compare_stack(res, where + " cross", sentence["cross_attention"], ref["cross"])


def translate(binary, model, texts, max_length, dump, extra=(), env=None):
    out = minimt(binary, "translate", "--model", model, "--format", "jsonl", "-q",
                 "--max-length", str(max_length), "--beam-size", "1", "--dump-attention", dump,
                 *extra, *texts,
                 env=env)
    with open(dump) as f:
        return [json.loads(line) for line in out.splitlines()], json.load(f)["sentences"]
