//! The TLA+ campaign: each mutant of a spec written into a copy of
//! specs/, and the spec's CI-tier models run on it, quickest first, until
//! one's outcome differs from the manifest's, or, for a spec with a
//! reference model, a passing model's distinct states or depth do (the
//! check `ringlab check` makes: the spec no longer agrees with the Rust
//! model whose search the bfs tests hold to those figures).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ringlab_results::{MutationRun, Verdict};
use ringlab_tlc::limited::run_limited;
use ringlab_tlc::manifest::{cfg_properties, Manifest, Model, Reference};
use ringlab_tlc::{Outcome, Tlc};

use crate::reference::{ReferenceTests, TestRun};
use crate::reviewed::Reviewed;
use crate::sample;
use crate::tla::{self, TlaMutant};

pub struct TlaOpts {
    /// Only these specs (file names); all the manifest's if empty.
    pub specs: Vec<String>,
    /// Only these many mutants per spec (the fixed sample), or all.
    pub sample: Option<usize>,
    /// Only mutants whose name contains one of these.
    pub only: Vec<String>,
    pub progress: bool,
    /// Seconds of models already run unmutated and found as expected in
    /// this run (`ringlab verify`'s check): their baseline is not run again.
    pub known: HashMap<String, f64>,
}

/// A model and how long it took unmutated.
struct Timed<'a> {
    model: &'a Model,
    seconds: f64,
}

impl Timed<'_> {
    /// A mutant's run may take a few times the original's.
    fn limit(&self) -> Duration {
        Duration::from_secs_f64((4.0 * self.seconds + 10.0).max(15.0))
    }
}

/// The specs the campaign covers: those with CI-tier models.
pub fn specs(man: &Manifest) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in man.models.iter().filter(|m| m.tier == "ci") {
        if !out.contains(&m.spec) {
            out.push(m.spec.clone());
        }
    }
    out
}

/// The mutants of one spec: those the campaign runs, and those in
/// definitions nothing checked reaches (`tla::reach`), which it does not.
pub struct SpecMutants {
    pub run: Vec<TlaMutant>,
    /// Each unchecked definition and how many mutants it has.
    pub unchecked: Vec<(String, usize)>,
}

/// Every mutant of `spec` the reviewed file does not skip, split by
/// whether anything checked reaches its definition: the configs of the
/// spec's models and the modules of specs/ that extend or instantiate it
/// (trace specs, reachability predicates).
pub fn mutants_of(root: &Path, man: &Manifest, spec: &str, reviewed: &Reviewed) -> Result<SpecMutants, String> {
    let specs = root.join("specs");
    let path = specs.join(spec);
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let text = read(&path)?;
    let defs: Vec<String> = tla::source::Source::new(&text).defs().into_iter().map(|d| d.name).collect();
    if let Some(s) = reviewed.skip.iter().find(|s| s.spec == spec && !defs.contains(&s.def)) {
        return Err(format!("{}: skips {}/{}, which {spec} does not define", Reviewed::FILE, s.spec, s.def));
    }
    let mut roots = std::collections::BTreeSet::new();
    for m in man.models.iter().filter(|m| m.spec == spec) {
        roots.extend(tla::reach::idents_of(&read(&specs.join(&m.config))?));
    }
    for dir in [specs.clone(), specs.join("mc")] {
        for p in extenders(&dir, spec)? {
            roots.extend(tla::reach::idents_of(&read(&p)?));
        }
    }
    let unreached = tla::reach::unreached(&text, &roots);
    let mut out = SpecMutants { run: Vec::new(), unchecked: unreached.iter().map(|d| (d.clone(), 0)).collect() };
    for m in tla::mutants(spec, &text).into_iter().filter(|m| !reviewed.skipped(spec, &m.def)) {
        match out.unchecked.iter_mut().find(|(d, _)| *d == m.def) {
            Some((_, n)) => *n += 1,
            None => out.run.push(m),
        }
    }
    Ok(out)
}

/// The modules in `dir` other than `spec` that extend or instantiate it.
fn extenders(dir: &Path, spec: &str) -> Result<Vec<PathBuf>, String> {
    let module = spec.trim_end_matches(".tla");
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == spec) || p.extension().is_none_or(|x| x != "tla") {
            continue;
        }
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let ids = tla::reach::idents_of(&text);
        if ids.contains(module) && (ids.contains("EXTENDS") || ids.contains("INSTANCE")) {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// The CI-tier models a mutant of `spec` runs: the spec's own, and those
/// of the specs of specs/ built on it (XskRedirectXsk.tla on XskRx.tla),
/// which check its definitions the spec's own models leave alone.
pub fn models_of<'a>(root: &Path, man: &'a Manifest, spec: &str) -> Result<Vec<&'a Model>, String> {
    let on: Vec<String> = extenders(&root.join("specs"), spec)?
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    Ok(man.models.iter().filter(|m| m.tier == "ci" && (m.spec == spec || on.contains(&m.spec))).collect())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let dest = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &dest)?;
        } else {
            std::fs::copy(e.path(), dest)?;
        }
    }
    Ok(())
}

/// A TLC error that comes before any state is explored: the mutant does
/// not parse or is not a well-formed spec.
fn unviable(msg: &str) -> bool {
    ["Parsing or semantic analysis failed", "Parse Error", "Semantic error", "Lexical error", "Could not parse"]
        .iter()
        .any(|k| msg.contains(k))
}

/// What one run of a model found.
struct Ran {
    /// The outcome's label (`unviable: …` for a mutant that does not parse).
    label: String,
    timed_out: bool,
    seconds: f64,
    /// How the figures differ from the reference model's (`check::drift`).
    disagrees: Option<String>,
}

struct Work {
    dir: PathBuf,
    tlc: Tlc,
    runs: usize,
}

impl Work {
    fn run(&mut self, t: &Timed, limit: Duration, reference: Option<&Reference>) -> Result<Ran, String> {
        let spec = self.dir.join(&t.model.spec);
        let cfg = self.dir.join(&t.model.config);
        let props = cfg_properties(&cfg);
        self.runs += 1;
        let meta = self.dir.join(format!(".meta-{}", self.runs % 4));
        let l = run_limited(&self.tlc, &spec, &cfg, &props, &meta, limit)?;
        let label = match &l.result.outcome {
            Outcome::Error(e) => format!("error: {}", e.lines().next().unwrap_or("")),
            o => o.label(),
        };
        let parse = matches!(&l.result.outcome, Outcome::Error(e) if unviable(e));
        let label = if parse { format!("unviable: {label}") } else { label };
        let disagrees = match (reference, l.timed_out) {
            (Some(_), false) => ringlab_tlc::check::drift(t.model, &l.result, reference, ringlab_tlc::limited::WORKERS == 1),
            _ => None,
        };
        Ok(Ran { label, timed_out: l.timed_out, seconds: l.result.seconds, disagrees })
    }
}

/// Runs the campaign over `opts.specs` (or every spec with CI-tier
/// models); a model that is not as expected unmutated is an error.
pub fn run(tlc: &Tlc, root: &Path, man: &Manifest, reviewed: &Reviewed, opts: &TlaOpts) -> Result<Vec<MutationRun>, String> {
    let dir = ringlab_tlc::check::out_dir(root).join("mutate").join(format!("specs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&root.join("specs"), &dir).map_err(|e| format!("copying specs/ to {}: {e}", dir.display()))?;
    let mut work = Work { dir: dir.clone(), tlc: tlc.clone(), runs: 0 };
    let mut refs = ReferenceTests::new(root, opts.progress);
    let specs = if opts.specs.is_empty() { specs(man) } else { opts.specs.clone() };
    let mut out = Vec::new();
    for spec in &specs {
        let models = models_of(root, man, spec)?;
        if models.is_empty() {
            return Err(format!("{spec}: no CI-tier model in the manifest runs it"));
        }
        let original = std::fs::read_to_string(root.join("specs").join(spec)).map_err(|e| format!("{spec}: {e}"))?;
        let SpecMutants { run: all, unchecked } = mutants_of(root, man, spec, reviewed)?;
        let all: Vec<TlaMutant> = all
            .into_iter()
            .filter(|m| opts.only.is_empty() || opts.only.iter().any(|o| m.id.contains(o.as_str())))
            .collect();
        let chosen: Vec<&TlaMutant> = match opts.sample {
            Some(n) => {
                let ids: Vec<&str> = all.iter().map(|m| m.id.as_str()).collect();
                let keep = sample::pick(&ids, n);
                all.iter().filter(|m| keep.contains(&m.id.as_str())).collect()
            }
            None => all.iter().collect(),
        };
        if chosen.is_empty() {
            if opts.progress {
                eprintln!("  {spec}: no mutants to run");
            }
            continue;
        }
        let reference = man.policy(spec).reference;
        let reference = reference.as_ref();
        // Baseline: every model as expected, and how long it takes.
        let mut timed = Vec::new();
        for m in models {
            if let Some(&seconds) = opts.known.get(&m.name) {
                timed.push(Timed { model: m, seconds });
                continue;
            }
            let t = Timed { model: m, seconds: 0.0 };
            let r = work.run(&t, Duration::from_secs(600), reference)?;
            if r.timed_out || r.label != m.expected {
                return Err(format!(
                    "{}: unmutated, {} is {} (expected {}): fix the spec or the manifest first",
                    spec, m.name, if r.timed_out { "still running after 600 s".into() } else { r.label }, m.expected
                ));
            }
            if let Some(d) = r.disagrees {
                return Err(format!("{spec}: unmutated, {}: {d}", m.name));
            }
            timed.push(Timed { model: m, seconds: r.seconds });
        }
        timed.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        if opts.progress {
            eprintln!("  {spec}: {} mutants ({} in all), {} models", chosen.len(), all.len(), timed.len());
            let defs: Vec<String> = unchecked.iter().filter(|(_, n)| *n > 0).map(|(d, n)| format!("{d} ({n})")).collect();
            if !defs.is_empty() {
                eprintln!("  {spec}: not run, in definitions no model checks: {}", defs.join(", "));
            }
        }
        let target = dir.join(spec);
        for (i, m) in chosen.iter().enumerate() {
            std::fs::write(&target, m.apply(&original)).map_err(|e| format!("{}: {e}", target.display()))?;
            let start = Instant::now();
            let mut verdict = Verdict::Survived;
            let mut detail = String::from("every model as expected");
            for t in &timed {
                let r = work.run(t, t.limit(), reference)?;
                if r.timed_out {
                    verdict = Verdict::Timeout;
                    detail = format!("{}: still running after {:.0} s", t.model.name, t.limit().as_secs_f64());
                    break;
                }
                if r.label.starts_with("unviable") {
                    verdict = Verdict::Unviable;
                    detail = r.label;
                    break;
                }
                if r.label != t.model.expected {
                    verdict = Verdict::Killed;
                    detail = format!("{}: {} (expected {})", t.model.name, r.label, t.model.expected);
                    break;
                }
                if let Some(d) = r.disagrees {
                    verdict = Verdict::Killed;
                    detail = format!("{}: {d}", t.model.name);
                    break;
                }
            }
            if let (Verdict::Survived, Some(r)) = (&verdict, reference) {
                if !refs.has_baseline(r) {
                    std::fs::write(&target, &original).map_err(|e| format!("{}: {e}", target.display()))?;
                    refs.baseline(r, &dir).map_err(|e| format!("{spec}: {e}"))?;
                    std::fs::write(&target, m.apply(&original)).map_err(|e| format!("{}: {e}", target.display()))?;
                }
                match refs.first_failed(r, &dir)? {
                    None => detail = format!("every model as expected, and the reference tests ({}) pass", r.tests.join(", ")),
                    Some((test, TestRun::TimedOut)) => {
                        verdict = Verdict::Timeout;
                        detail = format!("reference test {test}: still running at its limit");
                    }
                    Some((test, TestRun::Failed(why))) => {
                        verdict = Verdict::Killed;
                        detail = format!("reference test {test}: {why}");
                    }
                    Some((_, TestRun::Passed { .. })) => unreachable!("first_failed returns failures only"),
                }
            }
            reviewed.apply(&m.id, &m.what, &mut verdict, &mut detail);
            let seconds = start.elapsed().as_secs_f64();
            if opts.progress {
                eprintln!("  [{}/{}] {:<10} {} ({:.1}s) {}", i + 1, chosen.len(), format!("{verdict:?}").to_lowercase(), m.id, seconds, m.what);
            }
            out.push(MutationRun {
                id: m.id.clone(),
                group: spec.clone(),
                op: m.op.name().to_string(),
                at: format!("specs/{}:{}", spec, m.line),
                what: m.what.clone(),
                verdict,
                detail,
                seconds,
            });
        }
        std::fs::write(&target, &original).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_tlc::Parser;

    #[test]
    fn a_mutant_of_a_spec_runs_the_models_of_the_specs_built_on_it() {
        let root = ringlab_tlc::manifest::find_root().unwrap();
        let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
        let names = |spec: &str| -> Vec<String> { models_of(&root, &man, spec).unwrap().iter().map(|m| m.name.clone()).collect() };
        let rx = names("XskRx.tla");
        assert!(rx.contains(&"xsk-rx-driver".to_string()) && rx.contains(&"xsk-redirect-xsk".to_string()), "{rx:?}");
        // and not the other way round
        let fast = names("XskRedirectXsk.tla");
        assert!(fast.contains(&"xsk-redirect-xsk".to_string()) && !fast.contains(&"xsk-rx-driver".to_string()), "{fast:?}");
    }

    #[test]
    fn a_spec_that_does_not_parse_is_unviable_a_runtime_error_is_not() {
        let parse = "@!@!@STARTMSG 3002:1 @!@!@\nParsing or semantic analysis failed.\n@!@!@ENDMSG 3002 @!@!@\n";
        let Outcome::Error(e) = Parser::parse_str(parse).outcome else { panic!("not an error") };
        assert!(unviable(&e), "{e}");
        assert!(!unviable("Successor state is not completely specified by action RxFrag"));
    }
}
