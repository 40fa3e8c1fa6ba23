// Probe: the one-block SpSV solve (kernels/spsv/one_block.cu) alone, on the lower triangle of a
// Matrix Market file, without the library's analysis: the levels, the solve order and the
// staged layout are built here on the host, the block kernel is launched directly and timed
// (CUDA events, median of 50), and its result compared bit for bit with the host's sums in the
// kernels' order (storage order by a thread; lane-strided and a fixed tree for warp rows).
// Lets a change of the kernel be measured in a minute instead of a library build
// (docs/spsv.md, session 32). Standalone; on the GPU machine:
//   nvcc -std=c++17 -O3 -arch=sm_90 -I kernels -o spsv_block bench/probes/spsv_block.cu
//   ./spsv_block a.mtx [b.mtx ...]
// -DSPSV_BLOCK_SOURCE='"path.cu"' builds it against another version of the kernel file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#ifndef SPSV_BLOCK_SOURCE
#define SPSV_BLOCK_SOURCE "spsv/one_block.cu"
#endif
#include SPSV_BLOCK_SOURCE

#define CK(x)                                                                       \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_) {                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                         \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

struct Lower {  // lower triangle in row order, the diagonal apart
    int n = 0;
    std::vector<std::vector<std::pair<int, double>>> rows;  // strictly lower entries, by column
    std::vector<double> diag;
};

static bool read_lower(const char* path, Lower& a) {
    FILE* f = fopen(path, "r");
    if (!f) return false;
    char line[1024];
    bool symmetric = false, pattern = false;
    if (!fgets(line, sizeof line, f)) return false;
    symmetric = strstr(line, "symmetric") != nullptr;
    pattern = strstr(line, "pattern") != nullptr;
    do {
        if (!fgets(line, sizeof line, f)) return false;
    } while (line[0] == '%');
    long m, n, nnz;
    if (sscanf(line, "%ld %ld %ld", &m, &n, &nnz) != 3 || m != n) return false;
    a.n = (int)n;
    a.rows.assign(n, {});
    std::vector<double> off(n, 0.0);
    for (long k = 0; k < nnz; ++k) {
        long i, j;
        double v = 1.0;
        if (!fgets(line, sizeof line, f)) return false;
        if (pattern ? sscanf(line, "%ld %ld", &i, &j) != 2 : sscanf(line, "%ld %ld %lf", &i, &j, &v) < 2) return false;
        --i, --j;
        if (i == j) continue;
        off[i] += fabs(v);
        if (symmetric) off[j] += fabs(v);
        if (j < i) a.rows[i].push_back({(int)j, v});
        if (symmetric && i < j) a.rows[j].push_back({(int)i, v});
    }
    fclose(f);
    a.diag.resize(n);
    for (long i = 0; i < n; ++i) {
        auto& r = a.rows[i];
        std::sort(r.begin(), r.end());
        // repeats merged
        std::vector<std::pair<int, double>> u;
        for (auto& e : r)
            if (!u.empty() && u.back().first == e.first) u.back().second += e.second;
            else u.push_back(e);
        r = u;
        a.diag[i] = 1.0 + off[i];
    }
    return true;
}

// The warp rows' sum: lane l adds entries l, l + 32, ... in order, then the tree of
// __shfl_down_sync (offsets 16 .. 1) into lane 0.
static double lanes_sum(const double* v, const double* h, int len) {
    double part[32] = {0};
    for (int l = 0; l < 32; ++l)
        for (int q = l; q < len; q += 32) part[l] = part[l] + v[q] * h[q];
    for (int o = 16; o > 0; o >>= 1)
        for (int l = 0; l < o; ++l) part[l] = part[l] + part[l + o];
    return part[0];
}

static void probe(const char* path) {
    Lower a;
    if (!read_lower(path, a)) {
        printf("%s: not read\n", path);
        return;
    }
    const int n = a.n;
    std::vector<unsigned> level(n);
    unsigned levels = 0;
    long kept = 0;
    for (int i = 0; i < n; ++i) {
        unsigned l = 1;
        for (auto& e : a.rows[i]) l = std::max(l, level[e.first] + 1);
        level[i] = l;
        levels = std::max(levels, l);
        kept += (long)a.rows[i].size();
    }
    std::vector<unsigned> order(n), pos(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](unsigned x, unsigned y) { return level[x] < level[y]; });
    for (int s = 0; s < n; ++s) pos[order[s]] = s;
    std::vector<unsigned> ptr(n + 1, 0), col, level_start(levels + 1, 0);
    std::vector<double> val, diag(n), x(n);
    for (int s = 0; s < n; ++s) {
        const unsigned i = order[s];
        for (auto& e : a.rows[i]) {
            col.push_back(pos[e.first]);
            val.push_back(e.second);
        }
        ptr[s + 1] = (unsigned)col.size();
        diag[s] = a.diag[i];
        if (s == 0 || level[order[s - 1]] != level[i]) level_start[level[i] - 1] = s;
    }
    level_start[levels] = n;
    srand(7);
    for (int i = 0; i < n; ++i) x[i] = (double)rand() / RAND_MAX - 0.5;
    const bool warp = (kept + n) / n >= 16;  // as the library (A = the triangle with its diagonal)
    // The host's solve in the kernels' order.
    std::vector<double> y(n), held(n);
    for (int s = 0; s < n; ++s) {
        const unsigned p = ptr[s], e = ptr[s + 1];
        std::vector<double> h(e - p);
        for (unsigned q = p; q < e; ++q) h[q - p] = held[col[q]];
        double sum = 0.0;
        if (warp || e - p > SPSV_LONG_ROW) {
            sum = lanes_sum(&val[p], h.data(), (int)(e - p));
        } else {
            for (unsigned q = p; q < e; ++q) sum = sum + val[q] * h[q - p];
        }
        double r = 1.0 * x[order[s]] - sum;
        r = r / diag[s];
        held[s] = r;
        y[order[s]] = r;
    }
    // Device arrays.
    unsigned *d_ls, *d_ptr, *d_col, *d_row, *d_tickets;
    double *d_val, *d_diag, *d_x, *d_y, *d_ready;
    CK(cudaMalloc(&d_ls, (levels + 1) * 4));
    CK(cudaMalloc(&d_ptr, (n + 1) * 4));
    CK(cudaMalloc(&d_col, std::max(kept, 1L) * 4));
    CK(cudaMalloc(&d_row, n * 4));
    CK(cudaMalloc(&d_tickets, 32));
    CK(cudaMalloc(&d_val, std::max(kept, 1L) * 8));
    CK(cudaMalloc(&d_diag, n * 8));
    CK(cudaMalloc(&d_x, n * 8));
    CK(cudaMalloc(&d_y, n * 8));
    CK(cudaMalloc(&d_ready, n * 8));
    CK(cudaMemcpy(d_ls, level_start.data(), (levels + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ptr, ptr.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_col, col.data(), kept * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_row, order.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_val, val.data(), kept * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_diag, diag.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, x.data(), n * 8, cudaMemcpyHostToDevice));
    const unsigned tickets[8] = {0, 0, SPSV_SOLVE_BLOCK, levels, 0, 0, 0, 0};
    CK(cudaMemcpy(d_tickets, tickets, 32, cudaMemcpyHostToDevice));
    // Shared memory as the library's block_shared(): everything staged, else the rows, else the
    // published values alone.
    int optin = 0;
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    auto round16 = [](size_t b) { return (b + 15) & ~(size_t)15; };
    const size_t rows = 3 * round16(n * 8) + 3 * round16((n + 1) * 4);
    const size_t all = rows + round16(kept * 8) + round16(kept * 4), limit = optin - 1024;
    const size_t shared = all <= limit ? all : rows <= limit ? rows : round16(n * 8);
    if (round16(n * 8) > limit) {
        printf("%s: too large for one block\n", path);
        return;
    }
    auto kernel = warp ? spblk_spsv_once_warp_f64 : spblk_spsv_once_rows_f64;  // block 0 solves
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    // PROBE_UNIT=1: a unit diagonal (no division; the bits then differ from the host's), to see
    // what the division costs a level.
    const int unit = getenv("PROBE_UNIT") && atoi(getenv("PROBE_UNIT"));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int rep = 0; rep < 60; ++rep) {
        CK(cudaEventRecord(e0));
        kernel<<<1, SPSV_BLOCK_THREADS, shared>>>(n, nullptr, d_ls, d_ptr, d_col, d_val, d_diag, d_row, unit, d_x, d_y,
                                                  d_tickets, d_ready, (unsigned)shared, nullptr, 1.0);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (rep >= 10) ms.push_back(t);
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    std::vector<double> got(n);
    CK(cudaMemcpy(got.data(), d_y, n * 8, cudaMemcpyDeviceToHost));
    long differ = 0;
    for (int i = 0; i < n; ++i) differ += memcmp(&got[i], &y[i], 8) != 0;
    const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("%-18s n=%6d kept=%7ld levels=%5u %s staged=%s  median %8.1f us  %6.3f us/level  bits differ: %ld\n", name,
           n, kept, levels, warp ? "warp" : "rows", shared == all ? "all " : shared == rows ? "rows" : "none",
           1000 * ms[ms.size() / 2], 1000 * ms[ms.size() / 2] / levels, differ);
    for (void* p : {(void*)d_ls, (void*)d_ptr, (void*)d_col, (void*)d_row, (void*)d_tickets, (void*)d_val,
                    (void*)d_diag, (void*)d_x, (void*)d_y, (void*)d_ready})
        CK(cudaFree(p));
}

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) probe(argv[i]);
    return 0;
}
