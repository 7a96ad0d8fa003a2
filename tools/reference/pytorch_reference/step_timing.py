"""Cached decoder steps/s (reference.py bench-steps), measured as tools/bench/minimt_bench.cpp
measures the C++ engine's: the same sources, the same loop, median of the repeats.

    bench_sources(config, batch) -> the source id lists minimt_bench steps uses
    measure_steps(model_dir, batch, steps, threads, repeats) -> dict (printed as JSON)
"""
import time

import torch

from .model.config import decoder_start_of
from .model.files import load_model
from .threads import set_threads


def bench_sources(config, batch):
    """The sources minimt_bench steps uses: 11 tokens 4 + (b + i) % (V - 4), then eos."""
    vocab = int(config["source_vocab_size"])
    eos = int(config["special_tokens"]["eos"])
    return [[4 + (b + i) % (vocab - 4) for i in range(11)] + [eos] for b in range(batch)]


def measure_steps(model_dir, batch, steps, threads, repeats):
    """Cached decoder steps/s at a batch size, measured as minimt_bench steps measures them:
    fixed 12-token sources, encode once, then `steps` decoder steps each fed the arg-max of
    the previous one (no sentence leaves the batch); median of the repeats, wall and thread
    CPU time."""
    set_threads(max(1, threads))
    model, config = load_model(model_dir)
    steps = min(steps, int(config["max_positions"]) - 1)
    src = torch.tensor(bench_sources(config, batch), dtype=torch.long)
    start = decoder_start_of(config)
    rates, cpu_rates = [], []
    with torch.inference_mode():
        for _ in range(repeats):
            enc_out = model.encode(src)
            state = model.start_decoding(enc_out, None, steps)
            tokens = torch.full((batch, 1), start, dtype=torch.long)
            wall, cpu = time.perf_counter(), time.thread_time()
            for _ in range(steps):
                logits = model.decode_step(tokens, state)
                tokens = torch.argmax(logits, dim=-1)[:, None]
            cpu = time.thread_time() - cpu
            wall = time.perf_counter() - wall
            rates.append(steps / wall)
            cpu_rates.append(steps / cpu if cpu > 0 else float("inf"))
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    rate = median(rates)
    return {"batch": batch, "steps": steps, "steps_per_second": round(rate, 2),
            "ms_per_step": round(1000.0 / rate, 3),
            "cpu_steps_per_second": round(median(cpu_rates), 2),
            "threads": torch.get_num_threads(), "torch": torch.__version__}
