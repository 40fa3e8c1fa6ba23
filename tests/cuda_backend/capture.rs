//! Every operation that needs no answer on the host, captured into one CUDA graph (issue 13:
//! "graph-capture safety"): SpMM, SDDMM, SpGEMMreuse_compute (the protocol's earlier steps
//! block, so they run before), Csr2cscEx2, SparseToDense, DenseToSparse_convert (its analysis
//! blocks too), Xcsr2coo, Xcoo2csr, Xcsrsort, CreateIdentityPermutation, the legacy
//! Xcsrgeam2Nnz (no total asked) and Scsrgeam2, Sbsrmv and Sbsrmm. Each must succeed while the
//! stream is being captured, leave the capture valid, and the replayed graph must write what the same calls write on a plain
//! stream, bit for bit (every kernel is deterministic). The sparse-vector operations and SpMV
//! have capture tests of their own (spvec.rs, main.rs).

use super::*;
use spblk::capi::bsr::*;
use spblk::capi::dense_sparse::*;
use spblk::capi::geam::*;
use spblk::capi::index_arrays::*;
use spblk::capi::mat_descr::*;
use spblk::capi::sort::*;
use spblk::capi::spgemm::*;

const M: usize = 500;
const K: usize = 400;

/// The inputs of the sequence, on one side.
struct Inputs {
    a: spblkSpMatDescr_t,
    a_arrays: [*mut c_void; 3],
    nnz: usize,
    b: spblkDnMatDescr_t,
    /// B's values (400 x 8, column-major): also bsrmv's x (its first column) and bsrmm's B.
    b_values: *mut c_void,
    /// A + A by csrgeam2: C's offsets, columns, values and the workspace.
    geam: [*mut c_void; 4],
    /// bsrmv's y (500) and bsrmm's C (500 x 8), A read as BSR with blocks of 1.
    bsr_out: [*mut c_void; 2],
    /// SpMM's output, 500 x 8.
    c: spblkDnMatDescr_t,
    c_values: *mut c_void,
    /// SDDMM's dense operands (500 x 16, 16 x 400) and its output, on A's pattern.
    d1: spblkDnMatDescr_t,
    d2: spblkDnMatDescr_t,
    s: spblkSpMatDescr_t,
    s_values: *mut c_void,
    /// SparseToDense's output, 500 x 400 column-major, and DenseToSparse's CSR made from it.
    dense: spblkDnMatDescr_t,
    dense_values: *mut c_void,
    back: spblkSpMatDescr_t,
    back_arrays: [*mut c_void; 3],
    /// csr2csc's arrays, csr2coo's rows, coo2csr's offsets, the sorted columns and P.
    csc: [*mut c_void; 3],
    rows: *mut c_void,
    offsets: *mut c_void,
    shuffled: *mut c_void,
    perm: *mut c_void,
    identity: *mut c_void,
    descr: spblkMatDescr_t,
    buffers: [*mut c_void; 5],
    /// SpGEMM C = A B (B 400 x 300) after `SpGEMMreuse_copy`: B, C, C's values, the descriptor.
    gemm: (spblkSpMatDescr_t, spblkSpMatDescr_t, *mut c_void, spblkSpGEMMDescr_t),
}

/// The SpGEMM reuse protocol up to `reuse_copy` (each earlier step blocks or sizes buffers).
fn gemm_reuse(
    side: &mut Side,
    r: &mut StdRng,
    a: spblkSpMatDescr_t,
) -> (spblkSpMatDescr_t, spblkSpMatDescr_t, *mut c_void, spblkSpGEMMDescr_t) {
    let entries = pattern(r, K, 300, Shape::Uniform(4));
    let vals = exact_values(r, entries.len());
    let mb = Sp::new(r, SPBLK_FORMAT_CSR, K, 300, &entries, &vals, SPBLK_INDEX_32I, 0, SPBLK_R_32F).descr(side);
    let null = std::ptr::null_mut::<c_void>();
    let c_off = side.put(&vec![0u8; (M + 1) * 4]);
    let mut mc = std::ptr::null_mut();
    let (i32i, f32t) = (SPBLK_INDEX_32I, SPBLK_R_32F);
    ok(spblkCreateCsr(&mut mc, M as i64, 300, 0, c_off, null, null, i32i, i32i, 0, f32t), "create C");
    let mut d = std::ptr::null_mut();
    ok(spblkSpGEMM_createDescr(&mut d), "spblkSpGEMM_createDescr");
    let (h, alg) = (side.handle, SPBLK_SPGEMM_DEFAULT);
    let mut s1 = 0usize;
    ok(spblkSpGEMMreuse_workEstimation(h, N, N, a, mb, mc, alg, d, &mut s1, null), "reuse_workEstimation");
    let buf1 = side.buffer(s1);
    ok(spblkSpGEMMreuse_workEstimation(h, N, N, a, mb, mc, alg, d, &mut s1, buf1), "reuse_workEstimation");
    let (mut s2, mut s3, mut s4) = (0usize, 0usize, 0usize);
    ok(spblkSpGEMMreuse_nnz(h, N, N, a, mb, mc, alg, d, &mut s2, null, &mut s3, null, &mut s4, null), "reuse_nnz");
    let (b2, b3, b4) = (side.buffer(s2), side.buffer(s3), side.buffer(s4));
    ok(spblkSpGEMMreuse_nnz(h, N, N, a, mb, mc, alg, d, &mut s2, b2, &mut s3, b3, &mut s4, b4), "reuse_nnz");
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    ok(spblkSpMatGetSize(mc, &mut rows, &mut cols, &mut nnz), "spblkSpMatGetSize");
    let c_val = side.put(&vec![0u8; nnz as usize * 4]);
    ok(spblkCsrSetPointers(mc, c_off, side.put(&vec![0u8; nnz as usize * 4]), c_val), "spblkCsrSetPointers");
    let mut s5 = 0usize;
    ok(spblkSpGEMMreuse_copy(h, N, N, a, mb, mc, alg, d, &mut s5, null), "reuse_copy");
    let buf5 = side.buffer(s5);
    ok(spblkSpGEMMreuse_copy(h, N, N, a, mb, mc, alg, d, &mut s5, buf5), "reuse_copy");
    (mb, mc, c_val, d)
}

/// Builds the inputs and every buffer on `side` (nothing is allocated during the capture).
fn inputs(side: &mut Side, seed: u64) -> Inputs {
    let mut r = rng(seed);
    let entries = pattern(&mut r, M, K, Shape::PowerLaw);
    let vals = exact_values(&mut r, entries.len());
    let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, M, K, &entries, &vals, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let nnz = entries.len();
    let a_arrays = [side.put(&sp.a), side.put(&sp.b), side.put(&sp.v)];
    let a = sp.descr_at(a_arrays[0], a_arrays[1], a_arrays[2]);
    let b_dn = Dn::random(&mut r, K, 8, SPBLK_ORDER_COL, SPBLK_R_32F, true);
    let b_values = side.put(&b_dn.data);
    let b = b_dn.descr(b_values);
    let c_dn = Dn::random(&mut r, M, 8, SPBLK_ORDER_COL, SPBLK_R_32F, true);
    let c_values = side.put(&c_dn.data);
    let c = c_dn.descr(c_values);
    let d1_dn = Dn::random(&mut r, M, 16, SPBLK_ORDER_ROW, SPBLK_R_32F, true);
    let d2_dn = Dn::random(&mut r, 16, K, SPBLK_ORDER_ROW, SPBLK_R_32F, true);
    let (d1, d2) = (d1_dn.descr(side.put(&d1_dn.data)), d2_dn.descr(side.put(&d2_dn.data)));
    let s_values = side.put(&sp.v);
    let s = sp.descr_at(a_arrays[0], a_arrays[1], s_values);
    let dense_values = side.put(&vec![0xEE; M * K * 4]);
    let mut dense = std::ptr::null_mut();
    ok(
        spblk::capi::dense::spblkCreateDnMat(
            &mut dense,
            M as i64,
            K as i64,
            M as i64,
            dense_values,
            SPBLK_R_32F,
            SPBLK_ORDER_COL,
        ),
        "dense",
    );
    let h = side.handle;
    // SparseToDense and DenseToSparse's analysis now (the analysis blocks: it is not captured).
    let mut size = 0usize;
    ok(spblkSparseToDense(h, a, dense, 0, std::ptr::null_mut()), "spblkSparseToDense");
    let back_offsets = side.put(&vec![0xEE; (M + 1) * 4]);
    let mut back = std::ptr::null_mut();
    let (i32i, f32t, null) = (SPBLK_INDEX_32I, SPBLK_R_32F, std::ptr::null_mut());
    ok(spblkCreateCsr(&mut back, M as i64, K as i64, 0, back_offsets, null, null, i32i, i32i, 0, f32t), "create");
    ok(spblkDenseToSparse_bufferSize(h, dense, back, 0, &mut size), "spblkDenseToSparse_bufferSize");
    let d2s_buf = side.buffer(size);
    ok(spblkDenseToSparse_analysis(h, dense, back, 0, d2s_buf), "spblkDenseToSparse_analysis");
    let back_arrays = [back_offsets, side.put(&vec![0xEE; nnz * 4]), side.put(&vec![0xEE; nnz * 4])];
    ok(spblkCsrSetPointers(back, back_arrays[0], back_arrays[1], back_arrays[2]), "spblkCsrSetPointers");
    // The buffers of SpMM, SDDMM, csr2csc and the sort.
    let (one, zero) = (side.scalar(false, &scalar_bytes(1.0, f32t)), side.scalar(false, &scalar_bytes(0.5, f32t)));
    ok(spblkSpMM_bufferSize(h, N, N, one, a, b, zero, c, f32t, 0, &mut size), "spblkSpMM_bufferSize");
    let spmm_buf = side.buffer(size);
    ok(spblkSDDMM_bufferSize(h, N, N, one, d1, d2, zero, s, f32t, 0, &mut size), "spblkSDDMM_bufferSize");
    let sddmm_buf = side.buffer(size);
    let csc = [side.put(&vec![0xEE; (K + 1) * 4]), side.put(&vec![0xEE; nnz * 4]), side.put(&vec![0xEE; nnz * 4])];
    let (ptr, col) = (a_arrays[0] as *const i32, a_arrays[1] as *const i32);
    let (m, k, z) = (M as i32, K as i32, nnz as i32);
    ok(
        spblkCsr2cscEx2_bufferSize(
            h,
            m,
            k,
            z,
            a_arrays[2],
            ptr,
            col,
            csc[2],
            csc[0] as _,
            csc[1] as _,
            f32t,
            1,
            0,
            1,
            &mut size,
        ),
        "spblkCsr2cscEx2_bufferSize",
    );
    let csr2csc_buf = side.buffer(size);
    // Columns shuffled within rows (Sp::new keeps the pattern's order), for the sort.
    let shuffled = side.put(&sp.b);
    ok(spblkXcsrsort_bufferSizeExt(h, m, k, z, ptr, shuffled as *const i32, &mut size), "bufferSizeExt");
    let sort_buf = side.buffer(size);
    let mut descr = std::ptr::null_mut();
    ok(spblkCreateMatDescr(&mut descr), "spblkCreateMatDescr");
    let gemm = gemm_reuse(side, &mut r, a);
    let geam_out = [side.put(&vec![0xEE; (M + 1) * 4]), side.put(&vec![0xEE; nnz * 4]), side.put(&vec![0xEE; nnz * 4])];
    let (one32, null_f) = (1.0f32, std::ptr::null::<f32>());
    let st = spblkScsrgeam2_bufferSizeExt(
        h,
        m,
        k,
        &one32,
        descr,
        z,
        null_f,
        ptr,
        col,
        &one32,
        descr,
        z,
        null_f,
        ptr,
        col,
        descr,
        null_f,
        geam_out[0] as *const i32,
        std::ptr::null(),
        &mut size,
    );
    ok(st, "spblkScsrgeam2_bufferSizeExt");
    let geam = [geam_out[0], geam_out[1], geam_out[2], side.buffer(size)];
    let bsr_out = [side.put(&vec![0xEE; M * 4]), side.put(&vec![0xEE; M * 8 * 4])];
    side.sync();
    Inputs {
        a,
        a_arrays,
        nnz,
        b,
        b_values,
        geam,
        bsr_out,
        c,
        c_values,
        d1,
        d2,
        s,
        s_values,
        dense,
        dense_values,
        back,
        back_arrays,
        csc,
        rows: side.put(&vec![0xEE; nnz * 4]),
        offsets: side.put(&vec![0xEE; (M + 1) * 4]),
        shuffled,
        perm: side.put(&vec![0xEE; nnz * 4]),
        identity: side.put(&vec![0xEE; nnz * 4]),
        descr,
        buffers: [spmm_buf, sddmm_buf, csr2csc_buf, sort_buf, d2s_buf],
        gemm,
    }
}

/// The calls that need no host answer, in order; each status checked.
fn sequence(h: spblkHandle_t, x: &Inputs, (one, half): (*const c_void, *const c_void)) -> Vec<(&'static str, u32)> {
    let (m, k, z, f32t) = (M as i32, K as i32, x.nnz as i32, SPBLK_R_32F);
    let (ptr, col) = (x.a_arrays[0] as *const i32, x.a_arrays[1] as *const i32);
    let [spmm_buf, sddmm_buf, csr2csc_buf, sort_buf, d2s_buf] = x.buffers;
    let (d, a_val, geam_off) = (x.descr, x.a_arrays[2] as *const f32, x.geam[0] as *mut i32);
    vec![
        ("SpMM", spblkSpMM(h, N, N, one, x.a, x.b, half, x.c, f32t, 0, spmm_buf)),
        ("SDDMM", spblkSDDMM(h, N, N, one, x.d1, x.d2, half, x.s, f32t, 0, sddmm_buf)),
        (
            "SpGEMMreuse_compute",
            spblkSpGEMMreuse_compute(h, N, N, one, x.a, x.gemm.0, half, x.gemm.1, f32t, SPBLK_SPGEMM_DEFAULT, x.gemm.3),
        ),
        (
            "Csr2cscEx2",
            spblkCsr2cscEx2(
                h,
                m,
                k,
                z,
                x.a_arrays[2],
                ptr,
                col,
                x.csc[2],
                x.csc[0] as _,
                x.csc[1] as _,
                f32t,
                1,
                0,
                1,
                csr2csc_buf,
            ),
        ),
        ("SparseToDense", spblkSparseToDense(h, x.a, x.dense, 0, std::ptr::null_mut())),
        ("DenseToSparse_convert", spblkDenseToSparse_convert(h, x.dense, x.back, 0, d2s_buf)),
        ("Xcsr2coo", spblkXcsr2coo(h, ptr, z, m, x.rows as *mut i32, 0)),
        ("Xcoo2csr", spblkXcoo2csr(h, x.rows as *const i32, z, m, x.offsets as *mut i32, 0)),
        ("CreateIdentityPermutation", spblkCreateIdentityPermutation(h, z, x.identity as *mut i32)),
        ("CreateIdentityPermutation P", spblkCreateIdentityPermutation(h, z, x.perm as *mut i32)),
        ("Xcsrsort", spblkXcsrsort(h, m, k, z, x.descr, ptr, x.shuffled as *mut i32, x.perm as *mut i32, sort_buf)),
        (
            "Xcsrgeam2Nnz",
            spblkXcsrgeam2Nnz(h, m, k, d, z, ptr, col, d, z, ptr, col, d, geam_off, std::ptr::null_mut(), x.geam[3]),
        ),
        (
            "Scsrgeam2",
            spblkScsrgeam2(
                h,
                m,
                k,
                one.cast(),
                d,
                z,
                a_val,
                ptr,
                col,
                half.cast(),
                d,
                z,
                a_val,
                ptr,
                col,
                d,
                x.geam[2].cast(),
                geam_off,
                x.geam[1].cast(),
                x.geam[3],
            ),
        ),
        (
            "Sbsrmv",
            spblkSbsrmv(
                h,
                0,
                N,
                m,
                k,
                z,
                one.cast(),
                d,
                a_val,
                ptr,
                col,
                1,
                x.b_values.cast(),
                half.cast(),
                x.bsr_out[0].cast(),
            ),
        ),
        (
            "Sbsrmm",
            spblkSbsrmm(
                h,
                1,
                N,
                N,
                m,
                8,
                k,
                z,
                one.cast(),
                d,
                a_val,
                ptr,
                col,
                1,
                x.b_values.cast(),
                k,
                half.cast(),
                x.bsr_out[1].cast(),
                m,
            ),
        ),
    ]
}

/// Everything the sequence wrote, as bytes.
fn outputs(side: &Side, x: &Inputs) -> Vec<(&'static str, Vec<u8>)> {
    side.sync();
    let n4 = x.nnz * 4;
    let (mut rows, mut cols, mut c_nnz) = (0i64, 0i64, 0i64);
    ok(spblkSpMatGetSize(x.gemm.1, &mut rows, &mut cols, &mut c_nnz), "spblkSpMatGetSize");
    vec![
        ("SpGEMM C", side.get(x.gemm.2, c_nnz as usize * 4)),
        ("SpMM C", side.get(x.c_values, M * 8 * 4)),
        ("SDDMM C", side.get(x.s_values, n4)),
        ("csc offsets", side.get(x.csc[0], (K + 1) * 4)),
        ("csc rows", side.get(x.csc[1], n4)),
        ("csc values", side.get(x.csc[2], n4)),
        ("dense", side.get(x.dense_values, M * K * 4)),
        ("back columns", side.get(x.back_arrays[1], n4)),
        ("back values", side.get(x.back_arrays[2], n4)),
        ("coo rows", side.get(x.rows, n4)),
        ("offsets", side.get(x.offsets, (M + 1) * 4)),
        ("identity", side.get(x.identity, n4)),
        ("sorted columns", side.get(x.shuffled, n4)),
        ("P", side.get(x.perm, n4)),
        ("geam offsets", side.get(x.geam[0], (M + 1) * 4)),
        ("geam columns", side.get(x.geam[1], n4)),
        ("geam values", side.get(x.geam[2], n4)),
        ("bsrmv y", side.get(x.bsr_out[0], M * 4)),
        ("bsrmm C", side.get(x.bsr_out[1], M * 8 * 4)),
    ]
}

#[test]
fn operations_without_a_host_answer_are_capturable() {
    if !gpu("operations_without_a_host_answer_are_capturable") || harness_on_host() {
        return;
    }
    // A plain run on the legacy stream.
    let mut plain = Side::new(Kind::Cuda);
    let x = inputs(&mut plain, 79);
    let scalars =
        (plain.scalar(false, &scalar_bytes(1.0, SPBLK_R_32F)), plain.scalar(false, &scalar_bytes(0.5, SPBLK_R_32F)));
    for (name, status) in sequence(plain.handle, &x, scalars) {
        assert_eq!(status, SPBLK_STATUS_SUCCESS, "{name} on a plain stream: {}", last_message());
    }
    let want = outputs(&plain, &x);

    // The same inputs, captured on a stream of their own and replayed.
    let mut side = Side::new(Kind::Cuda);
    let y = inputs(&mut side, 79);
    let scalars =
        (side.scalar(false, &scalar_bytes(1.0, SPBLK_R_32F)), side.scalar(false, &scalar_bytes(0.5, SPBLK_R_32F)));
    let statuses: Vec<(&str, u32, String)> = capture_and_replay(side.handle, || {
        sequence(side.handle, &y, scalars).into_iter().map(|(n, s)| (n, s, last_message())).collect()
    });
    for (name, status, message) in &statuses {
        assert_eq!(*status, SPBLK_STATUS_SUCCESS, "{name} under capture: {message}");
    }
    let got = outputs(&side, &y);
    for ((name, w), (_, g)) in want.iter().zip(&got) {
        assert!(w == g, "{name}: the replayed graph wrote other bytes than the plain run");
    }
    for z in [&x, &y] {
        spblkSpGEMM_destroyDescr(z.gemm.3);
        for d in [z.a, z.s, z.back, z.gemm.0, z.gemm.1] {
            spblkDestroySpMat(d);
        }
    }
    for d in [x.b, x.c, x.d1, x.d2, x.dense, y.b, y.c, y.d1, y.d2, y.dense] {
        spblk::capi::dense::spblkDestroyDnMat(d);
    }
    spblkDestroyMatDescr(x.descr);
    spblkDestroyMatDescr(y.descr);
}
