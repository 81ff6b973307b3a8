//! What the plugin's integration tests share: one small deterministic PRNG, and stepping an app
//! until a condition holds. The wait is bounded in wall-clock time rather than in frames: builds
//! run on other threads, which a busy machine slows down while frames stay quick.

use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift), so failures replay.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[low, high)`.
    pub(crate) fn range(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }
}

/// The longest any test waits for the streamers, however slow the machine.
pub(crate) const PATIENCE: Duration = Duration::from_secs(180);

/// Steps `subject` with `step` until `done` holds, giving the build threads the cores between
/// frames; returns the frames it took.
///
/// # Panics
/// After [`PATIENCE`], naming `what`.
pub(crate) fn step_until<T>(
    subject: &mut T,
    what: &str,
    mut step: impl FnMut(&mut T),
    mut done: impl FnMut(&mut T) -> bool,
) -> u64 {
    let started = Instant::now();
    for frame in 1.. {
        step(subject);
        if done(subject) {
            return frame;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "{what}: not reached in {PATIENCE:?} ({frame} frames)"
        );
        std::thread::sleep(Duration::from_micros(100));
    }
    unreachable!("frames run until done or out of patience")
}

/// Steps until `idle` holds two frames running (an anchor moved in one frame is seen by the
/// streamers in the next, once transforms propagate); returns the frames it took.
///
/// # Panics
/// After [`PATIENCE`], naming `what`.
pub(crate) fn step_until_idle<T>(
    subject: &mut T,
    what: &str,
    step: impl FnMut(&mut T),
    mut idle: impl FnMut(&mut T) -> bool,
) -> u64 {
    let mut idle_frames = 0;
    step_until(subject, what, step, |subject| {
        idle_frames = if idle(subject) { idle_frames + 1 } else { 0 };
        idle_frames >= 2
    })
}
