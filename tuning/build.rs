//! Records the commit the tuner is built from (`SHEARS_TUNE_COMMIT`), so every data file
//! it writes can name the code that wrote it; `-dirty` when the work tree had changes,
//! `unknown` outside a git checkout.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=SHEARS_TUNE_COMMIT={commit}");
    // A new commit, a change to the index or an edit of the sources rebuilds the value.
    for p in [
        "../.git/HEAD",
        "../.git/index",
        "../.git/refs/heads",
        "src",
        "../src",
        "../nets",
    ] {
        println!("cargo:rerun-if-changed={p}");
    }
}
