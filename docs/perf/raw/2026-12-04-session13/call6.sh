#!/bin/bash
# Session 13 call 6 (test binaries of 9c3b337, the bundle of 1cccd3c: same
# device code): the GPU tests the MSM changes touch, with CUZK_GPU_SLOW=1 so
# that all 4 partitions of an 8 MiB sector (H MSM 2^24 - 1 scalars:
# window-major digits) are compared byte for byte with the CPU backend's
# proofs; the H step alone; the disk's read rate after a page-cache drop,
# one stream against four (issue 17).
set -u
mkdir -p /tmp/tt && tar xJf out/tests.tar.xz -C /tmp/tt
export LD_LIBRARY_PATH=/tmp/tt
: > $OUT/summary.txt
for t in msm_gpu_test groth16_gpu_test; do
  timeout 200 /tmp/tt/$t > $OUT/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ')" >> $OUT/summary.txt
done
CUZK_GPU_SLOW=1 timeout 300 /tmp/tt/witness_only_gpu_test > $OUT/witness_only_gpu_test.log 2>&1
echo "witness_only_gpu_test (CUZK_GPU_SLOW=1) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/witness_only_gpu_test.log | tr '\n' ' ')" >> $OUT/summary.txt
grep -E "8MiB" $OUT/witness_only_gpu_test.log >> $OUT/summary.txt
mkdir -p /tmp/b && tar -xzf out/cuzk-h200.tar.gz -C /tmp/b
B=$(echo /tmp/b/cuzk-*/)
timeout 120 $B/bin/cuzk-gpu-bench h --log-sizes 24,27 --warmups 1 --repeats 3 --cpu-check-max-log 20 > $OUT/h.log 2>&1
tail -6 $OUT/h.log >> $OUT/summary.txt
# Disk: an 8 GiB file written, the page cache dropped, read by one dd, dropped
# again, read by four dd on its quarters at once.
F=/var/tmp/readrate.bin
df -h /var/tmp >> $OUT/summary.txt
dd if=/dev/urandom of=$F bs=64M count=128 status=none; sync
echo 3 > /proc/sys/vm/drop_caches
start=$(date +%s.%N)
dd if=$F of=/dev/null bs=8M status=none
echo "one stream: $(awk -v a=$start -v b=$(date +%s.%N) 'BEGIN { printf "%.2f s, %.2f GB/s", b - a, 8.59 / (b - a) }') for 8 GiB" >> $OUT/summary.txt
echo 3 > /proc/sys/vm/drop_caches
start=$(date +%s.%N)
for q in 0 1 2 3; do dd if=$F of=/dev/null bs=8M skip=$((q * 256)) count=256 status=none & done; wait
echo "four streams: $(awk -v a=$start -v b=$(date +%s.%N) 'BEGIN { printf "%.2f s, %.2f GB/s", b - a, 8.59 / (b - a) }') for 8 GiB" >> $OUT/summary.txt
rm -f $F
cd $OUT && tar czf logs.tgz *.log && rm -f *.log
cat $OUT/summary.txt
