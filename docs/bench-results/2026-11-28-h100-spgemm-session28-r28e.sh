cd .devspmv
xz -dkf bench.xz && chmod +x bench
mkdir -p mtx && tar -C mtx -xJf matrices.tar.xz
for alg in alg3 alg2 default; do
  ./bench --mtx mtx/*.mtx --ops spgemm --spgemm-alg $alg > m-$alg.txt 2>&1; grep -E "geomean|RESULT" m-$alg.txt; cp m-$alg.txt $OUT/
done
