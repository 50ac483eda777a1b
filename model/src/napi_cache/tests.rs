//! The model against the shipped .cfg files: each ci model's outcome,
//! distinct states and depth as specs/manifest.json records TLC's.

use super::*;

fn shipped(name: &str) -> String {
    format!("{}/../specs/mc/MCNapiSkbCache{name}.cfg", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn reads_the_shipped_configs() {
    let m = ModelCfg::from_file(shipped("")).unwrap();
    assert_eq!(m.config, Config::small());
    // every invariant but TypeOK, which no model breaks and no cfg checks
    assert_eq!(m.invariants, INVARIANTS[1..].iter().map(|(n, _)| *n).collect::<Vec<_>>());
    let live = ModelCfg::from_file(shipped("_Live")).unwrap();
    assert_eq!(live.properties, ["DeferDrains"]);
    assert_eq!(live.config.path, Path::Bulk);
}

#[test]
fn errors_are_clear() {
    let text = std::fs::read_to_string(shipped("")).unwrap();
    let e = ModelCfg::parse(&text.replace("\"none\"", "\"napi-nope\"")).unwrap_err();
    assert!(e.msg.starts_with("unknown napi-cache mutant \"napi-nope\""), "{e}");
    let e = ModelCfg::parse(&text.replace("\"flush\"", "\"fast\"")).unwrap_err();
    assert!(e.msg.contains("Path must be"), "{e}");
    let e = ModelCfg::parse(&text.replace("Bulk = 2", "Bulk = 9")).unwrap_err();
    assert!(e.msg.contains("Bulk = 9 is above CacheSize = 4"), "{e}");
}

#[test]
fn the_small_model_matches_tlc() {
    let m = ModelCfg::from_file(shipped("")).unwrap();
    let r = explore(&m).unwrap();
    assert_eq!((r.outcome.summary().as_str(), r.distinct, r.depth), ("pass", 12986, 15));
}
