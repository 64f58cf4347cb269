"""Build benchmark: wall time per config and in total, peak RSS, and the PNG encode floor.

The encode floor is the time to PNG-encode, once each, just the distinct images the build
wrote (decoded from the Parquet files beforehand, not timed), with the builder's own encoder
settings: the least any build that writes these images could cost. Targets on a quiet 2-core
machine with ``--num-proc 2`` (:data:`TARGETS`): ``base`` total < 90 s, rows written
(generation, rows, checks; the shortcut ceilings apart) <= 1.2 x encode floor, peak RSS < 2 GiB;
``standard`` < 10 min and ``miniworld_standard`` < 15 min in total. CPU
seconds (user + sys of this process and its workers) sit beside the wall times: on a loaded
machine they say what the build cost when wall time cannot. A config's own line is the time
from the previous config's rows written to its own: the workers build later configs' shards
ahead (``dataset/row_pool.py``), so the totals are the build's figures.

    python benchmarks/bench_build.py --profile base --num-proc 2 [--configs task_c,task_d]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

TARGETS: dict[str, dict[str, float]] = {
    "base": {"total_s": 90, "rows_over_floor": 1.2, "rss_mib": 2048},
    "standard": {"total_s": 600},
    "miniworld_standard": {"total_s": 900},
}
"""Each profile's targets; a profile without one prints none."""


def _target(profile: str, key: str, text: str) -> str:
    value = TARGETS.get(profile, {}).get(key)
    return "" if value is None else text.format(value)


def peak_rss_mib() -> dict[str, float]:
    """Peak RSS of this process and of its largest finished child (worker), in MiB."""
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"main": self_kb / 1024, "largest_child": child_kb / 1024}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished children (workers)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def encode_floor(folder: Path, configs: tuple[str, ...]) -> dict[str, float]:
    """Seconds to PNG-encode each distinct written image once (decode untimed)."""
    import pyarrow.parquet as pq
    from PIL import Image

    from gridwm_judge.dataset.png_store import PngCache

    encoder = PngCache()
    seen: set[bytes] = set()
    seconds = 0.0
    pixels = written = 0
    for config in configs:
        for f in sorted((folder / "data" / config).glob("test-*.parquet")):
            pf = pq.ParquetFile(f)
            for i in range(pf.num_row_groups):
                for images in pf.read_row_group(i, columns=["images"]).column("images").to_pylist():
                    for im in images:
                        written += 1
                        digest = hashlib.sha256(im["bytes"]).digest()
                        if digest in seen:
                            continue
                        seen.add(digest)
                        decoded = Image.open(io.BytesIO(im["bytes"]))
                        decoded.load()
                        pixels += decoded.width * decoded.height
                        t0 = time.perf_counter()
                        encoder.encode(decoded)
                        seconds += time.perf_counter() - t0
    return {"seconds": seconds, "distinct_images": len(seen), "megapixels": pixels / 1e6,
            "images_written": written}


def main(argv: list[str] | None = None) -> int:
    from gridwm_judge.dataset.export import build_dataset

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--profile", default="base")
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--configs", default=None, help="comma-separated subset")
    ap.add_argument("--out", default=None, help="keep the build here (default: a temp dir)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    configs = [c for c in args.configs.split(",") if c] if args.configs else None

    with tempfile.TemporaryDirectory(prefix="gwj-bench-") as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "gwj"
        cpu0 = cpu_seconds()
        report = build_dataset(out, args.profile, num_proc=args.num_proc, configs=configs,
                               overwrite=bool(args.out))
        cpu = cpu_seconds() - cpu0
        rss = peak_rss_mib()
        floor = encode_floor(report.out, report.configs)
        size_mb = sum(f.stat().st_size for f in (report.out / "data").rglob("*.parquet")) / 1e6

    figures = {
        "profile": args.profile, "num_proc": args.num_proc,
        "rows": report.rows,
        "seconds_per_config": {c: round(s, 2) for c, s in report.seconds.items()},
        "generation_seconds": round(report.generation_seconds, 2),
        "total_seconds": round(report.total_seconds, 2),
        "encode_floor_seconds": round(floor["seconds"], 2),
        "distinct_images": floor["distinct_images"],
        "megapixels": round(floor["megapixels"], 1),
        "build_over_floor": round(report.total_seconds / max(floor["seconds"], 1e-9), 2),
        "rows_over_floor": round(report.seconds_before_ceilings / max(floor["seconds"], 1e-9), 2),
        "ceilings_seconds": round(report.ceilings_seconds, 2),
        "cpu_seconds": round(cpu, 1),
        "images_encoded": report.images_encoded,
        "images_written": floor["images_written"],
        "seconds_before_ceilings": round(report.seconds_before_ceilings, 2),
        "peak_rss_mib": {k: round(v, 1) for k, v in rss.items()},
        "parquet_mb": round(size_mb, 1),
    }
    print(f"profile {args.profile}, num_proc {args.num_proc}")
    print(f"  group generation      {report.generation_seconds:8.1f} s")
    for c, s in report.seconds.items():
        print(f"  {c:<20}  {s:8.1f} s   {report.rows[c]:6d} rows")
    print(f"  total                 {report.total_seconds:8.1f} s   ("
          f"{_target(args.profile, 'total_s', 'target < {:g} s; ')}{cpu:.0f} CPU s)")
    print(f"  encode floor          {floor['seconds']:8.1f} s   "
          f"{floor['distinct_images']} distinct images, {floor['megapixels']:.0f} MP")
    print(f"  rows written, checked {report.seconds_before_ceilings:8.1f} s   (before the "
          "shortcut ceilings are measured)")
    print(f"  shortcut ceilings     {report.ceilings_seconds:8.1f} s")
    print(f"  rows written / floor  {figures['rows_over_floor']:8.2f}"
          f"{_target(args.profile, 'rows_over_floor', '     (target <= {:g})')}")
    print(f"  total / floor         {figures['build_over_floor']:8.2f}")
    print(f"  images encoded        {report.images_encoded:8d}     of {floor['images_written']} "
          "written (each distinct image once)")
    print(f"  peak RSS              {max(rss.values()):8.0f} MiB (main {rss['main']:.0f}, largest "
          f"worker {rss['largest_child']:.0f}"
          f"{_target(args.profile, 'rss_mib', '; target < {:g}')})")
    print(f"  Parquet size          {size_mb:8.1f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
