//! Where builds run: Bevy's async compute pool, each as a [`BuildTask`] that is cancelled when
//! dropped and that turns a refusal or a panic into a reported failure, so no build can take the
//! game down through `check_ready`. Builds yield their thread between blocks of points (in
//! `biome_core`), so on machines with few cores a frame waiting for a core waits about 0.1 ms,
//! not a whole build; running the pool's threads at background priority also keeps world
//! generation to the CPU time nothing else wants, for apps that keep every core busy.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bevy::app::TaskPoolThreadAssignmentPolicy;
use bevy::platform::time::Instant;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::ChunkError;

/// How a build ended.
pub(crate) enum BuildOutcome<T> {
    Built(T),
    /// Refused by the core, or panicked: the reason as it was given.
    Failed(String),
    Cancelled,
}

/// A finished build: how it ended, and how long it ran.
pub(crate) struct Finished<T> {
    pub(crate) outcome: BuildOutcome<T>,
    pub(crate) took: Duration,
}

/// A build on the async compute pool. Dropping it cancels the build, even one already running:
/// the core looks at the flag between blocks of points.
pub(crate) struct BuildTask<T> {
    task: Task<Finished<T>>,
    cancel: Arc<AtomicBool>,
}

impl<T: Send + 'static> BuildTask<T> {
    /// Starts `build` on the async compute pool; it is handed the cancellation flag.
    pub(crate) fn spawn(
        build: impl FnOnce(&AtomicBool) -> Result<T, ChunkError> + Send + 'static,
    ) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let started = Instant::now();
            let outcome = run_build(|| build(&flag));
            Finished {
                outcome,
                took: started.elapsed(),
            }
        });
        Self { task, cancel }
    }

    /// The build's end, once it has ended.
    pub(crate) fn poll(&mut self) -> Option<Finished<T>> {
        check_ready(&mut self.task)
    }
}

impl<T> Drop for BuildTask<T> {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Runs one build, turning a refusal or a panic into [`BuildOutcome::Failed`].
fn run_build<T>(build: impl FnOnce() -> Result<T, ChunkError>) -> BuildOutcome<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(build)) {
        Ok(Ok(built)) => BuildOutcome::Built(built),
        Ok(Err(ChunkError::Cancelled)) => BuildOutcome::Cancelled,
        Ok(Err(error)) => BuildOutcome::Failed(error.to_string()),
        Err(panic) => BuildOutcome::Failed(
            panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the build panicked".to_owned()),
        ),
    }
}

/// An async compute pool for chunk builds whose threads run at background priority (Linux:
/// `SCHED_IDLE`; elsewhere the platform default): `percent` of the cores, from 1 to
/// `max_threads` threads. Use it in `TaskPoolPlugin`:
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_biome_world::background_async_compute;
///
/// App::new().add_plugins(DefaultPlugins.set(TaskPoolPlugin {
///     task_pool_options: TaskPoolOptions {
///         async_compute: background_async_compute(0.5, 8),
///         ..default()
///     },
/// }));
/// ```
///
/// Builds then use only CPU time that the frame does not: on a busy two-core machine that keeps
/// the frame smooth, and generation waits for idle time (a frame loop capped by vsync leaves
/// plenty). Other async compute work in the app runs at that priority too.
#[must_use]
pub fn background_async_compute(
    percent: f32,
    max_threads: usize,
) -> TaskPoolThreadAssignmentPolicy {
    TaskPoolThreadAssignmentPolicy {
        min_threads: 1,
        max_threads: max_threads.max(1),
        percent,
        on_thread_spawn: Some(Arc::new(lower_this_thread)),
        on_thread_destroy: None,
    }
}

/// Moves the calling thread to background priority.
#[cfg(target_os = "linux")]
fn lower_this_thread() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `sched_setscheduler` reads `param` only during the call; pid 0 is the calling
    // thread. A refusal leaves the thread as it was, which is harmless.
    #[expect(
        unsafe_code,
        reason = "a call into libc to set the thread's scheduling policy"
    )]
    let result = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &raw const param) };
    if result != 0 {
        bevy::log::debug!("could not lower the chunk builder thread's priority");
    }
}

/// Moves the calling thread to background priority (not supported here: a no-op).
#[cfg(not(target_os = "linux"))]
fn lower_this_thread() {}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::tasks::TaskPool;

    #[test]
    fn a_panicking_or_refused_build_becomes_a_failure() {
        let outcome = run_build::<()>(|| panic!("boom in chunk"));
        assert!(matches!(outcome, BuildOutcome::Failed(reason) if reason == "boom in chunk"));
        let outcome = run_build::<()>(|| panic!("{} in chunk", 42));
        assert!(matches!(outcome, BuildOutcome::Failed(reason) if reason == "42 in chunk"));
        let outcome = run_build::<()>(|| Err(ChunkError::Cancelled));
        assert!(matches!(outcome, BuildOutcome::Cancelled));
    }

    #[test]
    fn dropping_a_build_task_cancels_its_build() {
        AsyncComputeTaskPool::get_or_init(TaskPool::default);
        let (seen, started) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(std::sync::Barrier::new(2)),
        );
        let (flag, barrier) = (seen.clone(), started.clone());
        let task = BuildTask::spawn(move |cancel| {
            barrier.wait();
            // Runs until cancelled, as a long build would.
            while !cancel.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            flag.store(true, Ordering::Relaxed);
            Err::<(), _>(ChunkError::Cancelled)
        });
        started.wait();
        drop(task);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !seen.load(Ordering::Relaxed) {
            assert!(
                std::time::Instant::now() < deadline,
                "the build kept running"
            );
            std::thread::yield_now();
        }
    }
}
