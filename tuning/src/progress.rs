//! Progress bars of the long runs (`spsa`, `verify`).

use indicatif::{ProgressBar, ProgressStyle};

/// The progress bar of a run of games (SPSA, verify): games played of `total`, a message,
/// time spent and left; hidden without `progress`.
pub fn games_bar(total: u64, progress: bool) -> Result<ProgressBar, String> {
    let bar = if progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games | {msg} | elapsed {elapsed_precise} | left {eta_precise}",
        )
        .map_err(|e| e.to_string())?,
    );
    Ok(bar)
}
