"""Timing shared by the benchmarks: CUDA events around the launch alone,
L2 flushed before every run, median of many runs."""
import statistics

import torch


def l2_flusher(mib=256):
    """A callable that overwrites `mib` MiB, evicting the L2 (60 MB here)."""
    return torch.empty(mib << 20, dtype=torch.uint8, device="cuda").zero_


def time_median(fn, flush, runs, warmup=10):
    """Median microseconds of fn(i) over `runs` runs, i the run's index (for
    rotating among input copies), after `warmup` untimed runs."""
    for _ in range(warmup):
        fn(0)
    times = []
    for i in range(runs):
        flush()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)
