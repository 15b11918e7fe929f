"""Timing shared by the benchmarks: CUDA events around the launch alone,
L2 flushed before every run, median of many runs. A GPU-side wait between
the flush and the start event keeps the stream busy while the host issues
the launch, so host-side launch cost is not timed as GPU time."""
import statistics

import torch


def l2_flusher(mib=256):
    """A callable that overwrites `mib` MiB, evicting the L2 (60 MB here)."""
    return torch.empty(mib << 20, dtype=torch.uint8, device="cuda").zero_


# About 0.5 ms at H200 clocks, queued before the start event so that the
# host's launch cost is never timed. With 50 us, raw launches of the
# decode (19 arguments packed through ctypes) read 46-342 us on its small
# D = 64 shape in sweeps where the runtime's launch of the same kernel
# took 22-24 us; host time outlasting the slack is the likely cause, not
# yet confirmed. The slack only delays the start; it adds nothing to the
# interval timed.
_HOST_SLACK_CYCLES = 1_000_000


def time_median(fn, flush, runs, warmup=10):
    """Median microseconds of fn(i) over `runs` runs, i the run's index (for
    rotating among input copies), after `warmup` untimed runs."""
    for _ in range(warmup):
        fn(0)
    times = []
    for i in range(runs):
        flush()
        torch.cuda._sleep(_HOST_SLACK_CYCLES)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)
