//! Timing one prepared call with CUDA events, the number of repeats chosen from its length.

use super::calls::{Call, R};
use crate::gpu::{DevBuf, Gpu};
use crate::stats;

/// How many calls to time.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Warm-up calls (each timed, to size the repeats; not reported).
    pub warmup: usize,
    /// Timed calls at least, for calls up to `slow_ms`.
    pub min_reps: usize,
    /// Timed calls at most.
    pub max_reps: usize,
    /// Calls longer than this may be timed fewer than `min_reps` times (but `slow_reps` at
    /// least).
    pub slow_ms: f64,
    pub slow_reps: usize,
    /// The timed calls of one library in one case stop after about this many seconds (of GPU
    /// time) once the minimum is reached.
    pub cap_s: f64,
}

impl Policy {
    /// Timed calls for a call that took `t_ms`.
    pub fn reps(&self, t_ms: f64) -> usize {
        let fit = if t_ms > 0.0 { (self.cap_s * 1e3 / t_ms).floor() as usize } else { self.max_reps };
        if t_ms <= self.slow_ms {
            fit.clamp(self.min_reps, self.max_reps.max(self.min_reps))
        } else {
            fit.clamp(self.slow_reps, self.min_reps.max(self.slow_reps))
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "CUDA events around each call; {} warm-up call(s) per library and case (timed, to size the repeats; a \
             second and later warm-up only when the first took < {:.0} s); then the median of {}..{} timed calls \
             (as many as fit in {} s), or {}..{} for calls > {} ms",
            self.warmup,
            2.0 * self.cap_s,
            self.min_reps,
            self.max_reps.max(self.min_reps),
            self.cap_s,
            self.slow_reps,
            self.min_reps.max(self.slow_reps),
            self.slow_ms
        )
    }
}

/// What was measured.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub samples: Vec<f64>,
}

/// Warm-up, then the timed calls, each preceded (outside its events) by a write of `flush`
/// when given, so that no call finds its operands left in L2 by the one before.
pub fn time(gpu: &Gpu, pol: &Policy, flush: Option<&DevBuf>, call: &mut dyn Call) -> R<Timing> {
    let flush_now = || -> R<()> {
        if let Some(f) = flush {
            gpu.fill_u32(f.ptr, 0, f.bytes / 4)?;
        }
        Ok(())
    };
    let one = |call: &mut dyn Call| -> R<f64> {
        flush_now()?;
        let (a, b) = (gpu.event()?, gpu.event()?);
        gpu.record(&a)?;
        call.run()?;
        gpu.record(&b)?;
        Ok(gpu.elapsed_ms(&a, &b)?)
    };
    let mut est = f64::INFINITY;
    for w in 0..pol.warmup.max(1) {
        if w > 0 && est > 2e3 * pol.cap_s {
            break;
        }
        est = est.min(one(call)?);
    }
    let reps = pol.reps(est);
    let mut events = Vec::with_capacity(reps);
    for _ in 0..reps {
        flush_now()?;
        let (a, b) = (gpu.event()?, gpu.event()?);
        gpu.record(&a)?;
        call.run()?;
        gpu.record(&b)?;
        events.push((a, b));
    }
    gpu.sync()?;
    let mut samples = Vec::with_capacity(reps);
    for (a, b) in &events {
        samples.push(gpu.elapsed_ms(a, b)?);
    }
    Ok(Timing {
        median_ms: stats::median(&samples),
        min_ms: stats::min(&samples),
        max_ms: stats::max(&samples),
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_follow_the_policy() {
        let p = Policy { warmup: 2, min_reps: 5, max_reps: 20, slow_ms: 50.0, slow_reps: 3, cap_s: 0.5 };
        assert_eq!(p.reps(0.01), 20);
        assert_eq!(p.reps(0.0), 20);
        assert_eq!(p.reps(10.0), 20, "0.5 s / 10 ms = 50, capped at 20");
        assert_eq!(p.reps(40.0), 12);
        assert_eq!(p.reps(50.0), 10);
        assert_eq!(p.reps(99.0), 5, "slow: at most the minimum");
        assert_eq!(p.reps(200.0), 3, "slow: 0.5 s / 200 ms = 2, at least 3");
        assert_eq!(p.reps(5000.0), 3);
        let q = Policy { cap_s: 0.01, ..p.clone() };
        assert_eq!(q.reps(45.0), 5, "fast calls get the minimum whatever the cap");
        assert!(p.describe().contains("median of 5..20"));
    }
}
