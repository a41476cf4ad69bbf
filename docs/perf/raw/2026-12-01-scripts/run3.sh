set -u
b=.gpubin
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
s=$(date +%s); $b/ntt_gpu_test --gtest_brief=1 > $OUT/ntt_gpu_test.log 2>&1; echo "ntt_gpu_test rc=$? $(( $(date +%s)-s ))s: $(grep -E 'PASSED|FAILED' $OUT/ntt_gpu_test.log | tr '\n' ' ')"
s=$(date +%s); $b/cuzk-gpu-bench ntt --log-sizes 20,22,24,26,27 --radix-logs 2 --fuse 1 --swizzle 1,0 --check-max-log 24 --repeats 9 > $OUT/ntt.log 2>&1; echo "ntt rc=$? $(( $(date +%s)-s ))s"
s=$(date +%s); $b/cuzk-gpu-bench ntt --log-sizes 24 --radix-logs 2 --fuse 1 --swizzle 0,1 --check-max-log 0 --repeats 9 > $OUT/ntt_again.log 2>&1; echo "ntt again rc=$? $(( $(date +%s)-s ))s"
s=$(date +%s); timeout 300 $b/cuzk-gpu-bench kernels --ntt 24,27 --g1 24,26 --g2 22 --cpu-check-max-log 26 > $OUT/kernels.log 2>&1; echo "kernels rc=$? $(( $(date +%s)-s ))s"
echo "== ntt"; grep "^| " $OUT/ntt.log; grep "^| " $OUT/ntt_again.log
echo "== kernels"; tail -12 $OUT/kernels.log
