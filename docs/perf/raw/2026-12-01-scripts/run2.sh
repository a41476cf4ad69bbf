set -u
b=.gpubin
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
for t in ntt_gpu_test msm_gpu_test groth16_gpu_test; do
  s=$(date +%s); $b/$t --gtest_brief=1 > $OUT/$t.log 2>&1; rc=$?; echo "$t rc=$rc $(( $(date +%s)-s ))s: $(grep -E 'PASSED|FAILED' $OUT/$t.log | tr '\n' ' ')"
done
s=$(date +%s); $b/cuzk-gpu-bench ntt --log-sizes 24,27 --radix-logs 2 --fuse 1 --skip-unit 1,0 --specialize 1,0 --check-max-log 24 --repeats 9 > $OUT/ntt.log 2>&1; echo "ntt rc=$? $(( $(date +%s)-s ))s"
s=$(date +%s); $b/cuzk-gpu-bench msm --log-sizes 24,26 --zeros-permille 515 --ones-permille 470 --split-ones 1,0 --cpu-check-max-log 0 > $OUT/msm_witness.log 2>&1; echo "msm witness rc=$? $(( $(date +%s)-s ))s"
s=$(date +%s); timeout 300 $b/cuzk-gpu-bench kernels --ntt 24,27 --g1 24,26 --g2 22 --cpu-check-max-log 26 > $OUT/kernels.log 2>&1; echo "kernels rc=$? $(( $(date +%s)-s ))s"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== ntt"; grep "^| " $OUT/ntt.log
echo "== msm witness"; grep -E "^\| " $OUT/msm_witness.log
echo "== kernels"; tail -12 $OUT/kernels.log
