"""The K/V caches of a cached greedy or beam search (MinimtTransformer.start_decoding and
decode_step): per decoder layer, the self-attention K/V of the positions decoded so far in
preallocated tensors, and the cross-attention K/V of the encoder output, computed once.
"""


class DecodingState:
    """Everything a cached search keeps between steps, for the rows still decoding:
    per layer preallocated self-attention K/V [B, H, L, dk] and the cross-attention K/V of
    the encoder output, the cross mask, and the step count."""

    def __init__(self, caches, cross_kv, cross_mask, capacity):
        self.caches = caches          # list of (k, v)
        self.cross_kv = cross_kv      # list of (k, v)
        self.cross_mask = cross_mask  # [B, 1, 1, S] additive, or None
        self.capacity = capacity
        self.step = 0

    def select(self, rows):
        """Keep only the batch rows `rows` (a LongTensor), e.g. when sentences finish."""
        t = self.step
        caches = []
        for k, v in self.caches:
            nk = k.new_empty((len(rows),) + tuple(k.shape[1:]))
            nv = v.new_empty(nk.shape)
            nk[:, :, :t] = k[rows, :, :t]
            nv[:, :, :t] = v[rows, :, :t]
            caches.append((nk, nv))
        self.caches = caches
        self.cross_kv = [(k.index_select(0, rows), v.index_select(0, rows))
                         for k, v in self.cross_kv]
        if self.cross_mask is not None:
            self.cross_mask = self.cross_mask.index_select(0, rows)
