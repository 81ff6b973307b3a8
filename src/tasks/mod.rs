//! Where chunk builds run: Bevy's async compute pool. Builds yield their thread between blocks
//! of points (in `biome_core`), so on machines with few cores a frame waiting for a core waits
//! about 0.1 ms, not a whole build; running the pool's threads at background priority also keeps
//! world generation to the CPU time nothing else wants, for apps that keep every core busy.

use std::sync::Arc;

use bevy::app::TaskPoolThreadAssignmentPolicy;

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
