"""Searches over a MinimtTransformer (docs/search.md): greedy (recording and fast), beam,
teacher-forced scoring, the sampling distribution, and a fast batched beam for benchmarks."""
