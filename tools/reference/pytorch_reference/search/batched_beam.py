"""A fast beam search, the benchmark's counterpart to `minimt translate --beam-size` (run by
tools/reference/beam_fast.py). Written the way PyTorch translators (Hugging Face's generate,
fairseq) run beams: a batch of sentences with beam_size rows each, preallocated K/V caches that
follow their beams through index_select, the top 2N candidates per sentence by torch.topk,
finished hypotheses leaving the beam, and the stopping rule of beam.py. beam.py is the plain,
checked search; this file is about speed.

    beam_batch(model, src, pad_mask, beam, max_length, penalty)
        -> per sentence (ranking score, ids, summed log-prob) of its best hypothesis
"""
import torch

from .beam import best_reachable, ranking_score


def beam_batch(model, src, pad_mask, beam, max_length, penalty):
    """Best hypothesis (ranking score, ids, summed log-prob) of every sentence of src [B, S];
    call under torch.inference_mode()."""
    b = src.shape[0]
    enc_out = model.encode(src, pad_mask)
    state = model.start_decoding(enc_out, pad_mask, max_length)
    eos, start = model.eos, model.decoder_start
    live = [(i, [], 0.0) for i in range(b)]            # (sentence, ids, summed log-prob)
    finished = [[] for _ in range(b)]                  # (ranking score, ids, sum)
    tokens = torch.full((b, 1), start, dtype=torch.long)
    while live:
        logp = torch.log_softmax(model.decode_step(tokens, state).float(), dim=-1)  # [R, V]
        next_live, parents = [], []
        row = 0
        while row < len(live):
            sentence = live[row][0]
            end = row
            while end < len(live) and live[end][0] == sentence:
                end += 1
            sums = torch.tensor([live[r][2] for r in range(row, end)], dtype=torch.float64)
            scores = (sums[:, None] + logp[row:end].double()).flatten()
            top = torch.topk(scores, min(2 * beam, scores.numel()))
            vocab = logp.shape[1]
            kept, first = 0, len(next_live)
            for rank, (value, index) in enumerate(zip(top.values.tolist(), top.indices.tolist())):
                parent, token = row + index // vocab, index % vocab
                ids = live[parent][1] + [token]
                if token == eos:
                    if rank < beam:
                        finished[sentence].append((ranking_score(value, len(ids), penalty),
                                                   ids, value))
                    continue
                if kept == beam:
                    break
                kept += 1
                next_live.append((sentence, ids, value))
                parents.append(parent)
            length = len(live[row][1]) + 1
            done = finished[sentence]
            if length >= max_length:
                for s, ids, value in next_live[first:]:
                    done.append((ranking_score(value, len(ids), penalty), ids, value))
                del next_live[first:], parents[first:]
            elif len(done) >= beam and next_live[first:]:
                worst = sorted((d[0] for d in done), reverse=True)[beam - 1]
                best = max(v for _, _, v in next_live[first:])
                if best_reachable(best, length, max_length, penalty) <= worst:
                    del next_live[first:], parents[first:]
            row = end
        if not next_live:
            break
        state.select(torch.tensor(parents, dtype=torch.long))  # caches follow their beams
        live = next_live
        tokens = torch.tensor([[ids[-1]] for _, ids, _ in live], dtype=torch.long)
    return [max(done, key=lambda d: d[0]) if done else (0.0, [], 0.0) for done in finished]
