//! Reports on stdout that outlive their reader.
//!
//! Rust ignores SIGPIPE, so `println!` panics when the reader of a pipe has gone
//! (`shears-tune data check | head -1` with a long report). Every report of `shears-tune`
//! goes through [`write_report`] instead ([`print_report`], or a line at a time [`say!`]): a
//! reader that has gone is not an error, as it is not for `cat`, and the command goes on to
//! its own result (a failing `data check` still fails); any other failure to write is an
//! error, returned like every other.

use std::io::{ErrorKind, Write};

/// Writes `text` to `out` and flushes it. A reader that has gone is not an error; any other
/// failure to write is.
pub(crate) fn write_report(out: &mut impl Write, text: &str) -> Result<(), String> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}

/// A report on stdout, through [`write_report`].
pub(crate) fn print_report(text: &str) -> Result<(), String> {
    write_report(&mut std::io::stdout().lock(), text)
}

/// `println!` for reports: the arguments of `format!` and a newline, written by
/// [`print_report`]; its `Result` goes to the caller (`say!(...)?`).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::report::print_report(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose every write fails with one kind of error.
    struct Failing(ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(self.0.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_report_ends_quietly_when_its_reader_has_gone() {
        let mut written = Vec::new();
        write_report(&mut written, "games 4\n").unwrap();
        assert_eq!(written, b"games 4\n");
        assert_eq!(
            write_report(&mut Failing(ErrorKind::BrokenPipe), "games 4\n"),
            Ok(())
        );
        assert!(write_report(&mut Failing(ErrorKind::PermissionDenied), "games 4\n").is_err());
    }
}
