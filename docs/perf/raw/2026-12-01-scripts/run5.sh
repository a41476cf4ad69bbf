set -u
b=.gpubin
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
for t in ntt_gpu_test msm_gpu_test groth16_gpu_test; do
  s=$(date +%s); $b/$t --gtest_brief=1 > $OUT/$t.log 2>&1; rc=$?; echo "$t rc=$rc $(( $(date +%s)-s ))s: $(grep -E 'PASSED|FAILED' $OUT/$t.log | tr '\n' ' ')"
done
s=$(date +%s); $b/cuzk-gpu-bench ntt --log-sizes 20,22,24,26,27 --radix-logs 2 --fuse 1 --narrow 1,0 --check-max-log 24 --repeats 9 > $OUT/ntt.log 2>&1; echo "ntt rc=$? $(( $(date +%s)-s ))s"
s=$(date +%s); timeout 300 $b/cuzk-gpu-bench kernels --ntt 24,27 --g1 24,26 --g2 22 --cpu-check-max-log 26 > $OUT/kernels.log 2>&1; echo "kernels rc=$? $(( $(date +%s)-s ))s"
echo "== ntt"; grep "^| " $OUT/ntt.log
echo "== kernels"; tail -12 $OUT/kernels.log
