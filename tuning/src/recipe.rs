//! A net's recipe: what `shears-tune nnue` needs to make a net again, bit for bit.
//!
//! Every training run writes `recipe.txt` into its output directory: the data files it read
//! (each with its sha256, in the order read), the validation files and the starting net if
//! any, every setting of the run (the thread count included: the gradients of a batch are
//! summed thread by thread, so the same count gives the same sums), the trainer's commit, and
//! after each epoch the sha256 of every net written so far. `shears-tune nnue --recipe FILE
//! --out DIR` trains again from exactly those files with exactly those settings and then
//! compares each net it wrote with the recipe's checksum. A promoted net's recipe is kept
//! beside it (`nets/default.recipe`), so one command rebuilds the default net from `data/`.
//!
//! The format is plain text, one item per line (`#` starts a comment):
//!
//! ```text
//! commit 1a2b3c4d5e6f
//! data data/gen4/0001.vf.xz <sha256>
//! valid data/gen5/0001.vf.xz <sha256>
//! init nets/net5.nnue <sha256>
//! set hidden 128
//! net best.nnue <sha256>
//! ```

use std::path::{Path, PathBuf};

use crate::gamedata::sha256_hex;

/// A file the recipe depends on, with the checksum it must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    pub path: PathBuf,
    pub sha256: String,
}

impl Pinned {
    /// Pins a file as it is now.
    pub fn of(path: &Path) -> Result<Pinned, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Pinned {
            path: path.to_path_buf(),
            sha256: sha256_hex(&bytes),
        })
    }

    /// Fails, naming the file, when it is missing or its contents are not the pinned ones.
    pub fn check(&self) -> Result<(), String> {
        let now = Pinned::of(&self.path)?;
        if now.sha256 != self.sha256 {
            return Err(format!(
                "{}: sha256 {}, the recipe says {}",
                self.path.display(),
                now.sha256,
                self.sha256
            ));
        }
        Ok(())
    }
}

/// Everything a training run needs to be run again, and the checksums of what it made.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The trainer's commit (informative: the checksums decide).
    pub commit: String,
    pub data: Vec<Pinned>,
    pub valid: Option<Vec<Pinned>>,
    pub init: Option<Pinned>,
    /// The run's settings by the trainer's flag names (without `--`).
    pub settings: Vec<(String, String)>,
    /// Net files of the output directory and their checksums.
    pub nets: Vec<(String, String)>,
}

impl Recipe {
    /// The recipe as text (see the module's documentation).
    pub fn to_text(&self) -> String {
        let mut t = String::from(
            "# A net's recipe: `shears-tune nnue --recipe THIS_FILE --out DIR` makes the nets\n\
             # below again from the files below and checks them against these checksums.\n",
        );
        t.push_str(&format!("commit {}\n", self.commit));
        let pinned = |t: &mut String, key: &str, p: &Pinned| {
            t.push_str(&format!("{key} {} {}\n", p.path.display(), p.sha256));
        };
        for p in &self.data {
            pinned(&mut t, "data", p);
        }
        for p in self.valid.iter().flatten() {
            pinned(&mut t, "valid", p);
        }
        if let Some(p) = &self.init {
            pinned(&mut t, "init", p);
        }
        for (k, v) in &self.settings {
            t.push_str(&format!("set {k} {v}\n"));
        }
        for (name, sum) in &self.nets {
            t.push_str(&format!("net {name} {sum}\n"));
        }
        t
    }

    /// Reads a recipe; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Recipe, String> {
        let mut r = Recipe {
            commit: String::new(),
            data: Vec::new(),
            valid: None,
            init: None,
            settings: Vec::new(),
            nets: Vec::new(),
        };
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = || format!("{source}:{}: cannot read '{line}'", i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let pinned = || -> Result<Pinned, String> {
                match words[1..] {
                    [path, sum] if is_sha256(sum) => Ok(Pinned {
                        path: PathBuf::from(path),
                        sha256: sum.to_string(),
                    }),
                    _ => Err(bad()),
                }
            };
            match words[0] {
                "commit" if words.len() == 2 => r.commit = words[1].to_string(),
                "data" => r.data.push(pinned()?),
                "valid" => r.valid.get_or_insert_with(Vec::new).push(pinned()?),
                "init" if r.init.is_none() => r.init = Some(pinned()?),
                "set" if words.len() == 3 => r
                    .settings
                    .push((words[1].to_string(), words[2].to_string())),
                "net" if words.len() == 3 && is_sha256(words[2]) => {
                    r.nets.push((words[1].to_string(), words[2].to_string()))
                }
                _ => return Err(bad()),
            }
        }
        if r.data.is_empty() {
            return Err(format!("{source}: no data files"));
        }
        Ok(r)
    }

    /// Reads a recipe file.
    pub fn read(path: &Path) -> Result<Recipe, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Recipe::parse(&text, &path.display().to_string())
    }

    /// Checks every file the recipe reads against its checksum.
    pub fn check_inputs(&self) -> Result<(), String> {
        self.data
            .iter()
            .chain(self.valid.iter().flatten())
            .chain(&self.init)
            .try_for_each(Pinned::check)
    }

    /// A setting by its flag name (without `--`).
    pub fn setting(&self, key: &str) -> Result<&str, String> {
        self.settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| format!("the recipe has no setting '{key}'"))
    }

    /// A number setting.
    pub fn num<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        let v = self.setting(key)?;
        v.parse()
            .map_err(|_| format!("the recipe's setting {key} '{v}' is not a number"))
    }

    /// Compares the nets in `out` with the recipe's checksums: the lines to print, or an
    /// error naming every net that differs. A recipe without `net` lines is a new run's
    /// settings (a candidate that changes one setting of the default's recipe): its nets are
    /// new, and that is said, not failed.
    pub fn compare_nets(&self, out: &Path) -> Result<Vec<String>, String> {
        if self.nets.is_empty() {
            return Ok(vec![format!(
                "the recipe lists no nets: those in {} are new, compared with nothing",
                out.display()
            )]);
        }
        let (mut same, mut differ) = (Vec::new(), Vec::new());
        for (name, sum) in &self.nets {
            let now = Pinned::of(&out.join(name))?;
            if &now.sha256 == sum {
                same.push(format!("{name}: the same bytes as the recipe's ({sum})"));
            } else {
                differ.push(format!(
                    "{name}: sha256 {}, the recipe says {sum}",
                    now.sha256
                ));
            }
        }
        if differ.is_empty() {
            Ok(same)
        } else {
            Err(format!("rebuilt nets differ:\n{}", differ.join("\n")))
        }
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recipe_reads_back_as_written_and_refuses_what_it_cannot_read() {
        let sum = "ab".repeat(32);
        let r = Recipe {
            commit: "0123456789ab".into(),
            data: vec![Pinned {
                path: "data/gen4/0001.vf.xz".into(),
                sha256: sum.clone(),
            }],
            valid: Some(vec![Pinned {
                path: "data/gen5/0001.vf.xz".into(),
                sha256: sum.clone(),
            }]),
            init: Some(Pinned {
                path: "nets/net5.nnue".into(),
                sha256: sum.clone(),
            }),
            settings: vec![
                ("hidden".into(), "128".into()),
                ("lr".into(), "0.002".into()),
            ],
            nets: vec![("best.nnue".into(), sum.clone())],
        };
        assert_eq!(Recipe::parse(&r.to_text(), "t").unwrap(), r);
        for bad in [
            "data x.vf.xz abc",                   // not a sha256
            "set hidden",                         // no value
            "frobnicate 1",                       // unknown item
            &format!("net best.nnue {sum} more"), // too many words
        ] {
            let text = format!("{}{bad}\n", r.to_text());
            assert!(Recipe::parse(&text, "t").is_err(), "{bad}");
        }
        assert!(Recipe::parse("commit x\n", "t").is_err(), "no data");
        // Without `net` lines there is nothing to compare: said, not failed; with one, a
        // missing net is an error.
        let new_run = Recipe {
            nets: Vec::new(),
            ..r.clone()
        };
        let out = Path::new("/nonexistent/shears-recipe-test");
        let said = new_run.compare_nets(out).unwrap();
        assert!(
            said.len() == 1 && said[0].contains("compared with nothing"),
            "{said:?}"
        );
        assert!(r.compare_nets(out).is_err(), "best.nnue is missing");
    }

    /// Net 5, the default since 2026-11-24, was trained before recipes existed, on data that
    /// was lost with its machine (docs/nnue.md): the one default net allowed no recipe.
    const NET5_SHA256: &str = "3701585fe54054a7ab221981daeae034b1976c82a8a352934e0839100f1b391e";

    #[test]
    fn the_default_net_comes_with_its_recipe() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let net = Pinned::of(&root.join("nets/default.nnue")).unwrap().sha256;
        let path = root.join("nets/default.recipe");
        if !path.exists() {
            assert_eq!(
                net, NET5_SHA256,
                "a promoted net needs its recipe in nets/default.recipe (the run's recipe.txt)"
            );
            return;
        }
        let recipe = Recipe::read(&path).unwrap();
        assert!(
            recipe.nets.iter().any(|(_, sum)| *sum == net),
            "nets/default.recipe makes no net with nets/default.nnue's sha256 {net}"
        );
        // Everything it reads is in the repository, as pinned.
        for p in recipe
            .data
            .iter()
            .chain(recipe.valid.iter().flatten())
            .chain(&recipe.init)
        {
            assert!(p.path.is_relative(), "{}", p.path.display());
            Pinned {
                path: root.join(&p.path),
                sha256: p.sha256.clone(),
            }
            .check()
            .unwrap();
        }
    }
}
