#!/usr/bin/env python3
"""Speedup-versus-size figures from idgpu-bench CSV files (idgpu-bench --csv FILE).

    perf/plot.py bench.csv [more.csv ...] [-o DIR] [--title TEXT] [--bandwidth] [--overview]

One PNG per API family: FFT C2C/Z2Z 1D, R2C/C2R/D2Z/Z2D 1D, 2D/3D; tridiagonal per API
(gtsv2StridedBatch, gtsvInterleavedBatch per algorithm, gtsv2, gtsv2_nopivot), one line per kind
or precision. Size on a log2 axis, speedup (vendor time / idgpu time) on a log axis with a line
at 1.0; --bandwidth adds a panel with the fraction of device-to-device copy bandwidth each side
reached; --overview also writes every family into one figure (overview.png). Several CSVs (other
devices, policies or versions) share the figures, one marker each. Cases that failed or whose
outputs differed, the host-overhead cases and the out-of-core rows (family ooc: one side, no
speedup) are left out.
"""

import argparse
import collections
import csv
import math
import os
import re
import sys

# A family of figures: its file name, its title, and how its x axis reads.
Group = collections.namedtuple("Group", "key title xlabel")
# One measured case: where it plots and its numbers.
Point = collections.namedtuple("Point", "group series variant size label speedup frac_vendor frac_idgpu")

FFT_C2C = Group("fft_c2c_1d", "C2C / Z2Z 1D FFT", "transform size n")
FFT_REAL = Group("fft_real_1d", "R2C / C2R / D2Z / Z2D 1D FFT", "transform size n (real points)")
FFT_MULTI = Group("fft_multi_d", "2D / 3D FFT", "points per transform")
GTSV_STRIDED = Group("gtsv_strided_batch", "gtsv2StridedBatch", "rows per system m")
GTSV_INTERLEAVED = {algo: Group("gtsv_interleaved_batch_a%d" % algo, "gtsvInterleavedBatch, algo %d" % algo,
                                "rows per system m") for algo in range(3)}
GTSV2 = Group("gtsv_gtsv2", "gtsv2", "rows m")
GTSV2_NOPIVOT = Group("gtsv_gtsv2_nopivot", "gtsv2_nopivot", "rows m")
GROUP_ORDER = [FFT_C2C, FFT_REAL, FFT_MULTI, GTSV_STRIDED] + [GTSV_INTERLEAVED[a] for a in range(3)] + [
    GTSV2, GTSV2_NOPIVOT]

# Colours by transform kind or element type; the same precision keeps its colour across figures.
COLOURS = {
    "c2c f32": "tab:blue", "z2z f64": "tab:orange", "r2c f32": "tab:blue", "c2r f32": "tab:green",
    "d2z f64": "tab:orange", "z2d f64": "tab:red", "f32": "tab:blue", "f64": "tab:orange", "c32": "tab:green",
    "c64": "tab:red",
}
RUN_MARKERS = ["o", "s", "^", "D", "v", "P"]
SPEEDUP_TICKS = [1 / 64, 1 / 32, 1 / 16, 1 / 8, 0.25, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3, 4, 6, 8, 16, 32, 64, 128,
                 256, 512]
VARIANT_STYLES = ["-", "--", ":", "-."]


def parse_params(params):
    """'n=1024x1024 batch=64 out-of-place forward' -> {'n': '1024x1024', 'batch': '64'}, flags as True."""
    values = {}
    for word in params.split():
        key, equals, value = word.partition("=")
        values[key] = value if equals else True
    return values


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def classify(family, name, params):
    """Where a row plots: (group, series, variant, size, point label), or None."""
    values = parse_params(params)
    variant = []
    if family == "fft":
        # A named sweep's cases (sweep13_*, primes_*) are series of their own.
        match = re.match(r"^(?:(sweep13|primes)_)?(c2c|z2z|r2c|c2r|d2z|z2d)([23]d)?_(f32|f64)_", name)
        if not match or "n" not in values:
            return None
        dims = [int(d) for d in values["n"].split("x")]
        size = math.prod(dims)
        series = "%s %s" % (match.group(2), match.group(4))
        if match.group(1):
            variant.append(match.group(1))
        if values.get("in-place"):
            variant.append("in-place")
        if len(dims) > 1:
            group = FFT_MULTI
            series = "%s %dD" % (series, len(dims))
            cube = len(dims) == 3 and dims[0] == dims[1] == dims[2]
            label = "%d^3" % dims[0] if cube else "x".join(str(d) for d in dims)
        else:
            group = FFT_C2C if match.group(2) in ("c2c", "z2z") else FFT_REAL
            label = ""
            if size & (size - 1):
                variant.append("other sizes")
        return group, series, ", ".join(variant), size, label
    if family == "gtsv":
        precision = re.search(r"_(f32|f64|c32|c64)_", name + "_")
        api = params.split()[0] if params else ""
        if not precision or "m" not in values:
            return None
        size = int(values["m"])
        series = precision.group(1)
        if api == "gtsv2StridedBatch":
            group = GTSV_STRIDED
        elif api == "gtsvInterleavedBatch":
            group = GTSV_INTERLEAVED.get(int(values.get("algo", 0)))
        elif api in ("gtsv2", "gtsv2_nopivot"):
            group = GTSV2 if api == "gtsv2" else GTSV2_NOPIVOT
            if values.get("non-dominant"):
                variant.append("non-dominant")
            if int(values.get("n", 1)) > 1:
                variant.append("%s right-hand sides" % values["n"])
        else:
            return None
        return group, series, ", ".join(variant), size, ""
    return None


class Run:
    """One CSV: its points and what it was measured on."""

    def __init__(self, path, label=None):
        self.path = path
        self.points = []
        self.skipped = 0
        info = {}
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
        if not rows or "speedup" not in rows[0]:
            raise ValueError("%s is not an idgpu-bench CSV (no speedup column)" % path)
        # The small cases that measure host overhead (their own "overhead" rows follow) are not
        # points on a size curve.
        overhead_ids = {row["case"].rsplit("/", 1)[0] for row in rows if row.get("family") == "overhead"}
        for row in rows:
            family, name, params = row.get("family", ""), row.get("case", ""), row.get("params", "")
            if family in ("overhead", "ooc") or "%s/%s" % (family, name) in overhead_ids:
                continue
            speedup = number(row.get("speedup"))
            if row.get("status", "ok") != "ok" or speedup is None or speedup <= 0:
                self.skipped += 1
                continue
            where = classify(family, name, params)
            if where is None or where[0] is None:
                self.skipped += 1
                continue
            self.points.append(Point(*where, speedup, number(row.get("frac_copy_bw_vendor")),
                                     number(row.get("frac_copy_bw_idgpu"))))
            for key in ("device", "cufft", "cusparse", "idgpu", "policy", "driver"):
                if row.get(key) and key not in info:
                    info[key] = row[key]
        self.info = info
        self.label = label or "%s (%s)" % (info.get("device", "?"), os.path.basename(path))

    def caption(self, group):
        """Device and versions, for a figure's subtitle."""
        parts = [self.info.get("device", "")]
        vendor = "cuFFT" if group.key.startswith("fft") else "cuSPARSE"
        version = self.info.get("cufft" if vendor == "cuFFT" else "cusparse")
        if version:
            parts.append("%s %s" % (vendor, version))
        if self.info.get("idgpu"):
            parts.append("idgpu %s" % self.info["idgpu"] +
                         (" (policy %s)" % self.info["policy"] if self.info.get("policy") else ""))
        if self.info.get("driver"):
            parts.append("driver %s" % self.info["driver"])
        return ", ".join(part for part in parts if part)


def draw(axes, runs, group, bandwidth_axes=None, legend=True):
    """One group's curves on `axes` (and the bandwidth fractions on `bandwidth_axes`)."""
    several = len(runs) > 1
    plotted = False
    shapes = {}  # size -> [point labels, highest speedup]: the shapes at a size named once, above their points
    # Line styles by variant, the same in every run: plain cases solid.
    variants = sorted({point.variant for run in runs for point in run.points if point.group == group},
                      key=lambda variant: (variant != "", variant))
    for run_index, run in enumerate(runs):
        marker = RUN_MARKERS[run_index % len(RUN_MARKERS)]
        series = collections.defaultdict(list)
        for point in run.points:
            if point.group == group:
                series[(point.series, point.variant)].append(point)
        for (name, variant), points in sorted(series.items()):
            points.sort(key=lambda point: point.size)
            colour = COLOURS.get(re.sub(r" [23]D$", "", name))
            style = VARIANT_STYLES[variants.index(variant) % len(VARIANT_STYLES)]
            if group == FFT_MULTI and name.endswith("3D"):
                style = "--"
            label = name + (" (%s)" % variant if variant else "")
            if several:
                label = "%s: %s" % (run.label, label)
            sizes = [point.size for point in points]
            line, = axes.plot(sizes, [point.speedup for point in points], marker=marker, linestyle=style,
                              color=colour, label=label, markersize=5, linewidth=1.5)
            plotted = True
            for point in points:
                if point.label:
                    labels = shapes.setdefault(point.size, [[], 0])
                    if point.label not in labels[0]:
                        labels[0].append(point.label)
                    labels[1] = max(labels[1], point.speedup)
            if bandwidth_axes is not None:
                idgpu = [(p.size, p.frac_idgpu) for p in points if p.frac_idgpu is not None]
                vendor = [(p.size, p.frac_vendor) for p in points if p.frac_vendor is not None]
                if idgpu:
                    bandwidth_axes.plot(*zip(*idgpu), marker=marker, linestyle=style, color=line.get_color(),
                                        markersize=4, linewidth=1.5)
                if vendor:
                    bandwidth_axes.plot(*zip(*vendor), marker=marker, linestyle=style, color=line.get_color(),
                                        markersize=4, linewidth=1, alpha=0.45, markerfacecolor="none")
    for size, (labels, speedup) in shapes.items():
        axes.annotate(", ".join(labels), (size, speedup), textcoords="offset points", xytext=(0, 7), fontsize=7,
                      ha="center", color="dimgray")
    axes.axhline(1.0, color="black", linewidth=1, zorder=0)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log", base=2)
    # Speedups read as "1.5x" at round values, not as powers of two.
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    low, high = axes.get_ylim()
    low, high = min(low, 0.5), max(high, 2.0)
    axes.set_ylim(low, high)
    ticks = [tick for tick in SPEEDUP_TICKS if low <= tick <= high]
    if len(ticks) > 12:
        ticks = [tick for tick in ticks if math.log2(tick).is_integer()]
    axes.yaxis.set_major_locator(FixedLocator(ticks))
    axes.yaxis.set_minor_locator(NullLocator())
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%gx" % round(value, 3)))
    axes.grid(True, which="major", alpha=0.3)
    axes.set_ylabel("speedup (vendor time / idgpu time)")
    axes.set_title(group.title)
    if legend and plotted:
        axes.legend(fontsize=8, loc="best")
    if bandwidth_axes is not None:
        bandwidth_axes.set_xscale("log", base=2)
        bandwidth_axes.set_ylim(0, 1.05)
        bandwidth_axes.grid(True, alpha=0.3)
        bandwidth_axes.set_ylabel("fraction of copy bandwidth\n(solid idgpu, faint vendor)")
        bandwidth_axes.set_xlabel(group.xlabel)
    else:
        axes.set_xlabel(group.xlabel)
    return plotted


def main(argv=None):
    parser = argparse.ArgumentParser(description="Speedup-versus-size PNGs from idgpu-bench CSV files.")
    parser.add_argument("csv", nargs="+", help="idgpu-bench --csv output; several are drawn together")
    parser.add_argument("-o", "--output", default=".", help="directory for the PNGs (default: the current one)")
    parser.add_argument("--title", default="idgpu vs the vendor library", help="the title above each figure")
    parser.add_argument("--label", action="append", default=[],
                        help="the legend's name of each CSV, in order (default: device and file name)")
    parser.add_argument("--bandwidth", action="store_true",
                        help="add a panel with the fraction of copy bandwidth each side reached")
    parser.add_argument("--overview", action="store_true",
                        help="also write overview.png, every family in one figure")
    parser.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.csv):
        parser.error("--label is given %d times for %d CSV files" % (len(args.label), len(args.csv)))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    try:
        runs = [Run(path, args.label[index] if args.label else None) for index, path in enumerate(args.csv)]
    except (OSError, ValueError, csv.Error) as error:
        parser.exit(1, "plot.py: %s\n" % error)
    for run in runs:
        if run.skipped:
            print("plot.py: %s: %d rows left out (failed, mismatched or not a size curve)" % (run.path, run.skipped),
                  file=sys.stderr)
    os.makedirs(args.output, exist_ok=True)
    groups = [group for group in GROUP_ORDER if any(point.group == group for run in runs for point in run.points)]
    if not groups:
        parser.exit(1, "plot.py: no plottable rows in %s\n" % ", ".join(args.csv))

    written = []
    for group in groups:
        if args.bandwidth:
            figure, (axes, bandwidth_axes) = pyplot.subplots(
                2, 1, figsize=(8, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
        else:
            figure, axes = pyplot.subplots(figsize=(8, 5))
            bandwidth_axes = None
        draw(axes, runs, group, bandwidth_axes)
        captions = sorted({run.caption(group) for run in runs} - {""})
        figure.suptitle("%s: %s" % (args.title, group.title) + ("\n" + "; ".join(captions) if captions else ""),
                        fontsize=10)
        axes.set_title("")
        figure.tight_layout()
        path = os.path.join(args.output, group.key + ".png")
        figure.savefig(path, dpi=args.dpi)
        pyplot.close(figure)
        written.append(path)

    if args.overview:
        columns = min(3, len(groups))
        rows = (len(groups) + columns - 1) // columns
        figure, grid = pyplot.subplots(rows, columns, figsize=(6 * columns, 4.2 * rows), squeeze=False)
        for index, group in enumerate(groups):
            draw(grid[index // columns][index % columns], runs, group)
        for index in range(len(groups), rows * columns):
            grid[index // columns][index % columns].set_visible(False)
        captions = sorted({run.caption(group) for run in runs for group in groups[:1]} - {""})
        figure.suptitle(args.title + ("\n" + "; ".join(captions) if captions else ""), fontsize=12)
        figure.tight_layout()
        path = os.path.join(args.output, "overview.png")
        figure.savefig(path, dpi=args.dpi)
        pyplot.close(figure)
        written.append(path)

    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
