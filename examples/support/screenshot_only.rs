//! Command lines for the examples whose only option is `--screenshot PATH`. Shared with
//! `#[path = "support/screenshot_only.rs"] mod screenshot_only;` beside `support/screenshot.rs`.

use std::path::PathBuf;

use super::screenshot::ScreenshotPlugin;

/// The screenshot the command line asks for, if any; prints the usage of `example` and exits on
/// anything else.
pub(crate) fn screenshot_arg(example: &str) -> Option<ScreenshotPlugin> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--screenshot" => Some(ScreenshotPlugin {
            path: PathBuf::from(path),
        }),
        _ => {
            eprintln!("usage: {example} [--screenshot PATH]");
            std::process::exit(2);
        }
    }
}
