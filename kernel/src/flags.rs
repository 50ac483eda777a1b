//! ringlab-diff's command line: `--name value` pairs after the command,
//! each name one the command knows, given at most once.

use std::str::FromStr;

pub struct Flags(Vec<(String, String)>);

impl Flags {
    /// Reads `args` (after the command) against the names in `known`.
    pub fn parse(args: &[String], known: &[&str]) -> Result<Flags, String> {
        let mut v: Vec<(String, String)> = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--").filter(|n| known.contains(n)) else {
                let names: Vec<String> = known.iter().map(|n| format!("--{n}")).collect();
                let takes = if names.is_empty() { "no flags".into() } else { names.join(", ") };
                return Err(format!("unknown flag `{a}` (this command takes {takes})"));
            };
            if v.iter().any(|(n, _)| n == name) {
                return Err(format!("--{name} given twice"));
            }
            let Some(val) = it.next() else { return Err(format!("--{name} needs a value")) };
            v.push((name.to_string(), val.clone()));
        }
        Ok(Flags(v))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The number given for `name`, else `default` (None: required).
    pub fn num<T: FromStr>(&self, name: &str, default: Option<T>) -> Result<T, String> {
        match (self.get(name), default) {
            (Some(v), _) => v.parse().map_err(|_| format!("--{name}: `{v}` is not a number")),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("--{name} is required")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn names_the_bad_flag() {
        let e = Flags::parse(&args("--batch 4 --bach 3"), &["batch"]).err().unwrap();
        assert!(e.contains("`--bach`"), "{e}");
        let e = Flags::parse(&args("--batch"), &["batch"]).err().unwrap();
        assert!(e.contains("--batch needs a value"), "{e}");
        let f = Flags::parse(&args("--batch x"), &["batch"]).unwrap();
        assert!(f.num::<u32>("batch", None).err().unwrap().contains("--batch"));
        assert_eq!(f.num::<u32>("seed", Some(7)), Ok(7));
        assert!(Flags::parse(&args("--batch 1 --batch 2"), &["batch"]).is_err());
    }
}
