#!/usr/bin/python3
"""Self-consistency checks of the PyTorch reference (tools/reference: pytorch_reference and
reference.py).

No engine needed. Checks: the attention formula against a per-head loop; the
interleaved sinusoidal table; cached greedy logits == full recomputation (1e-5);
batch == one by one; padding behaves as if absent; causal zeros; save/load round trip
for F32/F16/BF16/inline with exact rounding; the safetensors layout; load errors;
reference.py translate on a random model with batch sizes 1 and 5. Search
(pytorch_reference/search): beam size 1 == greedy; teacher-forced scores and attention of
greedy outputs == greedy's; a beam of V^L == exhaustive ranking under length penalties; every
beam hypothesis's log-probs == teacher forcing; beam semantics on hand-made tables (eos beyond
rank N ignored, early stop per length penalty, beam 1 = greedy, refill, prefix); the sampling
distribution on hand-made logits; the beam and score commands.
Ends with a line "N passed, N failed"; exits 1 on any failure.
"""

import io
import json
import math
import os
import shutil
import struct
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import support  # noqa: E402

support.use_tools("reference")
import torch  # noqa: E402

import reference  # noqa: E402  (the command line)
from pytorch_reference.attention_dump import attention_dump  # noqa: E402
from pytorch_reference.model.attention import MultiHeadAttention  # noqa: E402
from pytorch_reference.model.config import FORMAT_KEYS, decoder_start_of, make_config  # noqa: E402
from pytorch_reference.model.files import (DTYPE_SIZE, DTYPE_TORCH, file_config,  # noqa: E402
                                           load_model, save_model, write_safetensors)
from pytorch_reference.model.positions import sinusoidal_table  # noqa: E402
from pytorch_reference.model.transformer import MinimtTransformer  # noqa: E402
from pytorch_reference.random_model import randomize  # noqa: E402
from pytorch_reference.search.beam import beam_search, ranking_score  # noqa: E402
from pytorch_reference.search.greedy import greedy as greedy_search  # noqa: E402
from pytorch_reference.search.sampling import sampling_distribution  # noqa: E402
from pytorch_reference.search.scoring import score_target  # noqa: E402
from pytorch_reference.translator import Translator  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def small_config(**overrides):
    base = dict(d_model=16, num_heads=3, head_dim=5, d_ff=24, encoder_layers=2,
                decoder_layers=2, source_vocab_size=40, target_vocab_size=50,
                max_positions=24, final_logits_bias=True)
    base.update(overrides)
    return make_config(**base)


VARIANTS = [
    dict(norm_position="post", positions="sinusoidal", activation="relu", tie_output=True),
    dict(norm_position="pre", positions="learned", activation="gelu", tie_output=False),
    dict(norm_position="pre", positions="sinusoidal", activation="silu", tie_output=False,
         num_heads=2, head_dim=None, scale_embeddings=False),
]


def random_model(seed, **overrides):
    config = small_config(**overrides)
    model = MinimtTransformer(config)
    randomize(model, config, seed, eos_boost=0.0)
    model.eval()
    return model, config


def padded_batch(seqs, pad=0):
    width = max(len(s) for s in seqs)
    src = torch.full((len(seqs), width), pad, dtype=torch.long)    # [B, S]
    mask = torch.ones(len(seqs), width, dtype=torch.bool)
    for i, s in enumerate(seqs):
        src[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = False
    return src, mask


def random_sources(gen, n, vocab, eos=3):
    lengths = [1, 7, 4, 12, 9][:n]
    return [torch.randint(4, vocab, (k - 1,), generator=gen).tolist() + [eos] for k in lengths]


def assert_close(a, b, tol, what):
    diff = (a - b).abs().max().item() if a.numel() else 0.0
    if not diff <= tol:
        raise AssertionError("%s differ by %.3g (tolerance %.1g)" % (what, diff, tol))
    return diff


# ----------------------------------------------------------------------------- checks

@check
def attention_matches_per_head_loop():
    torch.manual_seed(0)
    attn = MultiHeadAttention(d_model=16, num_heads=3, head_dim=5)
    for p in attn.parameters():
        torch.nn.init.normal_(p, std=0.4)
    x = torch.randn(2, 6, 16)
    mem = torch.randn(2, 4, 16)
    out, w = attn(x, mem, need_weights=True)
    # The formula of the spec, one head at a time from the weight rows r*dk..(r+1)*dk-1.
    heads, dk = 3, 5
    q_w, k_w, v_w = attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight
    q_b, k_b, v_b = attn.q_proj.bias, attn.k_proj.bias, attn.v_proj.bias
    pieces = []
    for r in range(heads):
        rows = slice(r * dk, (r + 1) * dk)
        q = x @ q_w[rows].T + q_b[rows]
        k = mem @ k_w[rows].T + k_b[rows]
        v = mem @ v_w[rows].T + v_b[rows]
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk), dim=-1)
        assert_close(a, w[:, r], 1e-6, "head %d weights" % r)
        pieces.append(a @ v)
    expected = torch.cat(pieces, dim=-1) @ attn.out_proj.weight.T + attn.out_proj.bias
    assert_close(out, expected, 1e-5, "attention output")


@check
def sinusoidal_table_is_interleaved():
    for d_model in (16, 15):
        table = sinusoidal_table(20, d_model)
        for pos in (0, 1, 7, 19):
            for i in range(0, d_model, 2):
                angle = pos / 10000 ** (i / d_model)
                assert abs(table[pos, i].item() - math.sin(angle)) < 1e-6, (pos, i)
                if i + 1 < d_model:
                    assert abs(table[pos, i + 1].item() - math.cos(angle)) < 1e-6, (pos, i + 1)


@check
def cached_greedy_equals_full_recomputation():
    gen = torch.Generator().manual_seed(1)
    worst = 0.0
    for n, variant in enumerate(VARIANTS):
        model, config = random_model(100 + n, **variant)
        src, mask = padded_batch(random_sources(gen, 5, 40))
        results = greedy_search(model, src, 10, mask, record_logits=True)
        for i, res in enumerate(results):
            s = int((~mask[i]).sum())
            tgt = torch.tensor([[decoder_start_of(config)] + res["ids"][:-1]])
            with torch.no_grad():
                full = model(src[i:i + 1, :s], tgt)[0]                     # [T, V]
            worst = max(worst, assert_close(res["logits"], full, 1e-5, "cached vs full logits"))
            if full.argmax(-1).tolist() != res["ids"]:
                raise AssertionError("argmax of the full recomputation differs")
            logp = torch.log_softmax(full, -1)[torch.arange(len(res["ids"])), res["ids"]]
            assert_close(torch.tensor(res["scores"]), logp, 1e-5, "scores")
    return "max diff %.2e" % worst


@check
def batch_equals_one_by_one():
    gen = torch.Generator().manual_seed(2)
    worst = 0.0
    for n, variant in enumerate(VARIANTS):
        model, _ = random_model(200 + n, **variant)
        seqs = random_sources(gen, 5, 40)
        src, mask = padded_batch(seqs)
        batch = greedy_search(model, src, 10, mask, record_attention=True, record_logits=True)
        for seq, res in zip(seqs, batch):
            single = greedy_search(model, torch.tensor([seq]), 10, record_attention=True,
                                  record_logits=True)[0]
            if single["ids"] != res["ids"]:
                raise AssertionError("batched ids %s != single %s" % (res["ids"], single["ids"]))
            for key in ("encoder_self", "decoder_self", "cross", "logits"):
                if single[key].shape != res[key].shape:
                    raise AssertionError("%s shape %s != %s"
                                         % (key, list(res[key].shape), list(single[key].shape)))
                worst = max(worst, assert_close(single[key], res[key], 1e-5, key))
    return "max diff %.2e" % worst


@check
def padding_is_invisible_to_encoder():
    model, _ = random_model(300, **VARIANTS[1])
    seqs = [[5, 6, 7, 3], [8, 9, 10, 11, 12, 13, 3]]
    src, mask = padded_batch(seqs)
    with torch.no_grad():
        enc = model.encode(src, mask)
        for i, seq in enumerate(seqs):
            alone = model.encode(torch.tensor([seq]))
            assert_close(enc[i, :len(seq)], alone[0], 1e-5, "encoder output")


@check
def causal_mask_gives_exact_zeros():
    gen = torch.Generator().manual_seed(3)
    model, _ = random_model(400, **VARIANTS[0])
    src, mask = padded_batch(random_sources(gen, 3, 40))
    for res in greedy_search(model, src, 10, mask, record_attention=True):
        a = res["decoder_self"]                                            # [L, H, T, T]
        t = a.shape[-1]
        upper = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        assert (a[..., upper] == 0).all(), "non-zero weight above the diagonal"
        for key in ("encoder_self", "decoder_self", "cross"):
            assert_close(res[key].sum(-1), torch.ones(res[key].shape[:-1]), 1e-5, key + " rows")
    # Teacher forcing: later target tokens never change earlier logits.
    tgt = torch.randint(4, 50, (1, 8), generator=gen)
    tgt2 = tgt.clone()
    tgt2[0, 5:] = torch.randint(4, 50, (3,), generator=gen)
    with torch.no_grad():
        a = model(src[:1], tgt)
        b = model(src[:1], tgt2)
    assert_close(a[0, :5], b[0, :5], 1e-6, "logits before the changed position")


def _rounded(t, dtype):
    return t.to(DTYPE_TORCH[dtype]).float() if dtype in ("F16", "BF16") else t


@check
def save_load_round_trip():
    tmp = tempfile.mkdtemp(prefix="minimt-selfcheck-")
    try:
        for n, variant in enumerate(VARIANTS):
            model, config = random_model(500 + n, **variant)
            for dtype in ("F32", "F16", "BF16", "inline"):
                out = os.path.join(tmp, "%d-%s" % (n, dtype))
                save_model(model, config, out, dtype)
                loaded, cfg = load_model(out)
                with open(os.path.join(out, "config.json"), encoding="utf-8") as f:
                    on_disk = json.load(f)
                extra = set(on_disk) - set(FORMAT_KEYS)
                assert not extra, "config.json has non-format keys %s" % sorted(extra)
                a, b = model.state_dict(), loaded.state_dict()
                assert set(a) == set(b), "tensor names differ after %s round trip" % dtype
                for name in a:
                    if not torch.equal(_rounded(a[name], dtype), b[name]):
                        raise AssertionError("%s: %s not exactly rounded" % (dtype, name))
                if dtype != "inline":
                    check_safetensors_layout(os.path.join(out, "model.safetensors"), a, dtype)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_safetensors_layout(path, state, dtype):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert n % 8 == 0, "header not padded to 8 bytes"
    assert set(header) - {"__metadata__"} == set(state), "header names differ"
    spans = sorted(info["data_offsets"] for k, info in header.items() if k != "__metadata__")
    assert spans[0][0] == 0 and spans[-1][1] == len(raw) - 8 - n, "data not contiguous"
    for (b0, e0), (b1, _) in zip(spans, spans[1:]):
        assert e0 == b1, "gap or overlap in data_offsets"
    for name, t in state.items():
        info = header[name]
        assert info["dtype"] == dtype and info["shape"] == list(t.shape), name
        size = info["data_offsets"][1] - info["data_offsets"][0]
        assert size == t.numel() * DTYPE_SIZE[dtype], name


@check
def load_rejects_bad_tensors():
    tmp = tempfile.mkdtemp(prefix="minimt-selfcheck-")
    try:
        model, config = random_model(600, **VARIANTS[1])
        state = {k: v.clone() for k, v in model.state_dict().items()}
        cases = {
            "missing": {k: v for k, v in state.items() if k != "decoder.layers.1.fc2.bias"},
            "unexpected": dict(state, **{"encoder.layers.0.extra.weight": torch.zeros(2)}),
            "wrong shape": dict(state, **{"encoder.layers.0.fc1.bias": torch.zeros(3)}),
        }
        for label, tensors in cases.items():
            out = os.path.join(tmp, label.replace(" ", "_"))
            os.makedirs(out)
            write_safetensors(os.path.join(out, "model.safetensors"), tensors)
            with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
                json.dump(file_config(config), f)
            try:
                load_model(out)
            except ValueError:
                continue
            raise AssertionError("load_model accepted a %s tensor" % label)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@check
def translate_cli_batch_sizes_agree():
    tmp = tempfile.mkdtemp(prefix="minimt-selfcheck-")
    try:
        model_dir = os.path.join(tmp, "m")
        reference.main(["random-model", model_dir, "--seed", "7", "--final-logits-bias",
                        "--eos-boost", "2", "--norm", "pre", "--dtype", "BF16"])
        with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        for side in ("source", "target"):
            import sentencepiece as spm
            sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, side + ".spm"))
            assert sp.get_piece_size() == config[side + "_vocab_size"], side + " vocab size"
        texts = ["The cat sat on the mat.", "", "A small dog runs quickly through the green "
                 "park and the children play football after school every Tuesday evening.",
                 "Hello!", "Where is the railway station?"]
        with redirect_stderr(io.StringIO()):
            tr = Translator(model_dir)
            one = tr.translate(texts, 12, batch_size=1, record_attention=True)
            five = tr.translate(texts, 12, batch_size=5, record_attention=True)
        for a, b in zip(one, five):
            assert a["ids"] == b["ids"] and a["translation"] == b["translation"]
        dump = attention_dump(tr, five)
        json.dumps(dump)
        for sent, res in zip(dump["sentences"], five):
            s, t = len(sent["source_tokens"]), len(sent["output_tokens"])
            assert s == len(res["source_ids"]) <= config["max_positions"]
            assert sent["source_tokens"][-1] == "</s>"
            assert len(sent["decoder_input_tokens"]) == t and sent["decoder_input_tokens"][0] == "<s>"
            assert list(res["cross"].shape)[2:] == [t, s]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- search

def eos_model(seed, eos_boost, **overrides):
    """A random model whose eos logit is raised, so that searches end at different lengths."""
    config = small_config(**overrides)
    model = MinimtTransformer(config)
    randomize(model, config, seed, eos_boost=eos_boost)
    model.eval()
    return model, config


@check
def beam_size_one_equals_greedy():
    gen = torch.Generator().manual_seed(4)
    ended = 0
    for n, variant in enumerate(VARIANTS):
        model, _ = eos_model(700 + n, 3.0, **variant)
        for seq in random_sources(gen, 5, 40):
            greedy = greedy_search(model, torch.tensor([seq]), 10)[0]
            (beam,) = beam_search(model, seq, 1, 1, 0.0, 10)
            if beam["ids"] != greedy["ids"]:
                raise AssertionError("beam 1 %s != greedy %s" % (beam["ids"], greedy["ids"]))
            assert_close(torch.tensor(beam["token_log_probs"]), torch.tensor(greedy["scores"]),
                         1e-5, "beam-1 and greedy log-probs")
            ended += beam["eos"]
    assert 0 < ended < 15, "%d of 15 greedy outputs end with eos: vary the lengths" % ended
    return "%d of 15 end with eos" % ended


@check
def score_of_greedy_output_equals_its_log_probs():
    gen = torch.Generator().manual_seed(5)
    worst = 0.0
    for n, variant in enumerate(VARIANTS):
        model, _ = eos_model(800 + n, 3.0, **variant)
        for seq in random_sources(gen, 5, 40):
            greedy = greedy_search(model, torch.tensor([seq]), 10, record_attention=True)[0]
            forced = score_target(model, seq, greedy["ids"], record_attention=True)
            worst = max(worst, assert_close(torch.tensor(forced["token_log_probs"]),
                                            torch.tensor(greedy["scores"]), 1e-5, "log-probs"))
            if abs(forced["score"] - sum(greedy["scores"])) > 1e-5:
                raise AssertionError("score %r != greedy sum %r"
                                     % (forced["score"], sum(greedy["scores"])))
            for key in ("encoder_self", "decoder_self", "cross"):
                assert_close(forced[key], greedy[key], 1e-5, "teacher-forced vs greedy " + key)
    return "max diff %.2e" % worst


def all_outputs(vocab, eos, length):
    """Every complete output of at most `length` tokens: w + [eos] for shorter w without
    eos, and every eos-free w of exactly `length` tokens."""
    words = [[]]
    out = []
    for _ in range(length):
        out += [w + [eos] for w in words]
        words = [w + [t] for w in words for t in range(vocab) if t != eos]
    return out + words


@check
def huge_beam_finds_the_exhaustive_best():
    """V = 5 target tokens, max length 3: a beam of 125 >= V^L keeps every hypothesis, so
    its ranking must be that of scoring all 1 + 4 + 16 + 64 + ... outputs one by one."""
    vocab, length = 5, 3
    model, config = eos_model(900, 1.5, target_vocab_size=vocab, d_model=8, num_heads=2,
                              head_dim=None, d_ff=16, final_logits_bias=True)
    eos = int(config["special_tokens"]["eos"])
    outputs = all_outputs(vocab, eos, length)
    for seq in ([5, 6, 7, 3], [9, 3]):
        scored = [(score_target(model, seq, ids)["score"], ids) for ids in outputs]
        for penalty in (0.0, 0.6, 1.0, -0.5):
            ranked = sorted(scored, key=lambda p: -ranking_score(p[0], len(p[1]), penalty))
            hyps = beam_search(model, seq, vocab ** length, 3, penalty, length)
            got = [h["ids"] for h in hyps]
            want = [ids for _, ids in ranked[:3]]
            if got != want:
                raise AssertionError("A=%g: beam %s, exhaustive %s" % (penalty, got, want))
            for h, (total, _) in zip(hyps, ranked):
                if abs(h["score"] - total) > 1e-6:  # float32 logits of other batch shapes
                    raise AssertionError("A=%g: beam score %r, forced %r"
                                         % (penalty, h["score"], total))
    return "%d outputs each" % len(outputs)


@check
def beam_scores_equal_forced_scores():
    """Every hypothesis of N = 2, 4, 8 (n-best 3): log-probs equal teacher forcing of its
    ids, ranking_score = score / len^A, and the n-best list sorted."""
    gen = torch.Generator().manual_seed(6)
    for n, variant in enumerate(VARIANTS):
        model, _ = eos_model(1000 + n, 2.0, **variant)
        for seq in random_sources(gen, 3, 40):
            for beam, penalty in ((2, 0.0), (4, 0.6), (8, 1.0)):
                hyps = beam_search(model, seq, beam, min(3, beam), penalty, 8)
                ranks = [h["ranking_score"] for h in hyps]
                assert ranks == sorted(ranks, reverse=True), "n-best not sorted"
                assert len(hyps) == min(3, beam), "too few hypotheses"
                for h in hyps:
                    forced = score_target(model, seq, h["ids"])
                    assert_close(torch.tensor(h["token_log_probs"]),
                                 torch.tensor(forced["token_log_probs"]), 1e-6, "log-probs")
                    want = h["score"] / len(h["ids"]) ** penalty
                    assert abs(h["ranking_score"] - want) < 1e-12, "ranking score"
                    assert h["eos"] or len(h["ids"]) == 8, "unfinished and short"


class TableModel:
    """A stand-in model for beam_search: the next token's probabilities are looked up by the
    ids generated so far (uniform when absent). Tokens a=0, b=1, c=2, eos=3."""

    def __init__(self, table, max_positions=10):
        self.table = table
        self.decoder_start, self.eos, self.max_positions = 2, 3, max_positions

    def eval(self):
        return self

    def encode(self, src):
        return torch.zeros(1, 1, 1)

    def decode_full(self, memory, tgt):
        rows = [self.table.get(tuple(t[1:].tolist()), [0.25] * 4) for t in tgt]
        logits = torch.tensor(rows, dtype=torch.float64).log().float()
        return logits[:, None, :].expand(len(rows), tgt.shape[1], 4)


@check
def beam_semantics_on_a_table():
    a, b, eos = 0, 1, 3
    # eos second of 2N = 2 candidates with N = 1: ignored; then ties go to the lower id.
    model = TableModel({(): [0.55, 0.03, 0.02, 0.4]})
    (h,) = beam_search(model, [3], 1, 1, 0.0, 3)
    assert h["ids"] == [a, a, a], h["ids"]
    assert abs(h["score"] - math.log(0.55 * 0.25 * 0.25)) < 1e-6, h["score"]
    # Beam size 1 is greedy search whatever the length penalty: [eos] although [a, eos]
    # ranks higher under A = 1.
    model = TableModel({(): [0.45, 0.03, 0.02, 0.5], (a,): [0.01, 0.01, 0.01, 0.97]})
    for penalty in (0.0, 1.0):
        (h,) = beam_search(model, [3], 1, 1, penalty, 4)
        assert h["ids"] == [eos] and abs(h["ranking_score"] - math.log(0.5)) < 1e-6, h
    # N = 2 stops when the best live sum cannot beat the 2nd best finished: after step 1
    # for A = 0 ([eos], [a, eos]); for A = 1 the bound log(0.4 * 0.39) / 4 goes on, and
    # [a, a, eos] (log(0.4 * 0.39 * 0.99) / 3) ranks first. [b, eos] is third of 2N: dropped.
    model = TableModel({(): [0.4, 0.1, 0.05, 0.45], (a,): [0.39, 0.005, 0.005, 0.6],
                        (b,): [0.1 / 3] * 3 + [0.9], (a, a): [0.01 / 3] * 3 + [0.99]})
    got = [h["ids"] for h in beam_search(model, [3], 2, 2, 0.0, 4)]
    assert got == [[eos], [a, eos]], got
    hyps = beam_search(model, [3], 2, 2, 1.0, 4)
    assert [h["ids"] for h in hyps] == [[a, a, eos], [a, eos]], hyps
    assert abs(hyps[0]["ranking_score"] - math.log(0.4 * 0.39 * 0.99) / 3) < 1e-6
    # N = 2: the finished [eos] leaves the beam, refilled by [a] and [b]; n-best 2 in order.
    model = TableModel({(): [0.3, 0.15, 0.05, 0.5], (a,): [0.05, 0.03, 0.02, 0.9],
                        (b,): [0.78, 0.05, 0.05, 0.12]})
    got = [h["ids"] for h in beam_search(model, [3], 2, 2, 0.0, 5)]
    assert got == [[eos], [a, eos]], got
    # A forced prefix counts in the score: [b] then [b, eos] (finished second of 2N), which
    # beats [b, a, a, a, a] (after [b, a] ties give eos rank 3 >= N: never finished).
    (h,) = beam_search(model, [3], 2, 1, 0.0, 5, prefix=[b])
    assert h["ids"] == [b, eos], h
    assert abs(h["score"] - math.log(0.15 * 0.12)) < 1e-6, h
    # With A = 1 the long one (log(0.15 * 0.78 / 4^3) / 5) ranks first.
    (h,) = beam_search(model, [3], 2, 1, 1.0, 5, prefix=[b])
    assert h["ids"] == [b, a, a, a, a] and not h["eos"], h
    assert abs(h["ranking_score"] - math.log(0.15 * 0.78 / 64) / 5) < 1e-6, h


@check
def sampling_distribution_on_hand_made_logits():
    logits = torch.tensor([0.4, 0.3, 0.2, 0.1]).log()
    cases = [  # (temperature, top_k, top_p, expected)
        (1.0, 0, 1.0, [0.4, 0.3, 0.2, 0.1]),
        (1.0, 2, 1.0, [0.4 / 0.7, 0.3 / 0.7, 0, 0]),
        (1.0, 0, 0.65, [0.4 / 0.7, 0.3 / 0.7, 0, 0]),
        (1.0, 0, 0.75, [0.4 / 0.9, 0.3 / 0.9, 0.2 / 0.9, 0]),
        (1.0, 0, 0.35, [1, 0, 0, 0]),
        (0.5, 0, 1.0, [0.16 / 0.3, 0.09 / 0.3, 0.04 / 0.3, 0.01 / 0.3]),
        # top-p on the top-k distribution renormalized: 0.4/0.9 + 0.3/0.9 >= 0.75
        (1.0, 3, 0.75, [0.4 / 0.7, 0.3 / 0.7, 0, 0]),
        (1.0, 1, 1.0, [1, 0, 0, 0]),
    ]
    for temperature, top_k, top_p, expected in cases:
        probs = sampling_distribution(logits, temperature, top_k, top_p)
        assert abs(probs.sum().item() - 1) < 1e-12, "sums to %r" % probs.sum().item()
        assert_close(probs, torch.tensor(expected, dtype=torch.float64), 1e-6,
                     "T=%g k=%d p=%g" % (temperature, top_k, top_p))
        assert ((probs == 0) == (torch.tensor(expected) == 0)).all(), "zeros differ"


@check
def beam_and_score_commands_agree():
    tmp = tempfile.mkdtemp(prefix="minimt-selfcheck-")
    try:
        model_dir = os.path.join(tmp, "m")
        reference.main(["random-model", model_dir, "--seed", "8", "--final-logits-bias",
                        "--eos-boost", "3", "--norm", "pre"])
        texts = ["The cat sat on the mat.", "Hello!", "Where is the railway station?"]
        out = io.StringIO()
        with redirect_stdout(out):
            reference.main(["beam", "--model", model_dir, "--beam-size", "4", "--n-best", "2",
                            "--length-penalty", "0.6", "--max-length", "12"] + texts)
        records = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [r["line"] for r in records] == [1, 2, 3]
        tr = Translator(model_dir, quiet=True)
        compared = 0
        for text, record in zip(texts, records):
            assert record["n_best"][0]["ids"] == record["ids"] and len(record["n_best"]) == 2
            for hyp in record["n_best"]:
                forced = tr.force(text, hyp["ids"])
                assert abs(forced["score"] - hyp["score"]) < 1e-6, "forced score"
                eos_ended = hyp["ids"][-1] == tr.eos
                if eos_ended and tr.target_ids(hyp["translation"]) == hyp["ids"][:-1]:
                    assert abs(tr.score(text, hyp["translation"])["score"] - hyp["score"]) < 1e-6
                    compared += 1
        assert compared, "no hypothesis re-tokenizes to itself"
        return "%d hypotheses re-scored from their text" % compared
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    torch.set_num_threads(1)
    tally = support.Tally()
    for fn in CHECKS:
        tally.case(fn.__name__, fn)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
