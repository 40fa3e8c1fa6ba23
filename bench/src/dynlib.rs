//! Finding NVIDIA's shared libraries (cuSPARSE, cuBLAS) at run time: an explicit path, the
//! system loader's own search, then the usual CUDA toolkit directories and NVIDIA's Python
//! wheels. cudarc's bindings then `dlopen` the library by its SONAME, which finds the copy
//! loaded here.

use std::path::{Path, PathBuf};

use crate::gpu::Res;

/// One library to find: the file-name stem (`libcusparse.so`), the libraries it needs from
/// the same directory, loaded first (`libnvJitLink.so.`), and cudarc's presence probe.
pub struct Wanted {
    pub stem: &'static str,
    pub companions: &'static [&'static str],
    pub present: fn() -> bool,
    /// For messages: "libcusparse.so.12".
    pub display: &'static str,
    /// The command-line option that overrides the search.
    pub flag: &'static str,
}

/// Directories where CUDA toolkits usually put their libraries.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.push(PathBuf::from(&v).join("lib64"));
            dirs.push(PathBuf::from(&v).join("targets/x86_64-linux/lib"));
        }
    }
    for d in ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"] {
        dirs.push(PathBuf::from(d));
    }
    if let Ok(rd) = std::fs::read_dir("/usr/local") {
        let mut v: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("cuda-")))
            .collect();
        v.sort();
        for p in v.into_iter().rev() {
            dirs.push(p.join("lib64"));
            dirs.push(p.join("targets/x86_64-linux/lib"));
        }
    }
    dirs
}

/// A bounded walk below `root` for directories holding `stem`* (Python wheels:
/// site-packages/nvidia/cu13/lib, nvidia/cusparse/lib, nvidia/cublas/lib).
fn walk(root: &Path, stem: &str, depth: usize, found: &mut Vec<PathBuf>) {
    if depth == 0 || found.len() > 8 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(root) else { return };
    for e in rd.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        let p = e.path();
        if ft.is_dir() && !ft.is_symlink() {
            walk(&p, stem, depth - 1, found);
        } else if e.file_name().to_string_lossy().starts_with(stem) && !found.contains(&root.to_path_buf()) {
            found.push(root.to_path_buf());
        }
    }
}

/// The versioned file (`stem.N`) in `dir`, preferring the longest name (the SONAME over the
/// development link).
fn lib_in(dir: &Path, stem: &str) -> Option<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(stem)))
        .collect();
    v.sort_by_key(|p| std::cmp::Reverse(p.file_name().map(|n| n.len()).unwrap_or(0)));
    v.into_iter().find(|p| p.to_string_lossy().contains(".so."))
}

/// Loads `file` and, first, its companions from the same directory, keeping them loaded for
/// the life of the process.
fn preload(file: &Path, companions: &[&str]) -> Res<()> {
    if let Some(dir) = file.parent() {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if companions.iter().any(|c| name.starts_with(c)) {
                    // SAFETY: loading a shared library runs its initializers; NVIDIA's are benign.
                    if let Ok(l) = unsafe { libloading::Library::new(e.path()) } {
                        std::mem::forget(l);
                    }
                }
            }
        }
    }
    // SAFETY: as above.
    let lib = unsafe { libloading::Library::new(file) }.map_err(|e| format!("loading {}: {e}", file.display()))?;
    std::mem::forget(lib);
    Ok(())
}

/// Makes the library loadable: an explicit path (file or directory), the loader's own search,
/// or a search of the usual toolkit and Python-wheel locations. Returns where it came from.
pub fn locate(w: &Wanted, explicit: Option<&str>) -> Res<String> {
    if let Some(p) = explicit {
        let path = PathBuf::from(p);
        let file = if path.is_dir() { lib_in(&path, w.stem).ok_or(format!("no {}.* in {p}", w.stem))? } else { path };
        preload(&file, w.companions)?;
        return Ok(file.display().to_string());
    }
    if (w.present)() {
        return Ok("loader search path".into());
    }
    let try_dir = |d: &Path| -> Option<String> {
        let file = lib_in(d, w.stem)?;
        preload(&file, w.companions).ok()?;
        (w.present)().then(|| file.display().to_string())
    };
    for d in candidate_dirs() {
        if let Some(f) = try_dir(&d) {
            return Ok(f);
        }
    }
    // Python wheels, e.g. /opt/<env>/.venv/lib/python3.12/site-packages/nvidia/cu13/lib.
    let mut found = Vec::new();
    for root in ["/opt", "/usr/local/lib", "/usr/lib", "/root/.local/lib"] {
        walk(Path::new(root), w.stem, 10, &mut found);
    }
    for d in found {
        if let Some(f) = try_dir(&d) {
            return Ok(f);
        }
    }
    Err(format!(
        "{} was not found (searched the loader path, CUDA_HOME, /usr/local/cuda*, and NVIDIA Python wheels \
         under /opt, /usr/lib, /usr/local/lib); pass {} PATH or set LD_LIBRARY_PATH",
        w.display, w.flag
    ))
}
