// SpGEMM with spblk from C++: C = A * B, all CSR, through cuSPARSE's protocol
//   workEstimation (size query, then with a buffer) -> compute (same) -> read nnz(C)
//   -> allocate C -> spblkCsrSetPointers -> copy.
// Host memory and the host backend; with the CUDA backend the arrays would be device memory.
#include <spblk.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(spblkStatus_t status, const char *what) {
    if (status == SPBLK_STATUS_SUCCESS) return;
    std::vector<char> why(512);
    size_t len = 0;
    spblkGetLastErrorMessage(why.data(), why.size(), &len);
    std::fprintf(stderr, "%s: %s: %s\n", what, spblkGetErrorName(status), why.data());
    std::exit(1);
}

struct Csr {
    int rows, cols;
    std::vector<int> offsets, columns;
    std::vector<float> values;
};

// The product as dense rows, by hand, to check against.
std::vector<float> dense_product(const Csr &a, const Csr &b) {
    std::vector<float> c(static_cast<size_t>(a.rows) * b.cols, 0.0f);
    for (int i = 0; i < a.rows; i++)
        for (int p = a.offsets[i]; p < a.offsets[i + 1]; p++)
            for (int q = b.offsets[a.columns[p]]; q < b.offsets[a.columns[p] + 1]; q++)
                c[static_cast<size_t>(i) * b.cols + b.columns[q]] += a.values[p] * b.values[q];
    return c;
}

}  // namespace

int main() {
    // A = [1 2 0]     B = [1 0 1 0]
    //     [0 0 3]         [0 2 0 0]
    //     [4 0 5]         [0 0 3 4]
    Csr a{3, 3, {0, 2, 3, 5}, {0, 1, 2, 0, 2}, {1, 2, 3, 4, 5}};
    Csr b{3, 4, {0, 2, 3, 5}, {0, 2, 1, 2, 3}, {1, 1, 2, 3, 4}};
    Csr c{3, 4, std::vector<int>(4), {}, {}};
    const spblkOperation_t N = SPBLK_OPERATION_NON_TRANSPOSE;
    const float alpha = 1.0f, beta = 0.0f;

    spblkHandle_t handle;
    spblkSpMatDescr_t matA, matB, matC;
    spblkSpGEMMDescr_t spgemm;
    check(spblkCreateWithBackend(&handle, SPBLK_BACKEND_HOST), "create handle");
    check(spblkCreateCsr(&matA, a.rows, a.cols, a.values.size(), a.offsets.data(), a.columns.data(),
                         a.values.data(), SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F),
          "create A");
    check(spblkCreateCsr(&matB, b.rows, b.cols, b.values.size(), b.offsets.data(), b.columns.data(),
                         b.values.data(), SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F),
          "create B");
    // C starts empty: its size is known only after compute.
    check(spblkCreateCsr(&matC, c.rows, c.cols, 0, c.offsets.data(), nullptr, nullptr, SPBLK_INDEX_32I,
                         SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F),
          "create C");
    check(spblkSpGEMM_createDescr(&spgemm), "create SpGEMM descriptor");

    // A NULL buffer asks for the size; the second call does the work.
    size_t size1 = 0, size2 = 0;
    check(spblkSpGEMM_workEstimation(handle, N, N, &alpha, matA, matB, &beta, matC, SPBLK_R_32F,
                                     SPBLK_SPGEMM_DEFAULT, spgemm, &size1, nullptr),
          "workEstimation (size)");
    std::vector<char> buffer1(size1);
    check(spblkSpGEMM_workEstimation(handle, N, N, &alpha, matA, matB, &beta, matC, SPBLK_R_32F,
                                     SPBLK_SPGEMM_DEFAULT, spgemm, &size1, buffer1.data()),
          "workEstimation");
    check(spblkSpGEMM_compute(handle, N, N, &alpha, matA, matB, &beta, matC, SPBLK_R_32F, SPBLK_SPGEMM_DEFAULT,
                              spgemm, &size2, nullptr),
          "compute (size)");
    std::vector<char> buffer2(size2);
    check(spblkSpGEMM_compute(handle, N, N, &alpha, matA, matB, &beta, matC, SPBLK_R_32F, SPBLK_SPGEMM_DEFAULT,
                              spgemm, &size2, buffer2.data()),
          "compute");

    int64_t rows, cols, nnz;
    check(spblkSpMatGetSize(matC, &rows, &cols, &nnz), "nnz(C)");
    c.columns.resize(nnz);
    c.values.resize(nnz);
    check(spblkCsrSetPointers(matC, c.offsets.data(), c.columns.data(), c.values.data()), "set C's arrays");
    check(spblkSpGEMM_copy(handle, N, N, &alpha, matA, matB, &beta, matC, SPBLK_R_32F, SPBLK_SPGEMM_DEFAULT,
                           spgemm),
          "copy");

    check(spblkSpGEMM_destroyDescr(spgemm), "destroy SpGEMM descriptor");
    check(spblkDestroySpMat(matA), "destroy A");
    check(spblkDestroySpMat(matB), "destroy B");
    check(spblkDestroySpMat(matC), "destroy C");
    check(spblkDestroy(handle), "destroy handle");

    // Every stored entry must equal the dense product, columns must be sorted within rows,
    // and C must hold every nonzero of the product.
    std::vector<float> want = dense_product(a, b);
    bool ok = true;
    int nonzeros = 0;
    for (float v : want) nonzeros += v != 0.0f;
    std::printf("spgemm: C = A * B is %lldx%lld with %lld stored entries:\n", static_cast<long long>(rows),
                static_cast<long long>(cols), static_cast<long long>(nnz));
    for (int i = 0; i < c.rows; i++) {
        std::printf("  row %d:", i);
        for (int p = c.offsets[i]; p < c.offsets[i + 1]; p++) {
            std::printf(" (%d) %g", c.columns[p], c.values[p]);
            ok = ok && c.values[p] == want[static_cast<size_t>(i) * c.cols + c.columns[p]];
            ok = ok && (p == c.offsets[i] || c.columns[p - 1] < c.columns[p]);
        }
        std::printf("\n");
    }
    ok = ok && nnz == nonzeros;
    std::printf("check against the dense product: %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
