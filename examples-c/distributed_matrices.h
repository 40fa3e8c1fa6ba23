/*
 * distributed_matrices.h: the rows a rank owns of the distributed example's matrices, built by
 * each rank for itself (header-only; after distributed.h):
 *   - 3-D Poisson (7-point) on an nx × ny × nz grid: the rows are generated locally;
 *   - a symmetric power-law graph matrix: each rank draws its rows' edges (row degrees from a
 *     Pareto law, partners uniform) and sends the mirror entries to their owners (Alltoallv),
 *     then weights w(i, j) = w(j, i) in [0.5, 1) and a dominant diagonal make it positive definite;
 *   - a Matrix Market file (real, integer or pattern; general or symmetric), read by every
 *     rank, which keeps its rows.
 */
#ifndef SPBLK_EXAMPLE_DISTRIBUTED_MATRICES_H
#define SPBLK_EXAMPLE_DISTRIBUTED_MATRICES_H

#include <ctype.h>
#include <math.h>

#include "distributed.h"

/* One entry on its way into a row block. */
typedef struct {
    long long row, col;
    double val;
} triplet;

/* A splitmix64 step: deterministic, so every run and every rank count draws the same matrix. */
static unsigned long long mix64(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unit_draw(unsigned long long *state) { /* in (0, 1) */
    *state = mix64(*state);
    return ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
}

static int triplet_cmp_col(const void *a, const void *b) {
    long long x = ((const triplet *)a)->col, y = ((const triplet *)b)->col;
    return (x > y) - (x < y);
}

/* Rows first .. last-1 from entries of those rows in any order: grouped by row (counting
 * sort), columns ascending, duplicates summed. Frees `t`. */
static row_block rows_from_triplets(long long first, long long last, triplet *t, long long count) {
    int m = (int)(last - first), i;
    long long k, *fill = dist_host_alloc((size_t)(m + 1) * sizeof *fill), nnz = 0;
    triplet *sorted = dist_host_alloc((size_t)count * sizeof *sorted);
    row_block b;
    for (i = 0; i <= m; i++) fill[i] = 0;
    for (k = 0; k < count; k++) fill[t[k].row - first + 1]++;
    for (i = 0; i < m; i++) fill[i + 1] += fill[i];
    for (k = 0; k < count; k++) sorted[fill[t[k].row - first]++] = t[k];
    free(t);
    b.first = first, b.last = last;
    b.ptr = dist_host_alloc((size_t)(m + 1) * sizeof *b.ptr);
    b.col = dist_host_alloc((size_t)count * sizeof *b.col);
    b.val = dist_host_alloc((size_t)count * sizeof *b.val);
    b.ptr[0] = 0;
    for (i = 0, k = 0; i < m; i++) {
        long long end = fill[i]; /* after the placement, fill[i] is row i's end */
        qsort(sorted + k, (size_t)(end - k), sizeof *sorted, triplet_cmp_col);
        for (; k < end; k++) {
            if (nnz > b.ptr[i] && b.col[nnz - 1] == sorted[k].col) {
                b.val[nnz - 1] += sorted[k].val;
            } else {
                b.col[nnz] = sorted[k].col;
                b.val[nnz++] = sorted[k].val;
            }
        }
        if (nnz > 2147483647LL) die("more than 2^31 - 1 entries on one rank");
        b.ptr[i + 1] = (int)nnz;
    }
    free(fill), free(sorted);
    return b;
}

static row_block poisson_rows(long long nx, long long ny, long long nz, long long first, long long last) {
    int m = (int)(last - first), i, k;
    long long nnz = 0, plane = nx * ny;
    row_block b;
    b.first = first, b.last = last;
    b.ptr = dist_host_alloc((size_t)(m + 1) * sizeof *b.ptr);
    b.col = dist_host_alloc((size_t)7 * m * sizeof *b.col);
    b.val = dist_host_alloc((size_t)7 * m * sizeof *b.val);
    for (i = 0; i < m; i++) {
        long long g = first + i, x = g % nx, y = (g / nx) % ny, z = g / plane;
        long long col[7] = {g - plane, g - nx, g - 1, g, g + 1, g + nx, g + plane};
        int present[7] = {z > 0, y > 0, x > 0, 1, x < nx - 1, y < ny - 1, z < nz - 1};
        b.ptr[i] = (int)nnz;
        for (k = 0; k < 7; k++) {
            if (!present[k]) continue;
            b.col[nnz] = col[k];
            b.val[nnz++] = k == 3 ? 6.0 : -1.0;
        }
    }
    b.ptr[m] = (int)nnz;
    return b;
}

/* Rank of the owner of global row `row`. */
static int owner_of(const long long *first, int ranks, long long row) {
    return (int)(dist_lower_bound(first, ranks + 1, row + 1) - 1);
}

static row_block powerlaw_rows(long long n, double min_degree, const long long *first, MPI_Comm comm) {
    int rank, ranks, r, *send_count, *send_offset, *recv_count, *recv_offset;
    long long i, k, lo, hi, edges = 0, max_degree = (long long)sqrt((double)n) * 4, total;
    long long *out_edges, *to_send, *received, *pos;
    triplet *t;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    lo = first[rank], hi = first[rank + 1];
    /* This rank's rows' edges (i, j): degree ~ min_degree · u^(-1/1.5), a Pareto tail of index 1.5. */
    for (i = lo; i < hi; i++) {
        unsigned long long s = mix64((unsigned long long)i * 2654435761ULL + 17);
        long long d = (long long)(min_degree * pow(unit_draw(&s), -1.0 / 1.5));
        edges += d < max_degree ? d : max_degree;
    }
    out_edges = dist_host_alloc((size_t)(2 * edges + 2) * sizeof *out_edges);
    send_count = dist_host_alloc((size_t)ranks * sizeof(int));
    send_offset = dist_host_alloc((size_t)(ranks + 1) * sizeof(int));
    recv_count = dist_host_alloc((size_t)ranks * sizeof(int));
    recv_offset = dist_host_alloc((size_t)(ranks + 1) * sizeof(int));
    for (r = 0; r < ranks; r++) send_count[r] = 0;
    for (k = 0, i = lo; i < hi; i++) {
        unsigned long long s = mix64((unsigned long long)i * 2654435761ULL + 17);
        long long d = (long long)(min_degree * pow(unit_draw(&s), -1.0 / 1.5)), e;
        if (d > max_degree) d = max_degree;
        for (e = 0; e < d; e++) {
            long long j = (long long)(unit_draw(&s) * (double)n);
            if (j >= n) j = n - 1;
            out_edges[k++] = i, out_edges[k++] = j;
            send_count[owner_of(first, ranks, j)] += 2;
        }
    }
    /* Mirror entries (j, i) to the owner of row j, grouped by owner. */
    send_offset[0] = 0;
    for (r = 0; r < ranks; r++) send_offset[r + 1] = send_offset[r] + send_count[r];
    if (send_offset[ranks] != 2 * edges) die("more edges than MPI counts hold");
    to_send = dist_host_alloc((size_t)(2 * edges + 2) * sizeof *to_send);
    pos = dist_host_alloc((size_t)ranks * sizeof *pos);
    for (r = 0; r < ranks; r++) pos[r] = send_offset[r];
    for (k = 0; k < 2 * edges; k += 2) {
        r = owner_of(first, ranks, out_edges[k + 1]);
        to_send[pos[r]++] = out_edges[k + 1], to_send[pos[r]++] = out_edges[k];
    }
    MPI_Alltoall(send_count, 1, MPI_INT, recv_count, 1, MPI_INT, comm);
    recv_offset[0] = 0;
    for (r = 0; r < ranks; r++) recv_offset[r + 1] = recv_offset[r] + recv_count[r];
    received = dist_host_alloc((size_t)(recv_offset[ranks] + 2) * sizeof *received);
    MPI_Alltoallv(to_send, send_count, send_offset, MPI_LONG_LONG, received, recv_count, recv_offset, MPI_LONG_LONG,
                  comm);
    /* Both directions, self-loops dropped; weights summed per pair by the duplicate merge, then
     * the diagonal added as each row's sum of |weights| + 1. */
    total = edges + recv_offset[ranks] / 2 + (hi - lo);
    t = dist_host_alloc((size_t)(total + 1) * sizeof *t);
    for (total = 0, k = 0; k < 2 * edges + recv_offset[ranks]; k += 2) {
        const long long *e = k < 2 * edges ? out_edges + k : received + (k - 2 * edges);
        long long a = e[0], b = e[1];
        unsigned long long h = mix64((unsigned long long)(a < b ? a : b) * 0x100000001b3ULL ^ (unsigned long long)(a < b ? b : a));
        if (a == b) continue;
        t[total].row = a, t[total].col = b, t[total++].val = -(0.5 + 0.5 * (double)(h >> 11) / 9007199254740992.0);
    }
    for (i = lo; i < hi; i++) t[total].row = i, t[total].col = i, t[total++].val = 0.0;
    {
        row_block b = rows_from_triplets(lo, hi, t, total);
        int row;
        for (row = 0; row < (int)(hi - lo); row++) {
            double sum = 1.0;
            int diag = -1;
            for (k = b.ptr[row]; k < b.ptr[row + 1]; k++) {
                if (b.col[k] == lo + row)
                    diag = (int)k;
                else
                    sum += fabs(b.val[k]);
            }
            b.val[diag] = sum;
        }
        free(out_edges), free(to_send), free(received), free(pos);
        free(send_count), free(send_offset), free(recv_count), free(recv_offset);
        return b;
    }
}

/* The size line of a Matrix Market file: rows (square matrices only) and whether it is
 * symmetric; the stream is left at the first entry. */
static long long mtx_open(const char *path, FILE **f, int *symmetric, int *pattern) {
    char line[1024];
    long long rows, cols, entries;
    *f = fopen(path, "r");
    if (*f == NULL || fgets(line, sizeof line, *f) == NULL || strncmp(line, "%%MatrixMarket matrix coordinate", 32) != 0)
        die("not a Matrix Market coordinate file");
    if (strstr(line, "complex") != NULL) die("complex Matrix Market files are not supported");
    *symmetric = strstr(line, "symmetric") != NULL;
    *pattern = strstr(line, "pattern") != NULL;
    do {
        if (fgets(line, sizeof line, *f) == NULL) die("Matrix Market file without a size line");
    } while (line[0] == '%');
    if (sscanf(line, "%lld %lld %lld", &rows, &cols, &entries) != 3 || rows != cols || rows < 1)
        die("the Matrix Market matrix is not square");
    return rows;
}

/* The rows first .. last-1 of the file's matrix (symmetric files: both triangles). */
static row_block mtx_rows(FILE *f, int symmetric, int pattern, long long first, long long last) {
    long long count = 0, capacity = 1024, r, c;
    double v;
    char line[1024];
    triplet *t = dist_host_alloc((size_t)capacity * sizeof *t);
    while (fgets(line, sizeof line, f) != NULL) {
        int pass;
        if (line[0] == '%' || isspace((unsigned char)line[0])) continue;
        v = 1.0;
        if (sscanf(line, pattern ? "%lld %lld" : "%lld %lld %lf", &r, &c, &v) != (pattern ? 2 : 3))
            die("bad Matrix Market entry");
        for (pass = 0; pass < 1 + (symmetric && r != c); pass++) {
            long long row = (pass ? c : r) - 1, col = (pass ? r : c) - 1;
            if (row < first || row >= last) continue;
            if (count == capacity) {
                capacity *= 2;
                t = realloc(t, (size_t)capacity * sizeof *t);
                if (t == NULL) die("out of memory");
            }
            t[count].row = row, t[count].col = col, t[count++].val = v;
        }
    }
    fclose(f);
    return rows_from_triplets(first, last, t, count);
}

static void free_rows(row_block *b) { free(b->ptr), free(b->col), free(b->val); }

#endif /* SPBLK_EXAMPLE_DISTRIBUTED_MATRICES_H */
