//! A run that tested nothing does not pass: a count of 0 (scenarios,
//! rounds, steps) is refused and a SKIP fails, unless `--allow-empty`
//! says that is what was wanted.

use clap::Args;

#[derive(Args, Clone, Copy, Debug, Default)]
pub struct AllowEmpty {
    /// Accept a run that tests nothing (a count of 0, or a SKIP because this machine cannot run it) as a pass
    #[arg(long)]
    pub allow_empty: bool,
}

impl AllowEmpty {
    /// Err when `n` is 0 and that was not allowed; `flag` names the option.
    pub fn count(self, flag: &str, n: u64) -> Result<(), String> {
        if n == 0 && !self.allow_empty {
            return Err(format!("{flag} 0 tests nothing (add --allow-empty to accept a run that tests nothing)"));
        }
        Ok(())
    }

    /// Prints the SKIP; Ok(true) when allowed, else Ok(false) (exit 1).
    pub fn skip(self, why: &str) -> bool {
        println!("SKIP: {why}");
        if !self.allow_empty {
            eprintln!("ringlab: nothing was tested, which is not a pass (add --allow-empty to accept a SKIP)");
        }
        self.allow_empty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_refused_unless_allowed() {
        let e = AllowEmpty { allow_empty: false }.count("--scenarios", 0).unwrap_err();
        assert!(e.contains("--scenarios 0 tests nothing") && e.contains("--allow-empty"), "{e}");
        assert!(AllowEmpty { allow_empty: true }.count("--scenarios", 0).is_ok());
        assert!(AllowEmpty { allow_empty: false }.count("--scenarios", 1).is_ok());
    }

    #[test]
    fn a_skip_passes_only_when_allowed() {
        assert!(!AllowEmpty { allow_empty: false }.skip("needs root"));
        assert!(AllowEmpty { allow_empty: true }.skip("needs root"));
    }
}
