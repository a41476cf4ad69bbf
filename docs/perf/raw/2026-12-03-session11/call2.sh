#!/bin/bash
# Session 11 call 2: why MulDfma is slower than Mul (call 1: 17.6 vs 26.2 G/s):
# SASS opcode counts of the chain kernels and ncu pipe utilisation.
set -u
tar xzf out/s11.tgz -C /tmp && cd /tmp/s11
export LD_LIBRARY_PATH=$PWD/lib
cuobjdump -sass ./cuzk-gpu-bench > /tmp/sass.txt 2>&1
python3 - > $OUT/sass-counts.txt <<'PY'
import re, collections
cur = None; counts = {}
for line in open('/tmp/sass.txt'):
    m = re.search(r'Function : (\S+)', line)
    if m:
        cur = m.group(1) if ('MulChainKernel' in m.group(1) or 'AccumulateKernel' in m.group(1)) else None
        if cur: counts[cur] = collections.Counter()
        continue
    if cur:
        m = re.match(r'\s+/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if m: counts[cur][m.group(1).split('.')[0]] += 1
for f, c in counts.items():
    print(f[-90:], sum(c.values()))
    print('   ', ' '.join(f'{k}:{v}' for k, v in c.most_common(25)))
PY
M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active
timeout 60 ./cuzk-gpu-bench field --n 4096 > $OUT/field.log 2>&1
timeout 200 ncu --clock-control none --kernel-name regex:MulChainKernel --launch-count 72 --section WarpStateStats --section Occupancy --metrics $M ./cuzk-gpu-bench field --n 4096 > $OUT/ncu-field.txt 2>&1; echo "ncu rc=$?" >> $OUT/sass-counts.txt
cd $OUT && grep throughput field.log && cat sass-counts.txt && grep -c MulChainKernel ncu-field.txt && tail -5 ncu-field.txt
