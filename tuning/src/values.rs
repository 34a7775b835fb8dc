//! Parameter values as a user gives them to `spsa` and `verify` (`--values`, `--base`,
//! `--start`, `--fixed`): `NAME=value,...` on the command line, or a file of `NAME, value` lines
//! (the `result.txt` a tuning run writes, and OpenBench's output).

use shears::params::{ParamSpec, Params};

/// Reads parameter values: `NAME, value` lines (the `result.txt` of `shears-tune spsa`, and
/// OpenBench's output form; other lines are skipped), or `NAME=value,NAME=value`. Unknown
/// names and values outside a parameter's range are errors.
pub fn parse_values(text: &str) -> Result<Vec<(&'static ParamSpec, i32)>, String> {
    let mut out = Vec::new();
    let pairs: Vec<(&str, &str)> = if text.contains('=') && !text.contains('\n') {
        text.split(',')
            .map(|kv| {
                kv.split_once('=')
                    .ok_or_else(|| format!("'{kv}' is not NAME=value"))
            })
            .collect::<Result<_, _>>()?
    } else {
        text.lines().filter_map(|l| l.split_once(',')).collect()
    };
    for (name, value) in pairs {
        let (name, value) = (name.trim(), value.trim());
        let Ok(v) = value.parse::<i32>() else {
            continue;
        };
        let spec = Params::spec(name).ok_or_else(|| format!("unknown parameter '{name}'"))?;
        if v < spec.min || v > spec.max {
            return Err(format!(
                "{name} = {v} is outside [{}, {}]",
                spec.min, spec.max
            ));
        }
        out.push((spec, v));
    }
    if out.is_empty() {
        return Err("no parameter values found".to_string());
    }
    Ok(out)
}

/// `--values` / `--base` as given: a file of `NAME, value` lines or `NAME=value,...`.
pub fn read_values(arg: &str) -> Result<Vec<(&'static ParamSpec, i32)>, String> {
    let path = std::path::Path::new(arg);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{arg}: {e}"))?;
        parse_values(&text).map_err(|e| format!("{arg}: {e}"))
    } else {
        parse_values(arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_in_both_forms_and_checked() {
        let spec = &shears::params::PARAM_SPECS[0];
        let file = format!(
            "{}, {}\n\nparameter old new\n{} 1 2\n",
            spec.name, spec.min, spec.name
        );
        let v = parse_values(&file).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].0.name, v[0].1), (spec.name, spec.min));
        let v = parse_values(&format!("{}={}", spec.name, spec.max)).unwrap();
        assert_eq!(v[0].1, spec.max);
        assert!(parse_values("NO_SUCH_PARAM=3").is_err());
        assert!(parse_values(&format!("{}={}", spec.name, i64::from(spec.max) + 1)).is_err());
        assert!(parse_values("nothing here").is_err());
    }
}
