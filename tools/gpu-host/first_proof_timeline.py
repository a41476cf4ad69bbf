#!/usr/bin/env python3
"""A daemon's first proof, step by step, from its log (run here on the logs a
device call fetched; docs/perf/gpu.md's cold-start tables come from it).

  python3 tools/gpu-host/first_proof_timeline.py daemon-pair1-base.log daemon-pair1-this.log

Seconds from the daemon's first log line to: the job queued, the set's load
start (SRS_LOAD minus its load_ms), the set loaded, the GPUs prepared
(GPU_PREPARE), "GPU work" (the later of the first GPU_START and GPU_PREPARE:
when a partition may start on the GPU) and the job's completed line; then the
key stream's and the circuit upload's ms from GPU_KEY_IMAGE ("-" when absent).
"""
import datetime
import re
import sys


def stamp(line):
    return datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def first(lines, pattern):
    for line in lines:
        if re.search(pattern, line):
            return line
    return None


def field(line, name):
    m = re.search(r"[,]" + name + r"=(\d+)", line) if line else None
    return m.group(1) if m else "-"


def main(paths):
    for path in paths:
        lines = open(path).read().splitlines()
        t0 = stamp(lines[0])
        queued, load, prepare, start, done, image = (
            first(lines, p) for p in
            (r"queued:", r"SRS_LOAD,", r"GPU_PREPARE,device", r"GPU_START", r"completed: total", r"GPU_KEY_IMAGE"))
        if not (queued and load and done):
            print(f"{path}: no job, load or completion line")
            continue
        loaded = stamp(load) - t0
        load_ms = field(load, "load_ms")
        load_start = loaded - int(load_ms) / 1000 if load_ms != "-" else float("nan")
        prepared = stamp(prepare) - t0 if prepare else loaded
        gpu_work = max(stamp(start) - t0 if start else loaded, prepared)
        print(f"{path.split('/')[-1]:28s} queued {stamp(queued) - t0:5.2f}  load_start {load_start:5.2f}  "
              f"loaded {loaded:5.2f}  prepared {prepared:5.2f}  gpu_work {gpu_work:5.2f}  "
              f"completed {stamp(done) - t0:6.2f}  stream_ms {field(image, 'ms')} circuit_ms {field(image, 'circuit_ms')}")


if __name__ == "__main__":
    main(sys.argv[1:])
