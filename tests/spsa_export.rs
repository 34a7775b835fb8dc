//! `shears spsa`: exactly the tunable UCI spin options, in OpenBench's and weather-factory's
//! formats, and the copies kept in tuning/ are not stale.

use std::process::Command;

fn shears(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_shears"))
        .args(args)
        .output()
        .expect("run shears");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("utf-8")
}

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Engine options that are not search parameters.
const ENGINE_OPTIONS: &[&str] = &[
    "Hash",
    "Threads",
    "Move Overhead",
    "MultiPV",
    "SyzygyProbeDepth",
    "SyzygyProbeLimit",
    "UCI_Elo",
];

#[test]
fn spsa_lines_are_exactly_the_tunable_spin_options() {
    let uci = shears(&["uci"]);
    let mut spins: Vec<(String, i64, i64, i64)> = Vec::new();
    for line in uci.lines().filter(|l| l.contains(" type spin ")) {
        let rest = line.strip_prefix("option name ").unwrap();
        let (name, rest) = rest.split_once(" type spin ").unwrap();
        if ENGINE_OPTIONS.contains(&name) {
            continue;
        }
        let t: Vec<&str> = rest.split_whitespace().collect();
        assert_eq!((t[0], t[2], t[4]), ("default", "min", "max"), "{line}");
        spins.push((
            name.to_string(),
            t[1].parse().unwrap(),
            t[3].parse().unwrap(),
            t[5].parse().unwrap(),
        ));
    }
    let spsa = shears(&["spsa"]);
    let lines: Vec<&str> = spsa.lines().collect();
    assert_eq!(lines.len(), spins.len());
    for (line, (name, default, min, max)) in lines.iter().zip(&spins) {
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!(f.len(), 7, "{line}");
        assert_eq!(f[0], name);
        assert_eq!(f[1], "int");
        let num = |s: &str| s.parse::<i64>().unwrap();
        assert_eq!(
            (num(f[2]), num(f[3]), num(f[4])),
            (*default, *min, *max),
            "{line}"
        );
        assert!(num(f[5]) > 0, "c_end of {line}");
        let r_end: f64 = f[6].parse().unwrap();
        assert!(r_end > 0.0 && r_end < 1.0, "{line}");
    }
}

#[test]
fn weather_factory_config_matches_the_table() {
    let json = shears(&["spsa", "--json"]);
    let spsa = shears(&["spsa"]);
    for line in spsa.lines() {
        let f: Vec<&str> = line.split(", ").collect();
        let want = format!(
            "\"{}\": {{\"value\": {}, \"min_value\": {}, \"max_value\": {}, \"step\": {}}}",
            f[0], f[2], f[3], f[4], f[5]
        );
        assert!(json.contains(&want), "{want}");
    }
    assert!(json.trim_start().starts_with('{') && json.trim_end().ends_with('}'));
}

/// After changing the table, regenerate with `shears spsa > tuning/openbench-spsa.txt` and
/// `shears spsa --json > tuning/weather-factory.json`.
#[test]
fn generated_files_in_tuning_are_fresh() {
    assert_eq!(repo_file("tuning/openbench-spsa.txt"), shears(&["spsa"]));
    assert_eq!(
        repo_file("tuning/weather-factory.json"),
        shears(&["spsa", "--json"])
    );
}
