//! Where things are: the repository (its specs/) and the output folder.

use std::path::{Path, PathBuf};

/// What [`specs_dir`] reads instead of the tree's specs/: a copy with a
/// changed spec, as the mutation campaign holds the tests to each mutant.
pub const SPECS_ENV: &str = "RINGLAB_SPECS";

/// The repository's specs/ directory, as the build saw it, or the one
/// `RINGLAB_SPECS` names.
pub fn specs_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(SPECS_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs");
    p.canonicalize().unwrap_or(p)
}

/// The repository root: `RINGLAB_ROOT`, else where specs/manifest.json is,
/// searched from the current directory upwards.
pub fn find_root() -> Result<PathBuf, String> {
    if let Some(r) = std::env::var_os("RINGLAB_ROOT") {
        return Ok(PathBuf::from(r));
    }
    let mut dir = std::env::current_dir().map_err(|e| e.to_string())?;
    loop {
        if dir.join("specs/manifest.json").is_file() {
            return Ok(dir);
        }
        if !dir.pop() {
            return Err("no specs/manifest.json here or above: run ringlab inside the ringlab tree or set RINGLAB_ROOT".into());
        }
    }
}

/// Where ringlab writes under the repository root `root`.
pub fn out_dir(root: &Path) -> PathBuf {
    root.join("target/ringlab")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_specs_are_found() {
        assert!(super::specs_dir().join("XskRing.tla").is_file());
    }
}
