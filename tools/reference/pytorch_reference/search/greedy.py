"""Greedy search (docs/model-format.md, "The forward pass"): the arg-max of each step's logits
(the lowest id on a tie) until eos or max_length tokens (eos counts), never more than
max_positions.

    greedy(model, src_ids, max_length, src_pad_mask=None, record_attention=False,
           record_logits=False) -> per sentence {"ids", "scores", [attention], [logits]}
    greedy_fast(model, src_ids, max_length, src_pad_mask=None) -> per sentence {"ids", "scores"}

greedy runs the decoder layers' cached step and can record every attention weight (the
attention dump); greedy_fast gives the same ids and scores, written for speed: inference mode,
preallocated K/V caches (model.start_decoding / decode_step), finished sentences leaving the
batch.
"""
import torch

from ..model.attention import key_padding_mask


@torch.no_grad()
def greedy(model, src_ids, max_length, src_pad_mask=None, record_attention=False,
           record_logits=False):
    """Batched greedy decoding with a K/V cache.

    src_ids [B, S] (right-padded, each row ends with eos before its padding). Returns per
    sentence a dict:
      ids: generated ids (eos included if produced), scores: log-prob of each,
      and with record_attention, tensors for that sentence without padding:
      encoder_self [L, H, S, S], decoder_self [L, H, T, T], cross [L, H, T, S]
      (T = len(ids); the decoder input is start + ids[:-1]);
      with record_logits, logits [T, V] (for checks against decode_full).
    """
    was_training = model.training
    model.eval()
    try:
        return _greedy(model, src_ids, max_length, src_pad_mask, record_attention,
                       record_logits)
    finally:
        model.train(was_training)


def _greedy(model, src_ids, max_length, src_pad_mask, record_attention, record_logits):
    b, s = src_ids.shape
    max_length = max(0, min(int(max_length), model.max_positions))
    if src_pad_mask is None:
        src_pad_mask = torch.zeros(b, s, dtype=torch.bool, device=src_ids.device)
    src_lengths = (~src_pad_mask).sum(dim=1).tolist()

    if record_attention:
        enc_out, enc_weights = model.encode(src_ids, src_pad_mask, return_attention=True)
    else:
        enc_out, enc_weights = model.encode(src_ids, src_pad_mask), None
    layers = model.decoder.layers
    cross_mask = key_padding_mask(src_pad_mask, enc_out.dtype)
    cross_kv = [layer.encoder_attn.project_kv(enc_out) for layer in layers]
    caches = [{} for _ in layers]

    tokens = torch.full((b, 1), model.decoder_start, dtype=torch.long, device=src_ids.device)
    finished = [False] * b
    ids = [[] for _ in range(b)]
    scores = [[] for _ in range(b)]
    step_logits = [[] for _ in range(b)]
    self_steps, cross_steps = [], []   # per step: per layer [B, H, t+1] and [B, H, S]

    for step in range(max_length):
        x = model.decoder.embed(tokens, start=step)                        # [B, 1, D]
        step_self, step_cross = [], []
        for layer, cache, kv in zip(layers, caches, cross_kv):
            x, sw, cw = layer.step(x, cache, kv, cross_mask, record_attention)
            if record_attention:
                step_self.append(sw[:, :, 0, :])
                step_cross.append(cw[:, :, 0, :])
        logits = model.logits(model.decoder.finish(x[:, 0]))               # [B, V]
        logp = torch.log_softmax(logits.float(), dim=-1)
        chosen = torch.argmax(logits, dim=-1)                              # first max = lowest id
        chosen_logp = logp.gather(1, chosen[:, None])[:, 0]
        self_steps.append(step_self)
        cross_steps.append(step_cross)
        for i in range(b):
            if not finished[i]:
                token = int(chosen[i])
                ids[i].append(token)
                scores[i].append(float(chosen_logp[i]))
                if record_logits:
                    step_logits[i].append(logits[i])
                finished[i] = token == model.eos
        if all(finished):
            break
        tokens = chosen[:, None]

    results = []
    for i in range(b):
        result = {"ids": ids[i], "scores": scores[i]}
        if record_logits:
            v = model.output_weight().shape[0]
            result["logits"] = (torch.stack(step_logits[i]) if step_logits[i]
                                else torch.zeros(0, v))
        if record_attention:
            result.update(_sentence_attention(
                model, i, len(ids[i]), src_lengths[i], enc_weights, self_steps, cross_steps))
        results.append(result)
    return results


def _sentence_attention(model, i, t, s, enc_weights, self_steps, cross_steps):
    """Unpadded attention tensors of sentence i (t generated tokens, s source tokens)."""
    n_layers = len(model.decoder.layers)
    heads = model.decoder.layers[0].self_attn.num_heads
    encoder_self = torch.stack([w[i, :, :s, :s] for w in enc_weights])   # [L, H, S, S]
    decoder_self = torch.zeros(n_layers, heads, t, t)                    # [L, H, T, T]
    cross = torch.zeros(n_layers, heads, t, s)                           # [L, H, T, S]
    for step in range(t):
        for layer in range(n_layers):
            decoder_self[layer, :, step, :step + 1] = self_steps[step][layer][i]
            cross[layer, :, step, :] = cross_steps[step][layer][i, :, :s]
    return {"encoder_self": encoder_self, "decoder_self": decoder_self, "cross": cross}


def greedy_fast(model, src_ids, max_length, src_pad_mask=None):
    """Greedy decoding as greedy() (same ids and scores), written for speed. Returns per
    sentence {"ids", "scores"}."""
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            return _greedy_fast(model, src_ids, max_length, src_pad_mask)
    finally:
        model.train(was_training)


def _greedy_fast(model, src_ids, max_length, src_pad_mask):
    b = src_ids.shape[0]
    max_length = max(0, min(int(max_length), model.max_positions))
    ids = [[] for _ in range(b)]
    scores = [[] for _ in range(b)]
    if max_length == 0 or b == 0:
        return [{"ids": i, "scores": s} for i, s in zip(ids, scores)]
    enc_out = model.encode(src_ids, src_pad_mask)
    state = model.start_decoding(enc_out, src_pad_mask, max_length)
    active = list(range(b))   # original sentence of each batch row
    tokens = torch.full((b, 1), model.decoder_start, dtype=torch.long, device=src_ids.device)
    eos = model.eos
    for _ in range(max_length):
        logits = model.decode_step(tokens, state)
        chosen = torch.argmax(logits, dim=-1)                              # first max = lowest id
        chosen_logp = torch.log_softmax(logits.float(), dim=-1).gather(1, chosen[:, None])
        keep = []
        for row, (token, logp) in enumerate(zip(chosen.tolist(), chosen_logp[:, 0].tolist())):
            i = active[row]
            ids[i].append(token)
            scores[i].append(logp)
            if token != eos:
                keep.append(row)
        if not keep:
            break
        if len(keep) < len(active):
            rows = torch.tensor(keep, dtype=torch.long, device=src_ids.device)
            state.select(rows)
            chosen = chosen.index_select(0, rows)
            active = [active[row] for row in keep]
        tokens = chosen[:, None]
    return [{"ids": i, "scores": s} for i, s in zip(ids, scores)]
