/*
 * distributed.h: a CSR matrix distributed over MPI ranks by blocks of rows, and its product
 * with a vector distributed the same way; spblk does each rank's local work. Header-only, after
 * backend.h (distributed_cg.c uses it).
 *
 * Rank r owns rows first[r] .. first[r+1]-1 and the same entries of every vector. Its rows split
 * into an interior part (the columns it owns, renumbered locally) and a halo part (columns other
 * ranks own: the "ghosts", numbered in ascending global order, so grouped by owner). The halo
 * part keeps only its non-empty rows. y = A x is then
 *
 *   post the receives of x's ghosts; gather the entries of x each neighbour needs (spblkGather)
 *   y = A_interior x                      (spblkSpMV on the handle's stream, while messages travel)
 *   send the gathered entries; wait for the ghosts
 *   t = A_halo x_ghost; y[halo rows] += t  (spblkSpMV on the short halo, then spblkAxpby with β = 1)
 *
 * On the GPU the messages are staged through pinned host memory by copies on a second stream,
 * so that the interior product starts as soon as the gather is done; with an MPI that reports
 * CUDA support (MPIX_Query_cuda_support) device buffers go to MPI directly; on the host backend
 * the buffers are host memory anyway.
 */
#ifndef SPBLK_EXAMPLE_DISTRIBUTED_H
#define SPBLK_EXAMPLE_DISTRIBUTED_H

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include "backend.h"

/* A rank's rows as the caller builds them: global column indices, ascending in each row. */
typedef struct {
    long long first, last; /* global rows first .. last-1 */
    int *ptr;              /* last - first + 1 offsets */
    long long *col;
    double *val;
} row_block;

typedef struct {
    spblkHandle_t handle;
    MPI_Comm comm;
    int rank, ranks;
    long long n, *first; /* global size; ranks + 1 row offsets */
    int rows;            /* rows owned here */
    /* The interior part (rows × rows) and the halo part (halo_rows × ghosts). */
    spblkSpMatDescr_t interior, halo;
    int interior_nnz, halo_rows, halo_nnz, ghosts;
    void *d_int_ptr, *d_int_col, *d_int_val, *d_halo_ptr, *d_halo_col, *d_halo_val;
    void *d_halo_index, *d_halo_sum, *d_ghost, *d_send_index, *d_send;
    spblkDnVecDescr_t ghost_vec, halo_sum_vec;
    spblkSpVecDescr_t halo_update; /* (halo rows, t): y[halo rows] += t */
    spblkSpVecDescr_t *send_gather; /* per rank: (entries it needs, its part of the send buffer) */
    void *interior_buffer, *halo_buffer;
    /* The exchange: counts and offsets per rank into the ghosts and into the send buffer. */
    int *recv_count, *recv_offset, *send_count, *send_offset, sends;
    MPI_Request *requests;
    int staged;                 /* GPU buffers through pinned host memory */
    double *h_send, *h_ghost;   /* what MPI reads and writes (device buffers unless staged) */
    /* GPU: the copy stream, the handle's stream, and events: the send buffer gathered, copied
     * out, the ghosts copied in; the ghost buffer free for the next receive. */
    void *copy_stream, *main_stream, *gathered, *sent_ready, *ghosts_here, *ghosts_free;
} dist_matrix;

static const double dist_one = 1.0, dist_zero = 0.0;

static int dist_cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Index of the first element of sorted a[0..len) that is >= key. */
static long long dist_lower_bound(const long long *a, long long len, long long key) {
    long long lo = 0, hi = len;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void *dist_host_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) die("out of memory");
    return p;
}

static void *dist_upload(const void *src, size_t bytes) {
    void *d = backend_alloc(bytes ? bytes : 1);
    upload(d, src, bytes);
    return d;
}

static void cuda_check(int rc, const char *what) {
    if (rc != 0) {
        fprintf(stderr, "%s: %s failed (CUDA driver error %d)\n", example_name, what, rc);
        exit(1);
    }
}

/* Whether MPI takes device pointers (an MPI built with CUDA support that reports it now). */
static int dist_mpi_takes_device_memory(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

/* Splits the rows into interior and halo parts, agrees the exchange with the other ranks
 * (collective over comm) and uploads both parts. `rows` is the caller's (not kept). */
static void dist_create(dist_matrix *A, spblkHandle_t handle, MPI_Comm comm, long long n, const row_block *rows,
                        int allow_device_mpi) {
    long long *ghost_cols, *wanted, first, k, total_ghost_refs = 0;
    int r, i, m, *int_ptr, *int_col, *halo_ptr, *halo_col, *halo_index, *send_index;
    double *int_val, *halo_val;

    memset(A, 0, sizeof *A);
    A->handle = handle;
    A->comm = comm;
    A->n = n;
    MPI_Comm_rank(comm, &A->rank);
    MPI_Comm_size(comm, &A->ranks);
    A->first = dist_host_alloc((size_t)(A->ranks + 1) * sizeof *A->first);
    MPI_Allgather(&rows->first, 1, MPI_LONG_LONG, A->first, 1, MPI_LONG_LONG, comm);
    A->first[A->ranks] = n;
    for (r = 0; r < A->ranks; r++)
        if (A->first[r] > A->first[r + 1]) die("the ranks' rows are not in rank order");
    if (rows->last != A->first[A->rank + 1]) die("the ranks' rows do not tile 0 .. n-1");
    first = rows->first;
    m = A->rows = (int)(rows->last - rows->first);

    /* The ghosts: every column outside [first, last), once, ascending. */
    for (i = 0; i < m; i++)
        for (k = rows->ptr[i]; k < rows->ptr[i + 1]; k++)
            total_ghost_refs += rows->col[k] < first || rows->col[k] >= rows->last;
    ghost_cols = dist_host_alloc((size_t)total_ghost_refs * sizeof *ghost_cols);
    total_ghost_refs = 0;
    for (i = 0; i < m; i++)
        for (k = rows->ptr[i]; k < rows->ptr[i + 1]; k++)
            if (rows->col[k] < first || rows->col[k] >= rows->last) ghost_cols[total_ghost_refs++] = rows->col[k];
    qsort(ghost_cols, (size_t)total_ghost_refs, sizeof *ghost_cols, dist_cmp_ll);
    A->ghosts = 0;
    for (k = 0; k < total_ghost_refs; k++)
        if (A->ghosts == 0 || ghost_cols[A->ghosts - 1] != ghost_cols[k]) ghost_cols[A->ghosts++] = ghost_cols[k];

    /* Who owns each ghost; then each owner learns which of its entries this rank needs. */
    A->recv_count = dist_host_alloc((size_t)A->ranks * sizeof(int));
    A->recv_offset = dist_host_alloc((size_t)(A->ranks + 1) * sizeof(int));
    A->send_count = dist_host_alloc((size_t)A->ranks * sizeof(int));
    A->send_offset = dist_host_alloc((size_t)(A->ranks + 1) * sizeof(int));
    if (A->ghosts > 0 && (ghost_cols[0] < 0 || ghost_cols[A->ghosts - 1] >= n)) die("a column index is outside 0 .. n-1");
    A->recv_offset[0] = 0;
    for (r = 0; r < A->ranks; r++) {
        A->recv_offset[r + 1] = (int)dist_lower_bound(ghost_cols, A->ghosts, A->first[r + 1]);
        A->recv_count[r] = A->recv_offset[r + 1] - A->recv_offset[r];
    }
    MPI_Alltoall(A->recv_count, 1, MPI_INT, A->send_count, 1, MPI_INT, comm);
    A->send_offset[0] = 0;
    for (r = 0; r < A->ranks; r++) A->send_offset[r + 1] = A->send_offset[r] + A->send_count[r];
    A->sends = A->send_offset[A->ranks];
    wanted = dist_host_alloc((size_t)A->sends * sizeof *wanted);
    MPI_Alltoallv(ghost_cols, A->recv_count, A->recv_offset, MPI_LONG_LONG, wanted, A->send_count, A->send_offset,
                  MPI_LONG_LONG, comm);
    send_index = dist_host_alloc((size_t)A->sends * sizeof *send_index);
    for (k = 0; k < A->sends; k++) {
        if (wanted[k] < first || wanted[k] >= rows->last) die("a neighbour asked for an entry this rank does not own");
        send_index[k] = (int)(wanted[k] - first);
    }

    /* The interior part, in local columns; the halo part's non-empty rows, in ghost numbers. */
    int_ptr = dist_host_alloc((size_t)(m + 1) * sizeof *int_ptr);
    int_col = dist_host_alloc((size_t)(rows->ptr[m] - total_ghost_refs) * sizeof *int_col);
    int_val = dist_host_alloc((size_t)(rows->ptr[m] - total_ghost_refs) * sizeof *int_val);
    halo_ptr = dist_host_alloc((size_t)(m + 1) * sizeof *halo_ptr);
    halo_index = dist_host_alloc((size_t)m * sizeof *halo_index);
    halo_col = dist_host_alloc((size_t)total_ghost_refs * sizeof *halo_col);
    halo_val = dist_host_alloc((size_t)total_ghost_refs * sizeof *halo_val);
    A->interior_nnz = A->halo_nnz = A->halo_rows = 0;
    int_ptr[0] = halo_ptr[0] = 0;
    for (i = 0; i < m; i++) {
        int before = A->halo_nnz;
        for (k = rows->ptr[i]; k < rows->ptr[i + 1]; k++) {
            long long c = rows->col[k];
            if (c >= first && c < rows->last) {
                int_col[A->interior_nnz] = (int)(c - first);
                int_val[A->interior_nnz++] = rows->val[k];
            } else {
                halo_col[A->halo_nnz] = (int)dist_lower_bound(ghost_cols, A->ghosts, c);
                halo_val[A->halo_nnz++] = rows->val[k];
            }
        }
        int_ptr[i + 1] = A->interior_nnz;
        if (A->halo_nnz > before) {
            halo_index[A->halo_rows++] = i;
            halo_ptr[A->halo_rows] = A->halo_nnz;
        }
    }

    A->d_int_ptr = dist_upload(int_ptr, (size_t)(m + 1) * sizeof(int));
    A->d_int_col = dist_upload(int_col, (size_t)A->interior_nnz * sizeof(int));
    A->d_int_val = dist_upload(int_val, (size_t)A->interior_nnz * sizeof(double));
    CHECK(spblkCreateCsr(&A->interior, m, m, A->interior_nnz, A->d_int_ptr, A->d_int_col, A->d_int_val,
                         SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    if (A->halo_rows > 0) {
        A->d_halo_ptr = dist_upload(halo_ptr, (size_t)(A->halo_rows + 1) * sizeof(int));
        A->d_halo_col = dist_upload(halo_col, (size_t)A->halo_nnz * sizeof(int));
        A->d_halo_val = dist_upload(halo_val, (size_t)A->halo_nnz * sizeof(double));
        A->d_halo_index = dist_upload(halo_index, (size_t)A->halo_rows * sizeof(int));
        A->d_halo_sum = backend_alloc((size_t)A->halo_rows * sizeof(double));
        A->d_ghost = backend_alloc((size_t)A->ghosts * sizeof(double));
        CHECK(spblkCreateCsr(&A->halo, A->halo_rows, A->ghosts, A->halo_nnz, A->d_halo_ptr, A->d_halo_col,
                             A->d_halo_val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
        CHECK(spblkCreateDnVec(&A->ghost_vec, A->ghosts, A->d_ghost, SPBLK_R_64F));
        CHECK(spblkCreateDnVec(&A->halo_sum_vec, A->halo_rows, A->d_halo_sum, SPBLK_R_64F));
        CHECK(spblkCreateSpVec(&A->halo_update, m, A->halo_rows, A->d_halo_index, A->d_halo_sum, SPBLK_INDEX_32I,
                               SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    }
    /* One gather per neighbour: an entry several neighbours need is sent to each, but a
     * sparse vector lists an index once. */
    A->send_gather = dist_host_alloc((size_t)A->ranks * sizeof *A->send_gather);
    if (A->sends > 0) {
        A->d_send_index = dist_upload(send_index, (size_t)A->sends * sizeof(int));
        A->d_send = backend_alloc((size_t)A->sends * sizeof(double));
    }
    for (r = 0; r < A->ranks; r++)
        if (A->send_count[r] > 0)
            CHECK(spblkCreateSpVec(&A->send_gather[r], m, A->send_count[r], (int *)A->d_send_index + A->send_offset[r],
                                   (double *)A->d_send + A->send_offset[r], SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO,
                                   SPBLK_R_64F));

    /* Where MPI reads and writes: host memory staged by copies on a second stream, unless the
     * handle works in host memory or MPI takes device pointers. */
    A->requests = dist_host_alloc((size_t)2 * A->ranks * sizeof *A->requests);
    A->staged = on_gpu && !(allow_device_mpi && dist_mpi_takes_device_memory());
    A->h_send = A->d_send;
    A->h_ghost = A->d_ghost;
    if (on_gpu) {
        CHECK(spblkGetStream(handle, (spblkStream_t *)&A->main_stream));
        cuda_check(cuda_api.StreamCreate(&A->copy_stream, 1 /* non-blocking */), "cuStreamCreate");
        cuda_check(cuda_api.EventCreate(&A->gathered, 2 /* no timing */), "cuEventCreate");
        cuda_check(cuda_api.EventCreate(&A->sent_ready, 2), "cuEventCreate");
        cuda_check(cuda_api.EventCreate(&A->ghosts_here, 2), "cuEventCreate");
        cuda_check(cuda_api.EventCreate(&A->ghosts_free, 2), "cuEventCreate");
    }
    if (A->staged) {
        cuda_check(cuda_api.MemAllocHost((void **)&A->h_send, (size_t)A->sends * sizeof(double) + 1),
                   "cuMemAllocHost");
        cuda_check(cuda_api.MemAllocHost((void **)&A->h_ghost, (size_t)A->ghosts * sizeof(double) + 1),
                   "cuMemAllocHost");
    }
    free(ghost_cols), free(wanted), free(send_index), free(int_ptr), free(int_col), free(int_val);
    free(halo_ptr), free(halo_col), free(halo_val), free(halo_index);
}

/* The SpMV workspaces and plans, at the first product (they need vectors to ask about). */
static void dist_prepare(dist_matrix *A, spblkDnVecDescr_t x, spblkDnVecDescr_t y) {
    size_t size = 0;
    if (A->interior_buffer != NULL) return;
    CHECK(spblkSpMV_bufferSize(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->interior, x, &dist_zero, y,
                               SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, &size));
    A->interior_buffer = backend_alloc(size ? size : 1);
    CHECK(spblkSpMV_preprocess(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->interior, x, &dist_zero, y,
                               SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, A->interior_buffer));
    if (A->halo_rows > 0) {
        CHECK(spblkSpMV_bufferSize(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->halo, A->ghost_vec,
                                   &dist_zero, A->halo_sum_vec, SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, &size));
        A->halo_buffer = backend_alloc(size ? size : 1);
        CHECK(spblkSpMV_preprocess(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->halo, A->ghost_vec,
                                   &dist_zero, A->halo_sum_vec, SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT,
                                   A->halo_buffer));
    }
}

/* y = A_interior x alone (what the exchange should hide behind). */
static void dist_interior_spmv(dist_matrix *A, spblkDnVecDescr_t x, spblkDnVecDescr_t y) {
    dist_prepare(A, x, y);
    CHECK(spblkSpMV(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->interior, x, &dist_zero, y, SPBLK_R_64F,
                    SPBLK_SPMV_ALG_DEFAULT, A->interior_buffer));
}

/* y[halo rows] += A_halo x_ghost, once the ghosts are where the handle reads them. */
static void dist_halo_spmv(dist_matrix *A, spblkDnVecDescr_t y) {
    if (A->halo_rows == 0) return;
    CHECK(spblkSpMV(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &dist_one, A->halo, A->ghost_vec, &dist_zero,
                    A->halo_sum_vec, SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, A->halo_buffer));
    CHECK(spblkAxpby(A->handle, &dist_one, A->halo_update, &dist_one, y));
}

static void dist_send(dist_matrix *A, int *count) {
    int r;
    for (r = 0; r < A->ranks; r++)
        if (A->send_count[r] > 0)
            MPI_Isend(A->h_send + A->send_offset[r], A->send_count[r], MPI_DOUBLE, r, 0, A->comm,
                      &A->requests[(*count)++]);
}

/* y = A x, the exchange of x's ghosts hidden behind the interior product. */
static void dist_spmv(dist_matrix *A, spblkDnVecDescr_t x, spblkDnVecDescr_t y) {
    int r, requests = 0;
    /* The last product's ghosts are read before this one's arrive (its copy in, or with device
     * buffers its halo product). */
    if (on_gpu) cuda_check(cuda_api.EventSynchronize(A->ghosts_free), "cuEventSynchronize");
    for (r = 0; r < A->ranks; r++)
        if (A->recv_count[r] > 0)
            MPI_Irecv(A->h_ghost + A->recv_offset[r], A->recv_count[r], MPI_DOUBLE, r, 0, A->comm,
                      &A->requests[requests++]);
    for (r = 0; r < A->ranks; r++)
        if (A->send_count[r] > 0) CHECK(spblkGather(A->handle, x, A->send_gather[r]));
    if (!on_gpu) {
        dist_send(A, &requests); /* the gather is done: send, then compute */
        dist_interior_spmv(A, x, y);
    } else {
        if (A->sends > 0) {
            cuda_check(cuda_api.EventRecord(A->gathered, A->main_stream), "cuEventRecord");
            if (A->staged) {
                cuda_check(cuda_api.StreamWaitEvent(A->copy_stream, A->gathered, 0), "cuStreamWaitEvent");
                cuda_check(cuda_api.MemcpyDtoHAsync(A->h_send, (cuda_deviceptr)(uintptr_t)A->d_send,
                                                    (size_t)A->sends * sizeof(double), A->copy_stream),
                           "cuMemcpyDtoHAsync");
                cuda_check(cuda_api.EventRecord(A->sent_ready, A->copy_stream), "cuEventRecord");
            }
        }
        dist_interior_spmv(A, x, y); /* queued behind the gather only */
        if (A->sends > 0) {
            cuda_check(cuda_api.EventSynchronize(A->staged ? A->sent_ready : A->gathered), "cuEventSynchronize");
            dist_send(A, &requests);
        }
    }
    MPI_Waitall(requests, A->requests, MPI_STATUSES_IGNORE);
    if (A->staged && A->ghosts > 0) {
        cuda_check(cuda_api.MemcpyHtoDAsync((cuda_deviceptr)(uintptr_t)A->d_ghost, A->h_ghost,
                                            (size_t)A->ghosts * sizeof(double), A->copy_stream),
                   "cuMemcpyHtoDAsync");
        cuda_check(cuda_api.EventRecord(A->ghosts_here, A->copy_stream), "cuEventRecord");
        cuda_check(cuda_api.StreamWaitEvent(A->main_stream, A->ghosts_here, 0), "cuStreamWaitEvent");
    }
    dist_halo_spmv(A, y);
    if (on_gpu)
        cuda_check(cuda_api.EventRecord(A->ghosts_free, A->staged ? A->copy_stream : A->main_stream),
                   "cuEventRecord");
}

static void dist_destroy(dist_matrix *A) {
    int r;
    CHECK(spblkDestroySpMat(A->interior));
    backend_free(A->d_int_ptr), backend_free(A->d_int_col), backend_free(A->d_int_val);
    if (A->interior_buffer) backend_free(A->interior_buffer);
    if (A->halo_rows > 0) {
        CHECK(spblkDestroySpMat(A->halo));
        CHECK(spblkDestroyDnVec(A->ghost_vec));
        CHECK(spblkDestroyDnVec(A->halo_sum_vec));
        CHECK(spblkDestroySpVec(A->halo_update));
        backend_free(A->d_halo_ptr), backend_free(A->d_halo_col), backend_free(A->d_halo_val);
        backend_free(A->d_halo_index), backend_free(A->d_halo_sum), backend_free(A->d_ghost);
        if (A->halo_buffer) backend_free(A->halo_buffer);
    }
    for (r = 0; r < A->ranks; r++)
        if (A->send_count[r] > 0) CHECK(spblkDestroySpVec(A->send_gather[r]));
    if (A->sends > 0) backend_free(A->d_send_index), backend_free(A->d_send);
    if (A->staged) cuda_api.MemFreeHost(A->h_send), cuda_api.MemFreeHost(A->h_ghost);
    if (on_gpu) {
        cuda_api.EventDestroy(A->gathered), cuda_api.EventDestroy(A->sent_ready);
        cuda_api.EventDestroy(A->ghosts_here), cuda_api.EventDestroy(A->ghosts_free);
        cuda_api.StreamDestroy(A->copy_stream);
    }
    free(A->first), free(A->recv_count), free(A->recv_offset), free(A->send_count), free(A->send_offset);
    free(A->requests), free(A->send_gather);
}

#endif /* SPBLK_EXAMPLE_DISTRIBUTED_H */
