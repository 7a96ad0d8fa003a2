"""The attention dump ("minimt-attention", version 1) that `minimt translate --dump-attention`
also writes, from a Translator's results (search.greedy's or scoring's records), so that the
two can be compared.

    attention_dump(translator, results) -> dict, ready for json.dump
"""


def attention_record(translator, res):
    """One sentence of the dump."""
    ids = res["ids"]
    decoder_input = [translator.start] + ids[:-1]
    source_piece, target_piece = translator.source_sp.id_to_piece, translator.target_sp.id_to_piece
    return {
        "source": res["source"],
        "translation": res["translation"],
        "source_tokens": [source_piece(i) for i in res["source_ids"]],
        "decoder_input_tokens": [target_piece(i) for i in decoder_input[:len(ids)]],
        "output_tokens": [target_piece(i) for i in ids],
        "encoder_self_attention": res["encoder_self"].tolist(),
        "decoder_self_attention": res["decoder_self"].tolist(),
        "cross_attention": res["cross"].tolist(),
    }


def attention_dump(translator, results):
    dump = {"format": "minimt-attention", "version": 1, "model": translator.model_dir}
    if translator.masked_heads:
        dump["masked_heads"] = translator.masked_heads
    dump["sentences"] = [attention_record(translator, r) for r in results]
    return dump
