//! The shared library exports exactly the C API: every function named in the issue and in
//! `include/spblk.h` is a dynamic symbol, and no other `spblk*` symbol leaks from Rust.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// Functions the C API must provide (cuSPARSE names with cusparse → spblk, plus additions).
const REQUIRED: &[&str] = &[
    "spblkCreate",
    "spblkDestroy",
    "spblkSetStream",
    "spblkGetStream",
    "spblkGetVersion",
    "spblkGetProperty",
    "spblkGetErrorName",
    "spblkGetErrorString",
    "spblkSetPointerMode",
    "spblkGetPointerMode",
    "spblkCreateCsr",
    "spblkCreateConstCsr",
    "spblkCreateCsc",
    "spblkCreateCoo",
    "spblkDestroySpMat",
    "spblkSpMatGetSize",
    "spblkSpMatGetFormat",
    "spblkSpMatGetIndexBase",
    "spblkSpMatGetValues",
    "spblkSpMatSetValues",
    "spblkSpMatGetAttribute",
    "spblkSpMatSetAttribute",
    "spblkCsrGet",
    "spblkCsrSetPointers",
    "spblkCooGet",
    "spblkCreateDnMat",
    "spblkDestroyDnMat",
    "spblkDnMatGet",
    "spblkDnMatGetValues",
    "spblkDnMatSetValues",
    "spblkCreateDnVec",
    "spblkDestroyDnVec",
    "spblkDnVecGet",
    "spblkSpMV_bufferSize",
    "spblkSpMV_preprocess",
    "spblkSpMV",
    "spblkSpMM_bufferSize",
    "spblkSpMM_preprocess",
    "spblkSpMM",
    "spblkSDDMM_bufferSize",
    "spblkSDDMM_preprocess",
    "spblkSDDMM",
    "spblkSpGEMM_createDescr",
    "spblkSpGEMM_destroyDescr",
    "spblkSpGEMM_workEstimation",
    "spblkSpGEMM_compute",
    "spblkSpGEMM_copy",
    "spblkSpGEMM_getNumProducts",
    "spblkSpGEMM_estimateMemory",
    "spblkSpGEMMreuse_workEstimation",
    "spblkSpGEMMreuse_nnz",
    "spblkSpGEMMreuse_copy",
    "spblkSpGEMMreuse_compute",
    "spblkCsr2cscEx2_bufferSize",
    "spblkCsr2cscEx2",
    "spblkCreateWithBackend",
    "spblkGetBackend",
    "spblkGetLastErrorMessage",
    "spblkAnalyze",
    "spblkAnalysisParamsInit",
    "spblkAnalysisGetInfo",
    "spblkCreateConstCsc",
    "spblkCreateConstCoo",
    "spblkCscGet",
    "spblkCscSetPointers",
    "spblkCooSetPointers",
    "spblkConstSpMatGetValues",
    "spblkCreateConstDnMat",
    "spblkCreateConstDnVec",
    "spblkConstDnMatGetValues",
    "spblkConstDnVecGetValues",
];

fn library() -> PathBuf {
    // target/<profile>/deps/exports-<hash> → target/<profile>/libspblk.so
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("libspblk.so")
}

fn header_functions() -> BTreeSet<String> {
    let header = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/spblk.h")).unwrap();
    header
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            // `<return type> spblkName(`: a status, a string, or (the legacy getters) an enum.
            let (head, _) = l.split_once('(')?;
            if !(head.starts_with("spblk") || head.starts_with("const char *")) {
                return None;
            }
            let name = head.rsplit([' ', '*']).next()?.trim();
            name.starts_with("spblk").then(|| name.to_string())
        })
        .collect()
}

fn newest_mtime(dir: &std::path::Path) -> std::time::SystemTime {
    let mut newest = std::time::SystemTime::UNIX_EPOCH;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let t = if path.is_dir() { newest_mtime(&path) } else { entry.metadata().unwrap().modified().unwrap() };
        newest = newest.max(t);
    }
    newest
}

#[test]
fn shared_library_exports_exactly_the_c_api() {
    let lib = library();
    // `cargo test` links the tests against the rlib and may leave an older cdylib in place;
    // a stale library would make this test check old code.
    let built = std::fs::metadata(&lib)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| panic!("{} is missing: run `cargo build` before `cargo test`", lib.display()));
    let newest_source = newest_mtime(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        built >= newest_source,
        "{} is older than the sources: run `cargo build` before `cargo test`",
        lib.display()
    );
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("nm not found");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let exported: BTreeSet<String> = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (_, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
            (kind == "T" && name.starts_with("spblk")).then(|| name.to_string())
        })
        .collect();
    for f in REQUIRED {
        assert!(exported.contains(*f), "{f} is not exported");
    }
    let declared = header_functions();
    assert!(declared.len() >= REQUIRED.len(), "header parse found {} functions", declared.len());
    assert_eq!(exported, declared, "exported spblk* symbols must be exactly the header's functions");
    // Nothing else named spblk (Rust-mangled symbols contain "spblk" but not at the start).
    let stray: Vec<&str> = text.lines().filter(|l| l.contains(" spblk") && !l.contains(" T ")).collect();
    assert!(stray.is_empty(), "unexpected spblk symbols: {stray:?}");
}
