//! Sparse vectors (`spblkAxpby`, `spblkGather`, `spblkScatter`, `spblkRot`, `spblkSpVV`) on
//! the host backend and (with a GPU) the CUDA backend, against a naive f64 reference: every
//! value type, both index widths and bases, host and device pointer modes, indices in random
//! order, empty vectors, beta = 0 over a NaN-filled Y, and dot products long enough to use
//! many thread blocks. Exact inputs (multiples of 1/4) are compared bit for bit. Then: the
//! host's checks of X's indices, the copies of every element width, and capture into a CUDA
//! graph.

use super::*;
use spblk::capi::sp_vec::*;
use spblk::capi::spvec_ops::*;

/// Unit roundoff of a value type.
fn unit(t: spblkDataType_t) -> f64 {
    match t {
        SPBLK_R_64F => 2f64.powi(-53),
        SPBLK_R_16F => 2f64.powi(-11),
        SPBLK_R_16BF => 2f64.powi(-8),
        _ => 2f64.powi(-24),
    }
}

fn compute_of(t: spblkDataType_t) -> spblkDataType_t {
    if t == SPBLK_R_64F {
        SPBLK_R_64F
    } else {
        SPBLK_R_32F
    }
}

fn quantize(v: &[f64], t: spblkDataType_t) -> Vec<f64> {
    decode(&encode(v, t), t)
}

/// X (`pos`: zero-based positions, distinct, in random order) and Y of one value type.
struct Case {
    size: usize,
    pos: Vec<usize>,
    x: Vec<f64>,
    y: Vec<f64>,
    vt: spblkDataType_t,
    ity: spblkIndexType_t,
    base: spblkIndexBase_t,
    exact: bool,
    device_scalars: bool,
}

impl Case {
    fn random(r: &mut StdRng, size: usize, vt: spblkDataType_t, exact: bool) -> Case {
        let nnz = if size == 0 { 0 } else { r.gen_range(0..=size) };
        let mut pos: Vec<usize> = (0..size).collect();
        pos.shuffle(r);
        pos.truncate(nnz);
        Case {
            size,
            x: quantize(&some_values(r, nnz, exact), vt),
            y: quantize(&some_values(r, size, exact), vt),
            pos,
            vt,
            ity: if r.gen_bool(0.5) { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I },
            base: r.gen_range(0..2),
            exact,
            device_scalars: r.gen_bool(0.5),
        }
    }

    fn indices(&self) -> Vec<u8> {
        let base = self.base as i64;
        idx_bytes(&self.pos.iter().map(|&p| p as i64 + base).collect::<Vec<_>>(), self.ity)
    }

    fn scalar(&self, r: &mut StdRng, lo: f64, hi: f64) -> f64 {
        quantize(&[some_scalar(r, lo, hi, self.exact)], self.vt)[0]
    }
}

/// The case's vectors in `side`'s memory: (X, X's values, Y, Y's values).
struct Vecs {
    x: spblkSpVecDescr_t,
    xv: *mut c_void,
    y: spblkDnVecDescr_t,
    yv: *mut c_void,
}

impl Vecs {
    fn new(side: &mut Side, c: &Case, y: &[u8]) -> Vecs {
        let xi = side.put(&c.indices());
        let xv = side.put(&encode(&c.x, c.vt));
        let yv = side.put(y);
        let (mut x, mut yd) = (std::ptr::null_mut(), std::ptr::null_mut());
        let nnz = c.pos.len() as i64;
        ok(spblkCreateSpVec(&mut x, c.size as i64, nnz, xi, xv, c.ity, c.base, c.vt), "spblkCreateSpVec");
        ok(spblkCreateDnVec(&mut yd, c.size as i64, yv, c.vt), "spblkCreateDnVec");
        Vecs { x, xv, y: yd, yv }
    }

    fn read(&self, side: &Side, c: &Case) -> (Vec<f64>, Vec<f64>) {
        side.sync();
        let v = vsize(c.vt);
        (decode(&side.get(self.xv, c.pos.len() * v), c.vt), decode(&side.get(self.yv, c.size * v), c.vt))
    }
}

impl Drop for Vecs {
    fn drop(&mut self) {
        spblkDestroySpVec(self.x);
        spblkDestroyDnVec(self.y);
    }
}

/// |got - want| <= rel * scale elementwise (a rounding bound for a few roundings in the
/// compute and value types); with exact inputs the bits of the reference rounded to the type.
#[track_caller]
fn check(what: &str, got: &[f64], want: &[f64], scale: &[f64], rel: f64, c: &Case) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let rounded = quantize(want, c.vt);
    for i in 0..got.len() {
        assert!(got[i].is_finite(), "{what}: element {i} is {}", got[i]);
        if c.exact {
            assert_eq!(got[i].to_bits(), rounded[i].to_bits(), "{what}: element {i}: got {}, want {}", got[i], want[i]);
        } else {
            let bound = rel * scale[i] + 1e-300;
            let err = (got[i] - want[i]).abs();
            assert!(err <= bound, "{what}: element {i}: got {}, want {} (error {err:e} > {bound:e})", got[i], want[i]);
        }
    }
}

const TYPES: [spblkDataType_t; 4] = [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_16BF];
const SIZES: [usize; 5] = [0, 1, 7, 300, 5000];

#[test]
fn axpby_matches_the_reference() {
    for kind in sides("axpby_matches_the_reference") {
        let mut r = rng(41);
        for k in 0..40 {
            let vt = TYPES[k % 4];
            let c = Case::random(&mut r, SIZES[k % 5], vt, k % 3 == 0);
            let alpha = c.scalar(&mut r, -2.0, 2.0);
            // beta = 0 over a NaN-filled Y: Y must not be read; beta = 1: Y's scaling skipped.
            let (beta, y0) = match k % 4 {
                1 => (0.0, vec![f64::NAN; c.size]),
                2 => (1.0, c.y.clone()),
                _ => (c.scalar(&mut r, -2.0, 2.0), c.y.clone()),
            };
            let mut side = Side::new(kind);
            side.set_pointer_mode(c.device_scalars);
            let v = Vecs::new(&mut side, &c, &encode(&y0, vt));
            let ct = compute_of(vt);
            let (a, b) = (
                side.scalar(c.device_scalars, &scalar_bytes(alpha, ct)),
                side.scalar(c.device_scalars, &scalar_bytes(beta, ct)),
            );
            let (status, records) = spblk::trace::capture(|| spblkAxpby(side.handle, a, v.x, b, v.y));
            ok(status, "spblkAxpby");
            if kind == Kind::Cuda && !harness_on_host() {
                // A host-mode 1 is known at the call; a device-mode one is not.
                let scales = u32::from(c.size > 0 && (beta != 1.0 || c.device_scalars));
                assert_eq!(launched(&records, "spblk_spvec_scale"), scales, "axpby case {k}: Y scaled");
            }
            let (_, got) = v.read(&side, &c);
            let scaled = |i: usize| if beta == 0.0 { 0.0 } else { beta * y0[i] };
            let mut want: Vec<f64> = (0..c.size).map(scaled).collect();
            let mut scale: Vec<f64> = want.iter().map(|w| w.abs()).collect();
            for (kx, &p) in c.pos.iter().enumerate() {
                want[p] += alpha * c.x[kx];
                scale[p] += (alpha * c.x[kx]).abs();
            }
            let rel = 3.0 * (unit(vt) + unit(ct));
            check(&format!("{kind:?} axpby case {k} ({vt}, size {})", c.size), &got, &want, &scale, rel, &c);
        }
    }
}

#[test]
fn rot_matches_the_reference() {
    for kind in sides("rot_matches_the_reference") {
        let mut r = rng(43);
        for k in 0..40 {
            let vt = TYPES[k % 4];
            let c = Case::random(&mut r, SIZES[k % 5], vt, k % 3 == 0);
            let (cc, ss) = (c.scalar(&mut r, -1.0, 1.0), c.scalar(&mut r, -1.0, 1.0));
            let mut side = Side::new(kind);
            side.set_pointer_mode(c.device_scalars);
            let v = Vecs::new(&mut side, &c, &encode(&c.y, vt));
            let ct = compute_of(vt);
            let (cp, sp) = (
                side.scalar(c.device_scalars, &scalar_bytes(cc, ct)),
                side.scalar(c.device_scalars, &scalar_bytes(ss, ct)),
            );
            ok(spblkRot(side.handle, cp, sp, v.x, v.y), "spblkRot");
            let (got_x, got_y) = v.read(&side, &c);
            let (mut want_y, mut scale_y) = (c.y.clone(), c.y.iter().map(|y| y.abs()).collect::<Vec<_>>());
            let (mut want_x, mut scale_x) = (vec![0.0; c.pos.len()], vec![0.0; c.pos.len()]);
            for (kx, &p) in c.pos.iter().enumerate() {
                let (x, y) = (c.x[kx], c.y[p]);
                want_x[kx] = cc * x + ss * y;
                scale_x[kx] = (cc * x).abs() + (ss * y).abs();
                want_y[p] = cc * y - ss * x;
                scale_y[p] = (cc * y).abs() + (ss * x).abs();
            }
            let rel = 3.0 * (unit(vt) + unit(ct));
            let what = format!("{kind:?} rot case {k} ({vt}, size {})", c.size);
            check(&format!("{what}, X"), &got_x, &want_x, &scale_x, rel, &c);
            check(&format!("{what}, Y"), &got_y, &want_y, &scale_y, rel, &c);
        }
    }
}

/// Gather and Scatter copy elements of any type bit for bit: every element width (1, 2, 4,
/// 8 and 16 bytes), random bytes (NaN patterns included).
#[test]
fn gather_and_scatter_copy_every_element_width() {
    for kind in sides("gather_and_scatter_copy_every_element_width") {
        let mut r = rng(47);
        for (k, vt) in
            [SPBLK_R_8I, SPBLK_R_16F, SPBLK_R_32F, SPBLK_R_64F, SPBLK_C_32F, SPBLK_C_64F].into_iter().enumerate()
        {
            for size in [0usize, 5, 3000] {
                let mut c = Case::random(&mut r, size, SPBLK_R_32F, false);
                c.vt = vt;
                let e = vsize(vt);
                let xb: Vec<u8> = (0..c.pos.len() * e).map(|_| r.gen()).collect();
                let yb: Vec<u8> = (0..size * e).map(|_| r.gen()).collect();
                for scatter in [false, true] {
                    let mut side = Side::new(kind);
                    let xi = side.put(&c.indices());
                    let (xv, yv) = (side.put(&xb), side.put(&yb));
                    let (mut x, mut y) = (std::ptr::null_mut(), std::ptr::null_mut());
                    let nnz = c.pos.len() as i64;
                    ok(spblkCreateSpVec(&mut x, size as i64, nnz, xi, xv, c.ity, c.base, vt), "spblkCreateSpVec");
                    ok(spblkCreateDnVec(&mut y, size as i64, yv, vt), "spblkCreateDnVec");
                    let (mut want_x, mut want_y) = (xb.clone(), yb.clone());
                    for (kx, &p) in c.pos.iter().enumerate() {
                        if scatter {
                            want_y[p * e..][..e].copy_from_slice(&xb[kx * e..][..e]);
                        } else {
                            want_x[kx * e..][..e].copy_from_slice(&yb[p * e..][..e]);
                        }
                    }
                    if scatter {
                        ok(spblkScatter(side.handle, x, y), "spblkScatter");
                    } else {
                        ok(spblkGather(side.handle, y, x), "spblkGather");
                    }
                    side.sync();
                    let what = format!("{kind:?} case {k} type {vt} size {size} scatter {scatter}");
                    assert!(side.get(xv, xb.len()) == want_x, "{what}: X differs");
                    assert!(side.get(yv, yb.len()) == want_y, "{what}: Y differs");
                    spblkDestroySpVec(x);
                    spblkDestroyDnVec(y);
                }
            }
        }
    }
}

/// SpVV into host or device memory, with many thread blocks for the long vectors; the CUDA
/// result repeats bit for bit.
#[test]
fn spvv_matches_the_reference_and_repeats() {
    for kind in sides("spvv_matches_the_reference_and_repeats") {
        let mut r = rng(53);
        for k in 0..24 {
            let vt = TYPES[k % 4];
            let size = [0, 1, 300, 5000, 300_000, 1_000_000][k % 6];
            let c = Case::random(&mut r, size, vt, k % 3 == 0);
            let ct = compute_of(vt);
            let mut side = Side::new(kind);
            side.set_pointer_mode(c.device_scalars);
            let v = Vecs::new(&mut side, &c, &encode(&c.y, vt));
            let h = side.handle;
            let op = if k % 2 == 0 { N } else { SPBLK_OPERATION_CONJUGATE_TRANSPOSE };
            let mut bytes = 0usize;
            let mut host_result = vec![0xFFu8; 8];
            let result = if c.device_scalars { side.put(&[0xFF; 8]) } else { host_result.as_mut_ptr() as *mut c_void };
            ok(spblkSpVV_bufferSize(h, op, v.x, v.y, result, ct, &mut bytes), "spblkSpVV_bufferSize");
            let buf = side.buffer(bytes);
            let mut runs = vec![];
            for _ in 0..2 {
                ok(spblkSpVV(h, op, v.x, v.y, result, ct, buf), "spblkSpVV");
                let got = if c.device_scalars {
                    side.sync();
                    side.get(result, vsize(ct))
                } else {
                    host_result[..vsize(ct)].to_vec()
                };
                runs.push(decode(&got, ct)[0]);
            }
            assert_eq!(runs[0].to_bits(), runs[1].to_bits(), "{kind:?} spvv case {k}: the two runs differ");
            let want = c.pos.iter().enumerate().fold(0.0, |s, (kx, &p)| s + c.x[kx] * c.y[p]);
            let scale: f64 = c.pos.iter().enumerate().map(|(kx, &p)| (c.x[kx] * c.y[p]).abs()).sum();
            let what = format!("{kind:?} spvv case {k} ({vt}, size {size}, nnz {})", c.pos.len());
            compare(&what, &runs[..1], &[want], &[scale], c.pos.len(), ct, ct, c.exact);
        }
    }
}

/// The host backend (the reference) checks X's indices: out of range, and repeated for the
/// functions that write through them (a repeat is fine for Gather and SpVV).
#[test]
fn host_checks_the_indices_of_x() {
    let c = Case {
        size: 4,
        pos: vec![],
        x: vec![1.0, 2.0],
        y: vec![1.0; 4],
        vt: SPBLK_R_32F,
        ity: SPBLK_INDEX_32I,
        base: 0,
        exact: true,
        device_scalars: false,
    };
    for (indices, fails_all) in [([1i64, 4], true), ([2, 2], false)] {
        let mut side = Side::new(Kind::Host);
        let xi = side.put(&idx_bytes(&indices, c.ity));
        let xv = side.put(&encode(&c.x, c.vt));
        let yv = side.put(&encode(&c.y, c.vt));
        let (mut x, mut y) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateSpVec(&mut x, 4, 2, xi, xv, c.ity, c.base, c.vt), "spblkCreateSpVec");
        ok(spblkCreateDnVec(&mut y, 4, yv, c.vt), "spblkCreateDnVec");
        let one = 1f32.to_le_bytes();
        let s = one.as_ptr() as *const c_void;
        let h = side.handle;
        let mut result = 0f32;
        let rp = &mut result as *mut f32 as *mut c_void;
        let calls: [(&str, spblkStatus_t, bool); 5] = [
            ("Axpby", spblkAxpby(h, s, x, s, y), true),
            ("Scatter", spblkScatter(h, x, y), true),
            ("Rot", spblkRot(h, s, s, x, y), true),
            ("Gather", spblkGather(h, y, x), false),
            ("SpVV", spblkSpVV(h, N, x, y, rp, SPBLK_R_32F, std::ptr::null_mut()), false),
        ];
        for (name, status, writes) in calls {
            let expect_fail = fails_all || writes;
            if expect_fail {
                assert_eq!(status, SPBLK_STATUS_INVALID_VALUE, "{name} with indices {indices:?}");
            } else {
                assert_eq!(status, SPBLK_STATUS_SUCCESS, "{name} with indices {indices:?}: {}", last_message());
            }
        }
        assert_eq!(side.get(yv, 16), encode(&c.y, c.vt), "a failed call wrote Y");
        spblkDestroySpVec(x);
        spblkDestroyDnVec(y);
    }
}

/// Axpby, Gather, Scatter, Rot and SpVV (result in device memory) captured into one CUDA
/// graph and replayed give the host's results; SpVV into host memory is refused while
/// capturing (it needs the answer on the host) and leaves the capture intact.
#[test]
fn spvec_operations_are_capturable() {
    if !gpu("spvec_operations_are_capturable") || harness_on_host() {
        return;
    }
    let mut r = rng(59);
    let mut c = Case::random(&mut r, 1000, SPBLK_R_32F, true);
    c.device_scalars = true;
    // The reference: the same calls on the host backend.
    let run = |side: &mut Side| -> (Vec<f64>, Vec<f64>, f64) {
        side.set_pointer_mode(true);
        let v = Vecs::new(side, &c, &encode(&c.y, c.vt));
        let z = Vecs::new(side, &c, &encode(&c.y, c.vt));
        let (a, b) =
            (side.scalar(true, &scalar_bytes(0.5, SPBLK_R_32F)), side.scalar(true, &scalar_bytes(-1.25, SPBLK_R_32F)));
        let result = side.put(&[0xFF; 4]);
        let h = side.handle;
        let mut bytes = 0usize;
        ok(spblkSpVV_bufferSize(h, N, v.x, v.y, result, SPBLK_R_32F, &mut bytes), "spblkSpVV_bufferSize");
        let buf = side.buffer(bytes);
        side.sync();
        let calls = || {
            ok(spblkAxpby(h, a, v.x, b, v.y), "spblkAxpby");
            ok(spblkRot(h, a, b, v.x, v.y), "spblkRot");
            ok(spblkScatter(h, v.x, z.y), "spblkScatter");
            ok(spblkGather(h, v.y, z.x), "spblkGather");
            ok(spblkSpVV(h, N, z.x, v.y, result, SPBLK_R_32F, buf), "spblkSpVV");
        };
        if side.kind == Kind::Cuda {
            capture_and_replay(h, || {
                calls();
                side.set_pointer_mode(false);
                let mut host = 0f32;
                let st = spblkSpVV(h, N, z.x, v.y, &mut host as *mut f32 as *mut c_void, SPBLK_R_32F, buf);
                assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "SpVV into host memory under capture");
                assert!(last_message().contains("captur"), "{}", last_message());
            });
        } else {
            calls();
        }
        let (_, vy) = v.read(side, &c);
        let (zx, _) = z.read(side, &c);
        let dot = decode(&side.get(result, 4), SPBLK_R_32F)[0];
        (vy, zx, dot)
    };
    let want = run(&mut Side::new(Kind::Host));
    let got = run(&mut Side::new(Kind::Cuda));
    // Exact inputs (multiples of 1/4, at most 1000 entries): every result is exact in f32,
    // so the bits must agree.
    assert!(got.0 == want.0, "Y after Axpby and Rot differs");
    assert!(got.1 == want.1, "gathered X differs");
    assert_eq!(got.2.to_bits(), want.2.to_bits(), "SpVV result differs");
}
