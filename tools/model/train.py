#!/usr/bin/python3
"""Trains minimt's toy English->French Transformer (format v1, post-norm, sinusoidal
positions, scaled embeddings, tied decoder output) with the PyTorch reference
(tools/reference/pytorch_reference).

Reads WORKDIR/data/{train,dev}.tsv and WORKDIR/data/{source,target}.spm (made by
tools/model/corpus.py and tools/model/build_tokenizers.py), writes WORKDIR/checkpoint.pt every
--ckpt-seconds and at the end, and resumes from it automatically: a stopped run picks
up where its last checkpoint left it.  Progress lines (step, loss, tokens/s, learning
rate, dev greedy exact match) go to stdout.

Stops when the dev exact match (greedy, on --eval-sentences dev sentences) reaches
--stop-at on --stop-patience evaluations in a row, or at --max-steps, or after
--max-minutes of training in this process.

Usage:
  tools/model/train.py [--workdir /var/tmp/minimt-train] [--seed 1] [--d-model 256] ...
Then tools/model/export_model.py --workdir ... --out models/en-fr
"""
import argparse
import json
import math
import os
import random
import sys
import time

# Under CPU contention OpenMP threads that spin at barriers slow training several-fold.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import sentencepiece as spm  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from pytorch_reference.model.config import make_config  # noqa: E402
from pytorch_reference.model.transformer import MinimtTransformer  # noqa: E402
from pytorch_reference.search.greedy import greedy  # noqa: E402

PAD, UNK, BOS, EOS = 0, 1, 2, 3


def log(msg):
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


def read_pairs(path):
    with open(path, encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]


def encode_pairs(pairs, sp_src, sp_tgt):
    src = sp_src.encode([e for e, _ in pairs])
    tgt = sp_tgt.encode([f for _, f in pairs])
    return [(s + [EOS], t) for s, t in zip(src, tgt)]


def make_batches(data, max_tokens, rng):
    """Length-bucketed batches of about max_tokens target+source tokens, in random order."""
    order = list(range(len(data)))
    rng.shuffle(order)
    # sort within large chunks so batches hold similar lengths but epochs still vary
    chunk = 100 * 64
    batches = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c:c + chunk], key=lambda i: (len(data[i][0]), len(data[i][1])))
        batch, longest = [], 0
        for i in part:
            n = max(len(data[i][0]), len(data[i][1]) + 1)
            if batch and max(longest, n) * (len(batch) + 1) > max_tokens:
                batches.append(batch)
                batch, longest = [], 0
            batch.append(i)
            longest = max(longest, n)
        if batch:
            batches.append(batch)
    rng.shuffle(batches)
    return batches


def collate(data, idx):
    srcs = [data[i][0] for i in idx]
    tgts = [data[i][1] for i in idx]
    s_len = max(len(s) for s in srcs)
    t_len = max(len(t) for t in tgts) + 1
    src = torch.full((len(idx), s_len), PAD, dtype=torch.long)
    tin = torch.full((len(idx), t_len), PAD, dtype=torch.long)
    tout = torch.full((len(idx), t_len), PAD, dtype=torch.long)
    for r, (s, t) in enumerate(zip(srcs, tgts)):
        src[r, :len(s)] = torch.tensor(s)
        tin[r, :len(t) + 1] = torch.tensor([BOS] + t)
        tout[r, :len(t) + 1] = torch.tensor(t + [EOS])
    return src, tin, tout


def greedy_translate(model, sp_src, sp_tgt, sentences, batch=200, max_length=64):
    out = []
    model.eval()
    for b in range(0, len(sentences), batch):
        chunk = sentences[b:b + batch]
        ids = [s + [EOS] for s in sp_src.encode(chunk)]
        s_len = max(len(s) for s in ids)
        src = torch.full((len(ids), s_len), PAD, dtype=torch.long)
        for r, s in enumerate(ids):
            src[r, :len(s)] = torch.tensor(s)
        results = greedy(model, src, max_length, src_pad_mask=src.eq(PAD))
        for res in results:
            toks = [t for t in res["ids"] if t != EOS]
            out.append(sp_tgt.decode(toks))
    return out


def lr_at(step, peak, warmup, total):
    """Linear warmup to `peak`, then inverse-square-root decay."""
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * math.sqrt(warmup / (step + 1))


# One function on purpose: the training run reads top to bottom (data, model, schedule, loop,
# checkpoints) as the shipped model's README describes it; its pieces are used nowhere else.
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", default="/var/tmp/minimt-train")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=192)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=768)
    ap.add_argument("--enc-layers", type=int, default=3)
    ap.add_argument("--dec-layers", type=int, default=3)
    ap.add_argument("--max-positions", type=int, default=128)
    ap.add_argument("--dropout", type=float, default=0.05)
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--batch-tokens", type=int, default=1500, help="padded tokens per batch (longest side)")
    ap.add_argument("--max-steps", type=int, default=20000)
    ap.add_argument("--max-minutes", type=float, default=50.0, help="training time budget of this process")
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--eval-sentences", type=int, default=300)
    ap.add_argument("--stop-at", type=float, default=0.99)
    ap.add_argument("--stop-patience", type=int, default=2)
    ap.add_argument("--ckpt-seconds", type=float, default=120.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--measure", type=int, default=0, help="run N steps, print speed and exit (no checkpoint)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    data_dir = os.path.join(args.workdir, "data")
    ckpt_path = os.path.join(args.workdir, "checkpoint.pt")
    sp_src = spm.SentencePieceProcessor(model_file=os.path.join(data_dir, "source.spm"))
    sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(data_dir, "target.spm"))

    config = make_config(
        d_model=args.d_model, num_heads=args.heads, d_ff=args.d_ff,
        encoder_layers=args.enc_layers, decoder_layers=args.dec_layers,
        activation="relu", norm_position="post", layer_norm_eps=1e-5,
        max_positions=args.max_positions, positions="sinusoidal", scale_embeddings=True,
        source_vocab_size=sp_src.get_piece_size(), target_vocab_size=sp_tgt.get_piece_size(),
        tie_output=True, special_tokens={"pad": PAD, "unk": UNK, "bos": BOS, "eos": EOS},
        tokenizer={"source": "source.spm", "target": "target.spm"}, weights="model.safetensors")

    resume = None
    if os.path.exists(ckpt_path) and not args.measure:
        resume = torch.load(ckpt_path)
        if resume["config"] != config:
            sys.exit(f"{ckpt_path} was trained with another configuration; "
                     f"remove it or use another --workdir")
        recent = [h["dev_exact"] for h in resume["history"][-args.stop_patience:]]
        met = len(recent) == args.stop_patience and min(recent) >= args.stop_at
        if met or resume["step"] >= args.max_steps:
            log(f"{ckpt_path} is a finished run (step {resume['step']}, dev exact match "
                f"{', '.join(f'{100 * r:.1f}%' for r in recent)}); nothing to do. A stricter "
                f"--stop-at or a larger --max-steps continues it.")
            return 0

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    model = MinimtTransformer(config, dropout=args.dropout)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    step, history = 0, []
    if resume:
        model.load_state_dict(resume["model"])
        opt.load_state_dict(resume["optimizer"])
        step, history = resume["step"], resume["history"]
        torch.manual_seed(args.seed * 100003 + step)
        log(f"resumed from {ckpt_path} at step {step}")

    t0 = time.time()
    train = encode_pairs(read_pairs(os.path.join(data_dir, "train.tsv")), sp_src, sp_tgt)
    dev = read_pairs(os.path.join(data_dir, "dev.tsv"))[:args.eval_sentences]
    log(f"{len(train)} training pairs encoded in {time.time() - t0:.1f}s; model {n_params} parameters "
        f"({n_params * 4 / 1e6:.1f} MB as F32); config {json.dumps({k: config[k] for k in ('d_model', 'num_heads', 'd_ff', 'encoder_layers', 'decoder_layers', 'source_vocab_size', 'target_vocab_size')})}")

    # The batch order is a pure function of (seed, epoch), so a resumed run continues
    # with the same batches it would have seen.
    epoch_batches = {}

    def batches_of(epoch):
        if epoch not in epoch_batches:
            epoch_batches.clear()
            epoch_batches[epoch] = make_batches(train, args.batch_tokens, random.Random(args.seed * 1000 + epoch))
        return epoch_batches[epoch]

    def locate(step):
        epoch, s = 0, step
        while s >= len(batches_of(epoch)):
            s -= len(batches_of(epoch))
            epoch += 1
        return epoch, s

    def save(done=False):
        tmp = ckpt_path + ".tmp"
        torch.save({"config": config, "model": model.state_dict(), "optimizer": opt.state_dict(),
                    "step": step, "history": history, "done": done, "args": vars(args)}, tmp)
        os.replace(tmp, ckpt_path)

    epoch, pos = locate(step)
    log(f"epoch {epoch} has {len(batches_of(epoch))} batches; starting at batch {pos}")
    start = time.time()
    last_ckpt = time.time()
    tok_count, loss_sum, loss_n, t_log = 0, 0.0, 0, time.time()
    reason = "max steps"
    while step < args.max_steps:
        batches = batches_of(epoch)
        if pos >= len(batches):
            epoch, pos = epoch + 1, 0
            continue
        src, tin, tout = collate(train, batches[pos])
        pos += 1
        model.train()
        lr = lr_at(step, args.lr, args.warmup, args.max_steps)
        for g in opt.param_groups:
            g["lr"] = lr
        logits = model(src, tin, src_pad_mask=src.eq(PAD), tgt_pad_mask=tin.eq(PAD))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                               ignore_index=PAD, label_smoothing=args.label_smoothing)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        n_tok = int(tout.ne(PAD).sum())
        tok_count += n_tok + int(src.ne(PAD).sum())
        loss_sum += float(loss) * n_tok
        loss_n += n_tok

        if args.measure and step >= args.measure:
            dt = time.time() - start
            log(f"measure: {step} steps in {dt:.1f}s = {dt / step:.2f} s/step, {tok_count / dt:.0f} tok/s, "
                f"{len(batches)} batches per epoch, loss {loss_sum / loss_n:.3f}")
            return 0
        if step % args.log_every == 0:
            dt = time.time() - t_log
            log(f"step {step} epoch {epoch} loss {loss_sum / loss_n:.4f} lr {lr:.2e} "
                f"{tok_count / dt:.0f} tok/s elapsed {(time.time() - start) / 60:.1f} min")
            tok_count, loss_sum, loss_n, t_log = 0, 0.0, 0, time.time()
        if step % args.eval_every == 0:
            te = time.time()
            hyps = greedy_translate(model, sp_src, sp_tgt, [e for e, _ in dev])
            exact = sum(h == f for h, (_, f) in zip(hyps, dev)) / len(dev)
            history.append({"step": step, "dev_exact": exact, "minutes": (time.time() - start) / 60})
            wrong = [(e, h, f) for h, (e, f) in zip(hyps, dev) if h != f]
            log(f"eval step {step}: dev exact match {100 * exact:.1f}% ({len(dev)} sentences, "
                f"{time.time() - te:.1f}s)" + (f"; e.g. {wrong[0][0]!r} -> {wrong[0][1]!r} (want {wrong[0][2]!r})" if wrong else ""))
            t_log = time.time()
            recent = [h["dev_exact"] for h in history[-args.stop_patience:]]
            if len(recent) == args.stop_patience and min(recent) >= args.stop_at:
                reason = f"dev exact match >= {args.stop_at} on {args.stop_patience} evaluations"
                break
        if time.time() - last_ckpt > args.ckpt_seconds:
            save()
            last_ckpt = time.time()
        if time.time() - start > args.max_minutes * 60:
            reason = "time budget"
            break
    save(done=reason != "time budget")
    log(f"stopped at step {step} ({reason}); {(time.time() - start) / 60:.1f} min in this process; "
        f"checkpoint {ckpt_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
