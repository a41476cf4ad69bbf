#!/bin/bash
# Session 13 call 3 (cuzk-gpu-bench of the working tree after ef5af49, as in
# call 2): longer chunks (256 won everywhere in call 2), G2 segment lengths
# around 32, G1 segment lengths at 2^26, and the compact path's chunk on
# witness-like scalars (the daemon's A/B/L MSMs).
set -u
chmod +x out/gb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
R="--warmups 1 --repeats 3 --cpu-check-max-log 14"
{
echo "== G1 24,26 chunks"
timeout 150 out/gb msm --curve g1 --log-sizes 24,26 --window-major 1 --chunk 256,512,1024,2048 $R --seed 151
echo "== G1 26 segments"
timeout 100 out/gb msm --curve g1 --log-sizes 26 --window-major 1 --chunk 512 --segment-len 64,1024 $R --seed 152
echo "== G1 27 chunks"
timeout 150 out/gb msm --curve g1 --log-sizes 27 --window-major 1 --chunk 256,512,1024 --warmups 1 --repeats 2 --cpu-check-max-log 14 --seed 153
echo "== G2 22"
timeout 150 out/gb msm --curve g2 --log-sizes 22 --window-major 1 --chunk 256,512,1024 --segment-len 32,64,128 $R --seed 154
echo "== G1 witness-like 26 (compact)"
timeout 100 out/gb msm --curve g1 --log-sizes 24,26 --zeros-permille 515 --ones-permille 470 --chunk 64,256,1024 $R --seed 155
echo "== G2 witness-like 24 (compact)"
timeout 100 out/gb msm --curve g2 --log-sizes 24 --zeros-permille 515 --ones-permille 470 --chunk 64,256,1024 $R --seed 156
} > $OUT/msm.log 2>&1
grep -E "^== |^\| (lg|[0-9])|overall" $OUT/msm.log | cut -d'|' -f2-18
