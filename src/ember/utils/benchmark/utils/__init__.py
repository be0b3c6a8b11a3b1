"""torch.utils.benchmark.utils: the benchmark package's modules (common: TaskSpec and Measurement; timer:
Timer; compare: Compare)."""
