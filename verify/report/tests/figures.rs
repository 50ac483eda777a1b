//! The guided tour's figures (docs/src/figures/*.svg) are the figures of the
//! counterexamples TLC finds today: each model is checked again (one
//! worker, so the counterexample is TLC's first) and its figure redrawn.

use std::path::{Path, PathBuf};

use ringlab_tlc::check::counterexample;
use ringlab_tlc::manifest::{cfg_properties, Manifest};
use ringlab_report::figure::figure_svg;
use ringlab_tlc::{run, RunOpts, Tlc};

/// The models whose figures the tour shows.
const FIGURES: [&str; 4] = ["xsk-ring-no-c", "xsk-ring-no-d", "xsk-ring-no-a", "xsk-ring-batch-release-count"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn regenerate() -> String {
    let m = FIGURES.join(" ");
    format!(
        "regenerate them with:\n  cargo build --release -p ringlab && target/release/ringlab check {m} --workers 1 && target/release/ringlab report --figures docs/src/figures {m}\nthen check that docs/src/xsk-ring.md still tells what they show"
    )
}

/// The figure of `name`'s counterexample as TLC finds it now.
fn figure(tlc: &Tlc, man: &Manifest, name: &str) -> String {
    let root = root();
    let m = man.model(name).unwrap_or_else(|| panic!("{name} is not in specs/manifest.json"));
    let (spec, cfg) = (root.join("specs").join(&m.spec), root.join("specs").join(&m.config));
    let metadir = std::env::temp_dir().join(format!("ringlab-figures-{}-{name}", std::process::id()));
    let opts = RunOpts { workers: 1, metadir, library: None, extra: Vec::new() };
    let r = run(tlc, &spec, &cfg, &cfg_properties(&cfg), &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(r.outcome.label(), m.expected, "{name}: TLC's outcome is not the expected one");
    figure_svg(&counterexample(&root, m, &r)).unwrap_or_else(|| panic!("{name}: its counterexample has no ring"))
}

#[test]
fn the_tours_figures_are_todays_counterexamples() {
    let tlc = Tlc::locate().unwrap_or_else(|e| panic!("this test runs TLC: {e}"));
    let man = Manifest::load(&root().join("specs/manifest.json")).unwrap();
    let dir = root().join("docs/src/figures");
    let drawn: Vec<(&str, String)> = std::thread::scope(|s| {
        let jobs: Vec<_> = FIGURES.iter().map(|n| (*n, s.spawn(|| figure(&tlc, &man, n)))).collect();
        jobs.into_iter().map(|(n, j)| (n, j.join().expect("figure thread"))).collect()
    });
    let mut bad = Vec::new();
    for (name, svg) in &drawn {
        let path = dir.join(format!("{name}.svg"));
        match std::fs::read_to_string(&path) {
            Ok(committed) if &committed == svg => {}
            Ok(_) => bad.push(format!("docs/src/figures/{name}.svg differs from the figure of TLC's counterexample")),
            Err(e) => bad.push(format!("docs/src/figures/{name}.svg: {e}")),
        }
    }
    for e in std::fs::read_dir(&dir).map(|rd| rd.flatten().collect::<Vec<_>>()).unwrap_or_default() {
        let file = e.file_name().to_string_lossy().to_string();
        if !FIGURES.iter().any(|n| file == format!("{n}.svg")) {
            bad.push(format!("docs/src/figures/{file} is not a figure this test redraws: delete it, or add its model to FIGURES"));
        }
    }
    assert!(bad.is_empty(), "{}\n{}", bad.join("\n"), regenerate());
}
