set -x
cd .devspmv
xz -dkf cuda_backend.xz && chmod +x cuda_backend
xz -dkf bench.xz && chmod +x bench
export SPBLK_BACKEND=cuda
./cuda_backend spgemm algorithms 2>&1 | grep -E "^test |test result|SKIPPED|panicked" | head -40
compute-sanitizer --tool memcheck ./cuda_backend spgemm_alg3 2>&1 | grep -E "ERROR SUMMARY|test result|Invalid" | head
SPBLK_TEST_QUICK=1 compute-sanitizer --tool memcheck --kernel-name kns=spblk_spgemm ./cuda_backend spgemm_matches 2>&1 | grep -E "ERROR SUMMARY|test result|Invalid" | head
compute-sanitizer --tool racecheck --kernel-name kns=spblk_spgemm ./cuda_backend spgemm_alg3 2>&1 | grep -E "RACECHECK SUMMARY|ERROR SUMMARY|test result" | head
for alg in default alg3 alg2; do
  ./bench --quick --ops spgemm --spgemm-alg $alg > q-$alg.txt 2>&1; tail -n 16 q-$alg.txt; cp q-$alg.txt $OUT/
done
