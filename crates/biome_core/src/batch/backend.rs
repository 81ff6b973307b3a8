//! The instruction sets the batch functions can run on, detected once. Public to benchmarks only
//! (feature `internals`, no semver promise).

#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};

/// An instruction set the batch functions can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One point at a time: the tutorial functions themselves.
    Scalar,
    /// Four points per instruction.
    Avx2,
    /// Eight points per instruction.
    Avx512,
}

impl Backend {
    /// The fastest backend this CPU runs, detected once.
    #[must_use]
    pub fn detect() -> Self {
        static FASTEST: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *FASTEST.get_or_init(|| {
            Self::available()
                .into_iter()
                .next_back()
                .unwrap_or(Backend::Scalar)
        })
    }

    /// Every backend this CPU runs, slowest first.
    #[must_use]
    pub fn available() -> Vec<Self> {
        let mut backends = vec![Backend::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if avx2::available() {
                backends.push(Backend::Avx2);
            }
            if avx512::available() {
                backends.push(Backend::Avx512);
            }
        }
        backends
    }

    /// The backend's name, as benchmarks print it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }
}
