//! Results directories; see [`numasim_output::results_dir`], which every command that writes a
//! directory shares.

pub use numasim_output::results_dir::*;
pub use numasim_output::signals::install_signal_cleanup;
