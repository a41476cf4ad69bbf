#!/usr/bin/env bash
# One device-tool call: where an 8 MiB partition's witness MSMs and H step
# spend their time (issue 15: ~161 ms a partition, ~150 needed; the daemon's
# step minima: msm_a 5.0, msm_b_g1 3.6, msm_l 4.9, msm_b_g2 11.2 ms, session
# 13 call 5). Witness-like scalars as measured (docs/perf/gpu.md,
# witness-stats): A and L ~10 M scalars, 52% zero, 47.5% one; B ~2.6 M, 49%
# zero, 49% one. Totals with their stage breakdown, then per kernel under ncu
# (ncu's base clocks run ~25% slower than the timed runs).
#   OUT=$OUT bash tools/gpu-host/witness_msm_profile_run.sh out/gb
set -u
G=${1:?usage: witness_msm_profile_run.sh CUZK_GPU_BENCH}
chmod +x $G
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
W1="--zeros-permille 520 --ones-permille 475"
W2="--zeros-permille 492 --ones-permille 489"
{
timeout 60 $G msm --curve g1 --log-sizes 23 $W1 --chunk 0,16,32 --warmups 1 --repeats 5 --cpu-check-max-log 14 --seed 141
timeout 60 $G msm --curve g1 --log-sizes 21 $W2 --chunk 0,16,32 --warmups 1 --repeats 5 --cpu-check-max-log 14 --seed 142
timeout 60 $G msm --curve g2 --log-sizes 21 $W2 --chunk 0,16,32 --warmups 1 --repeats 5 --cpu-check-max-log 14 --seed 143
timeout 60 $G msm --curve g2 --log-sizes 21 $W2 --split-ones 1,0 --warmups 1 --repeats 5 --cpu-check-max-log 14 --seed 144
timeout 60 $G h --log-sizes 24 --warmups 1 --repeats 5 --cpu-check-max-log 14 --seed 145
} > $OUT/msm.log 2>&1
timeout 90 ncu --metrics gpu__time_duration.sum --csv $G msm --curve g1 --log-sizes 23 $W1 --warmups 0 --repeats 1 --cpu-check-max-log 10 --seed 146 > $OUT/kern-g1-23.csv 2>&1
timeout 90 ncu --metrics gpu__time_duration.sum --csv $G msm --curve g2 --log-sizes 21 $W2 --warmups 0 --repeats 1 --cpu-check-max-log 10 --seed 147 > $OUT/kern-g2-21.csv 2>&1
timeout 90 ncu --metrics gpu__time_duration.sum --csv $G h --log-sizes 24 --warmups 0 --repeats 1 --cpu-check-max-log 10 --seed 148 > $OUT/kern-h-24.csv 2>&1
# A real 8 MiB partition, alone on one lane (its set-up's kernels, MulKernel
# and ToAffineKernel, are in the sums too: set them apart).
timeout 240 ncu --metrics gpu__time_duration.sum --csv $G partition --sector-size 8MiB --shifted 1 --warmups 0 --repeats 1 --seed 149 > $OUT/kern-partition-8mib.csv 2>&1
grep -E "^\| (lg|[0-9])|overall|median" $OUT/msm.log | grep -v "^2^" 
for f in $OUT/kern-*.csv; do
  echo "== $f"
  python3 - "$f" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ui = h.index("Metric Unit")
tot = collections.OrderedDict(); cnt = collections.Counter()
for r in rows[1:]:
    try: v = float(r[vi].replace(",", ""))
    except: continue
    scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}.get(r[ui], 1e-6)
    name = r[ki].split("(")[0][:70]
    tot[name] = tot.get(name, 0) + v * scale; cnt[name] += 1
for k, v in sorted(tot.items(), key=lambda x: -x[1])[:25]: print(f"{v:9.3f} ms  x{cnt[k]:4d}  {k}")
print(f"{sum(tot.values()):9.3f} ms total")
PY
done
