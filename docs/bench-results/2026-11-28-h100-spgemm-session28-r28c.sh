cd .devspmv
xz -dkf cuda_backend.xz && chmod +x cuda_backend; xz -dkf bench.xz && chmod +x bench
export SPBLK_BACKEND=cuda
./cuda_backend 2>&1 | grep -E "test result|FAILED|failed|SKIPPED|panicked" | head -20
for alg in default alg3; do
  timeout 200 ./bench --full --ops spgemm --spgemm-alg $alg > f-$alg.txt 2>&1; grep -E "geomean|RESULT" f-$alg.txt; cp f-$alg.txt $OUT/
done
