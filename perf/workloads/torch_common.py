"""What the PyTorch workloads share: torch (or exit 77, the skip code, without it or a CUDA
device), the output argument, and a call's GPU time as the median of 20 after 3 warm-up calls,
timed with CUDA events."""
import sys


def torch_or_skip(script):
    """numpy and torch, with a CUDA device and one argument (the output .npy): else exits."""
    try:
        import numpy
        import torch
    except ImportError as error:
        print(f"skipped: {error}")
        sys.exit(77)
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        sys.exit(77)
    if len(sys.argv) != 2:
        print(f"usage: {script} OUTPUT.npy", file=sys.stderr)
        sys.exit(2)
    return numpy, torch


def gpu_ms(torch, function, *args):
    """function(*args) and its GPU time in ms: the median of 20 calls after 3 warm-up calls."""
    for _ in range(3):
        function(*args)
    times = []
    for _ in range(20):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = function(*args)
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return result, sorted(times)[len(times) // 2]
