//! The dependency direction `capi → ops → {descr, plan, analysis, backend}` → {`abi`, `types`,
//! `error`}, checked on the source text: a module that names a layer above it fails here.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Source files under `src/` (relative paths with '/') and their code with comments removed,
/// so that a doc comment may still mention a layer by name.
fn sources() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            let code: String = text
                .lines()
                .map(|l| match l.find("//") {
                    Some(i) => &l[..i],
                    None => l,
                })
                .collect::<Vec<_>>()
                .join("\n");
            (rel, code)
        })
        .collect()
}

/// Files in `scope` (path prefixes) that mention any of `forbidden`.
fn violations(scope: &[&str], forbidden: &[&str]) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(rel, _)| scope.iter().any(|s| rel.starts_with(s)))
        .flat_map(|(rel, code)| {
            forbidden.iter().filter(|f| code.contains(**f)).map(move |f| format!("{rel} names {f}")).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn nothing_outside_capi_names_capi() {
    let below = ["src/abi.rs", "src/analysis", "src/backend", "src/descr.rs", "src/error.rs", "src/numeric.rs"];
    let more = ["src/ops", "src/plan.rs", "src/trace.rs", "src/logger.rs", "src/types.rs", "src/bin"];
    let v = violations(&[&below[..], &more[..]].concat(), &["crate::capi", "spblk::capi", "super::capi"]);
    assert!(v.is_empty(), "layers below the C boundary must not import it:\n{}", v.join("\n"));
}

#[test]
fn backends_descriptors_and_analysis_do_not_name_ops() {
    let v = violations(
        &["src/backend", "src/descr.rs", "src/plan.rs", "src/analysis", "src/types.rs", "src/abi.rs"],
        &["crate::ops"],
    );
    assert!(v.is_empty(), "{}", v.join("\n"));
}

#[test]
fn descriptors_and_plans_do_not_name_the_backends() {
    // The backends read descriptors and fill plans; the other way round would be a cycle.
    let v = violations(&["src/descr.rs", "src/plan.rs", "src/analysis"], &["crate::backend"]);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

#[test]
fn analysis_is_pure_host_code() {
    let v = violations(&["src/analysis"], &["crate::descr", "crate::plan", "unsafe "]);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

#[test]
fn the_leaf_modules_import_no_layer() {
    let layers = ["crate::capi", "crate::ops", "crate::backend", "crate::descr", "crate::plan", "crate::analysis"];
    let v = violations(&["src/abi.rs", "src/types.rs", "src/error.rs", "src/trace.rs", "src/os.rs"], &layers);
    assert!(v.is_empty(), "{}", v.join("\n"));
}
