//! `--vbr` options: the case grid, precisions, timing policy.

use super::Prec;

/// The synthetic grid of the 1-SA paper's experiment (A(Δ, θ, ρ), rows scrambled).
pub const DEFAULT_N: &[usize] = &[8192, 32768];
pub const DEFAULT_THETA: &[f64] = &[0.01, 0.05, 0.1];
pub const DEFAULT_RHO: &[f64] = &[0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
pub const DEFAULT_WIDTH: &[usize] = &[128, 1024, 4096];
/// Dense widths for Matrix Market files when `--vbr-width` is not given.
pub const DEFAULT_MTX_WIDTH: &[usize] = &[128, 1024];
/// `--vbr-quick`: the target cases only.
pub const QUICK_N: &[usize] = &[32768, 8192];
pub const QUICK_THETA: &[f64] = &[0.1];
pub const QUICK_RHO: &[f64] = &[0.2, 0.5];
pub const QUICK_WIDTH: &[usize] = &[128, 4096];

/// What C is when A and B are f16 or bf16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfOut {
    /// f32 C when cuSPARSE accepts it (probed at start), else the input type.
    Auto,
    F32,
    /// C of the input type (f16 or bf16), compute still f32.
    Same,
}

#[derive(Clone, Debug)]
pub struct Opts {
    pub on: bool,
    pub quick: bool,
    pub n: Option<Vec<usize>>,
    pub theta: Option<Vec<f64>>,
    pub rho: Option<Vec<f64>>,
    pub width: Option<Vec<usize>>,
    pub delta: usize,
    pub types: Vec<Prec>,
    pub synthetic: bool,
    /// Per-library cap on the timed calls of one case, seconds.
    pub time_cap_s: f64,
    pub sample_rows: usize,
    pub flush_l2: bool,
    pub dense: bool,
    pub half_out: HalfOut,
    pub cublas_lib: Option<String>,
    /// With --dry-run: run the 1-SA analysis on spblk's host backend (no GPU).
    pub host_analysis: bool,
    /// Flags seen, for the "needs --vbr" check.
    pub seen: Vec<String>,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            on: false,
            quick: false,
            n: None,
            theta: None,
            rho: None,
            width: None,
            delta: 64,
            types: vec![Prec::F16, Prec::F32, Prec::Tf32],
            synthetic: true,
            time_cap_s: 0.5,
            sample_rows: 512,
            flush_l2: true,
            dense: true,
            half_out: HalfOut::Auto,
            cublas_lib: None,
            host_analysis: false,
            seen: Vec::new(),
        }
    }
}

fn list<T>(flag: &str, v: &str, f: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    let out: Vec<T> = v
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| f(s).ok_or_else(|| format!("{flag}: '{s}' is not valid")))
        .collect::<Result<_, _>>()?;
    if out.is_empty() {
        return Err(format!("{flag} needs at least one value"));
    }
    Ok(out)
}

fn size(s: &str) -> Option<usize> {
    if let Some(e) = s.strip_prefix("2^") {
        return e.parse::<u32>().ok().filter(|&e| e < 40).map(|e| 1usize << e);
    }
    s.parse().ok().or_else(|| s.parse::<f64>().ok().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as usize))
}

fn unit(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|x| *x > 0.0 && *x <= 1.0)
}

impl Opts {
    /// Handles one `--vbr*` flag; `value` fetches the flag's argument. `Ok(false)`: not ours.
    pub fn take(&mut self, flag: &str, value: &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String> {
        if !flag.starts_with("--vbr") && flag != "--cublas-lib" {
            return Ok(false);
        }
        match flag {
            "--vbr" => self.on = true,
            "--vbr-quick" => {
                self.on = true;
                self.quick = true;
            }
            "--vbr-n" => self.n = Some(list(flag, &value()?, size)?.into_iter().filter(|&n| n > 0).collect()),
            "--vbr-theta" => self.theta = Some(list(flag, &value()?, unit)?),
            "--vbr-rho" => self.rho = Some(list(flag, &value()?, unit)?),
            "--vbr-width" => {
                let w = list(flag, &value()?, size)?;
                if w.contains(&0) {
                    return Err("--vbr-width values must be positive".into());
                }
                self.width = Some(w);
            }
            "--vbr-delta" => {
                self.delta = size(&value()?).filter(|&d| d > 0).ok_or("--vbr-delta needs a positive integer")?
            }
            "--vbr-types" => {
                let mut t = list(flag, &value()?, Prec::parse)?;
                t.dedup();
                self.types = t;
            }
            "--vbr-no-synthetic" => self.synthetic = false,
            "--vbr-time-cap" => {
                self.time_cap_s = value()?
                    .parse::<f64>()
                    .ok()
                    .filter(|x| *x > 0.0)
                    .ok_or("--vbr-time-cap needs a positive number of seconds")?
            }
            "--vbr-sample-rows" => {
                self.sample_rows =
                    size(&value()?).filter(|&r| r > 0).ok_or("--vbr-sample-rows needs a positive integer")?
            }
            "--vbr-no-flush" => self.flush_l2 = false,
            "--vbr-no-dense" => self.dense = false,
            "--vbr-half-out" => {
                self.half_out = match value()?.as_str() {
                    "auto" => HalfOut::Auto,
                    "f32" => HalfOut::F32,
                    "same" => HalfOut::Same,
                    other => return Err(format!("--vbr-half-out: '{other}' is not auto, f32 or same")),
                }
            }
            "--vbr-host-analysis" => self.host_analysis = true,
            "--cublas-lib" => self.cublas_lib = Some(value()?),
            other => return Err(format!("unknown argument '{other}' (see --help)")),
        }
        if flag != "--vbr" && flag != "--vbr-quick" {
            self.seen.push(flag.to_string());
        }
        Ok(true)
    }

    /// After parsing: `--vbr-*` options need `--vbr` or `--vbr-quick`.
    pub fn finish(&self) -> Result<(), String> {
        if !self.on && !self.seen.is_empty() {
            return Err(format!("{} needs --vbr (or --vbr-quick)", self.seen.join(", ")));
        }
        if self.on && self.types.is_empty() {
            return Err("--vbr-types is empty".into());
        }
        Ok(())
    }

    pub fn n_list(&self) -> Vec<usize> {
        self.n.clone().unwrap_or_else(|| if self.quick { QUICK_N } else { DEFAULT_N }.to_vec())
    }
    pub fn theta_list(&self) -> Vec<f64> {
        self.theta.clone().unwrap_or_else(|| if self.quick { QUICK_THETA } else { DEFAULT_THETA }.to_vec())
    }
    pub fn rho_list(&self) -> Vec<f64> {
        self.rho.clone().unwrap_or_else(|| if self.quick { QUICK_RHO } else { DEFAULT_RHO }.to_vec())
    }
    pub fn synthetic_widths(&self) -> Vec<usize> {
        self.width.clone().unwrap_or_else(|| if self.quick { QUICK_WIDTH } else { DEFAULT_WIDTH }.to_vec())
    }
    pub fn mtx_widths(&self) -> Vec<usize> {
        self.width.clone().unwrap_or_else(|| DEFAULT_MTX_WIDTH.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Opts, String> {
        let mut o = Opts::default();
        let mut i = 0;
        while i < args.len() {
            let flag = args[i];
            let mut value = || -> Result<String, String> {
                i += 1;
                args.get(i).map(|s| s.to_string()).ok_or_else(|| format!("{flag} needs a value"))
            };
            assert!(o.take(flag, &mut value)?, "{flag} not taken");
            i += 1;
        }
        o.finish()?;
        Ok(o)
    }

    #[test]
    fn defaults_quick_and_lists() {
        let o = parse(&["--vbr"]).unwrap();
        assert_eq!(o.n_list(), vec![8192, 32768]);
        assert_eq!(o.rho_list().len(), 6);
        assert_eq!(o.synthetic_widths(), vec![128, 1024, 4096]);
        assert_eq!(o.mtx_widths(), vec![128, 1024]);
        let q = parse(&["--vbr-quick"]).unwrap();
        assert!(q.on && q.quick);
        assert_eq!((q.n_list(), q.theta_list(), q.rho_list()), (vec![32768, 8192], vec![0.1], vec![0.2, 0.5]));
        assert_eq!(q.synthetic_widths(), vec![128, 4096]);
        let o = parse(&["--vbr", "--vbr-n", "2^10,4096", "--vbr-types", "f32,tf32", "--vbr-width", "64"]).unwrap();
        assert_eq!(o.n_list(), vec![1024, 4096]);
        assert_eq!(o.types, vec![Prec::F32, Prec::Tf32]);
        assert_eq!(o.mtx_widths(), vec![64], "--vbr-width applies to Matrix Market files too");
    }

    #[test]
    fn rejects_bad_values_and_orphans() {
        assert!(parse(&["--vbr-n", "100"]).is_err(), "needs --vbr");
        assert!(parse(&["--vbr", "--vbr-rho", "0"]).is_err());
        assert!(parse(&["--vbr", "--vbr-rho", "1.5"]).is_err());
        assert!(parse(&["--vbr", "--vbr-types", "f64"]).is_err());
        assert!(parse(&["--vbr", "--vbr-width", "0"]).is_err());
        assert!(parse(&["--vbr", "--vbr-half-out", "x"]).is_err());
        assert!(parse(&["--vbr", "--vbr-bogus"]).is_err());
    }
}
