//! `ringlab verify`'s document: every model, proof and mutant, the live
//! diff and the kernel series, and the verdict.

use serde::{Deserialize, Serialize};

use ringlab_kernel::diff_doc::DiffDoc;
use ringlab_kernel::kernel_test::KernelDoc;
use ringlab_model::schema::{Header, SCHEMA};
use serde_json::Value;
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::coverage::SpecCoverage;
use ringlab_tlc::thresholds::ThresholdResult;

use crate::mutants::{Kill, MutantDoc};
use crate::mutation::MutationDoc;
use crate::proofs::ProofDoc;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyDoc {
    #[serde(flatten)]
    pub header: Header,
    pub models: Vec<ModelResult>,
    /// Each spec's action coverage over its models.
    #[serde(default)]
    pub coverage: Vec<SpecCoverage>,
    /// specs/thresholds.json, each threshold with what crosses it.
    #[serde(default)]
    pub thresholds: Vec<ThresholdResult>,
    pub proofs: Vec<ProofDoc>,
    pub mutants: Vec<MutantDoc>,
    /// The automatic mutation campaign's fixed sample.
    #[serde(default)]
    pub mutation: Option<MutationDoc>,
    pub diff: DiffSection,
    /// The io_uring SEND_ZC diff against IoUringZcNotif's model (absent
    /// in documents written before it ran in verify).
    #[serde(default)]
    pub iouring: Option<IouringDiff>,
    /// `ringlab kernel-test`, one section per series of kernel/patches/
    /// (one Skipped when not asked for). A single section, as documents
    /// before several series were tested have it, reads as a list of one.
    #[serde(deserialize_with = "one_or_many")]
    pub kernel: Vec<KernelSection>,
    /// `--allow-empty`: a skipped live diff counts as a pass.
    #[serde(default)]
    pub allow_empty: bool,
    /// Wall-clock seconds of each section, in the order run.
    #[serde(default)]
    pub seconds: Vec<(String, f64)>,
    /// Every model, proof and mutant as expected, every action covered,
    /// every threshold crossed, the diff agreed, the kernel series passed
    /// (or was not asked for).
    pub ok: bool,
}

/// The io_uring diff's verdict and its summary line (`ringlab diff
/// --iouring` prints the same line; a divergence's replay file is named on
/// stderr as it is written).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IouringDiff {
    /// No divergence, or skipped under `--allow-empty`.
    pub ok: bool,
    pub line: String,
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

impl VerifyDoc {
    pub const DOCUMENT: &'static str = "verify";

    /// The recorded verdict and every row agree that all is as expected.
    pub fn all_ok(&self) -> bool {
        self.ok
            && self.models.iter().all(ModelResult::ok)
            && self.coverage.iter().all(SpecCoverage::ok)
            && self.thresholds.iter().all(|t| t.ok)
            && self.proofs.iter().all(ProofDoc::ok)
            && self.mutants.iter().all(|m| m.result.ok())
            && self.mutation.as_ref().is_none_or(MutationDoc::sample_ok)
            && self.iouring.as_ref().is_none_or(|d| d.ok)
    }

    /// What is not as expected, a line each, naming the check and why;
    /// verify's last lines and the report's banner.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for m in self.models.iter().filter(|m| !m.ok()) {
            match m.coverage.as_ref().map(|c| c.failures()).filter(|f| m.outcome == m.expected && !f.is_empty()) {
                Some(f) => problems.push(format!("model {}: {}", m.name, f.join("; "))),
                None => {
                    let error = m.error.as_deref().map(|e| format!(": {}", first_line(e))).unwrap_or_default();
                    let trace = m.trace_file.as_deref().map(|f| format!(" (trace: {f})")).unwrap_or_default();
                    problems.push(format!("model {}: {} (expected {}){error}{trace}", m.name, m.outcome, m.expected))
                }
            }
        }
        for s in self.coverage.iter().filter(|s| !s.ok()) {
            problems.push(format!("spec {}: {}", s.spec, s.failures().join("; ")));
        }
        for t in self.thresholds.iter().filter(|t| !t.ok) {
            problems.push(format!("threshold {}: {}", t.name, t.verdict()));
        }
        for p in self.proofs.iter().filter(|p| !p.ok()) {
            problems.push(format!("proof {}: {} (expected {})", p.name, p.outcome, p.expected));
        }
        for mu in self.mutants.iter().map(|m| &m.result).filter(|m| !m.ok()) {
            let not: Vec<&str> = mu.checks.iter().filter(|c| !matches!(c.result, Kill::Killed | Kill::Skipped)).map(|c| c.check.as_str()).collect();
            problems.push(format!("mutant {}: not killed by {}", mu.id, if not.is_empty() { "any check".to_string() } else { not.join(", ") }));
        }
        if let Some(m) = &self.mutation {
            if let Some(e) = &m.error {
                problems.push(format!("mutation sample: {e}"));
            }
            for r in m.survivors() {
                problems.push(format!("mutant {} survived: {}", r.id, r.what));
            }
            for id in &m.stale_reviews {
                problems.push(format!("mutant {id}: reviewed as equivalent, yet killed"));
            }
        }
        if !self.diff.ok() {
            problems.push(self.diff.line());
        } else if self.diff.tested_nothing(self.allow_empty) && !self.ok {
            problems.push(format!("{}: nothing was tested (--allow-empty accepts that)", self.diff.line()));
        }
        if let Some(d) = self.iouring.as_ref().filter(|d| !d.ok) {
            problems.push(d.line.clone());
        }
        for k in self.kernel.iter().filter(|k| !k.ok()) {
            problems.push(k.line());
            // what kernel-test found wrong, each with where its detail is
            if let KernelSection::Ran(d) = k {
                let detail = ringlab_kernel::kernel_test::doc_path(&d.series);
                problems.extend(d.problems.iter().map(|p| format!("kernel series {}: {p} (detail: {detail})", d.series)));
            }
        }
        if !self.all_ok() && problems.is_empty() {
            problems.push("verify.json records the run as failed".into());
        }
        problems
    }

    /// Reads verify.json, refusing another schema or document; an error
    /// names `what` and, where it can, the section that does not fit.
    pub fn parse(text: &str, what: &str) -> Result<VerifyDoc, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("{what}: not JSON ({e})"))?;
        let Some(fields) = v.as_object() else {
            return Err(format!("{what}: not a JSON object"));
        };
        if !fields.contains_key("schema") {
            return Err(format!("{what}: no \"schema\" field, so not a {SCHEMA} document (written by an older ringlab?)"));
        }
        let header: Header = serde_json::from_value(v.clone()).map_err(|e| format!("{what}: {e}"))?;
        header.check(what)?;
        if header.document != Self::DOCUMENT {
            return Err(format!("{what}: a {:?} document, not {:?}", header.document, Self::DOCUMENT));
        }
        serde_json::from_value(v.clone()).map_err(|e| format!("{what}: {}", section_error(&v).unwrap_or_else(|| e.to_string())))
    }
}

/// Which section of a verify document does not read, and why.
fn section_error(v: &Value) -> Option<String> {
    fn check<T: serde::de::DeserializeOwned>(v: &Value, key: &str) -> Option<String> {
        let Some(x) = v.get(key) else { return Some(format!("no {key:?} section")) };
        serde_json::from_value::<T>(x.clone()).err().map(|e| format!("section {key:?}: {e}"))
    }
    fn list<T: serde::de::DeserializeOwned>(v: &Value, key: &str) -> Option<String> {
        let Some(items) = v.get(key).and_then(Value::as_array) else { return check::<Vec<T>>(v, key) };
        items.iter().enumerate().find_map(|(i, x)| {
            let e = serde_json::from_value::<T>(x.clone()).err()?;
            let name = x.get("name").or_else(|| x.get("id")).and_then(Value::as_str).map(|n| format!(" ({n})")).unwrap_or_default();
            Some(format!("section {key:?}, entry {i}{name}: {e}"))
        })
    }
    // an untagged section says only that no shape fits: try the one it meant
    let diff = v.get("diff").filter(|d| d.get("scenarios").is_some()).and_then(|_| check::<DiffDoc>(v, "diff"));
    let kernel = match v.get("kernel") {
        Some(Value::Array(items)) => items.iter().enumerate().find_map(|(i, x)| {
            let e = match x.get("series") {
                Some(_) => serde_json::from_value::<KernelDoc>(x.clone()).err(),
                None => serde_json::from_value::<KernelSection>(x.clone()).err(),
            }?;
            Some(format!("section \"kernel\", entry {i}: {e}"))
        }),
        Some(k) if k.get("series").is_some() => check::<KernelDoc>(v, "kernel"),
        _ => None,
    };
    list::<ModelResult>(v, "models")
        .or_else(|| v.get("coverage").and_then(|_| list::<SpecCoverage>(v, "coverage")))
        .or_else(|| v.get("thresholds").and_then(|_| list::<ThresholdResult>(v, "thresholds")))
        .or_else(|| list::<ProofDoc>(v, "proofs"))
        .or_else(|| list::<MutantDoc>(v, "mutants"))
        .or(diff)
        .or_else(|| check::<DiffSection>(v, "diff"))
        .or(kernel)
        .or_else(|| check::<KernelSection>(v, "kernel"))
        .or_else(|| check::<bool>(v, "ok"))
}

/// `kernel` as a list of sections, or one section on its own.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<KernelSection>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<KernelSection>),
        One(KernelSection),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::Many(v) => v,
        OneOrMany::One(k) => vec![k],
    })
}

/// The live-kernel differential campaign: skipped (with why), failed to
/// run, or its figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DiffSection {
    Skipped {
        skipped: String,
        kernel: String,
    },
    Failed {
        error: String,
        kernel: String,
        seed: u64,
    },
    /// The campaign's figures, the chain's among them.
    Ran {
        #[serde(flatten)]
        campaign: DiffDoc,
    },
}

impl DiffSection {
    /// A skip is not a failure (it says why); an error or a divergence is.
    /// Skipped, and `--allow-empty` was not given: a run that tested nothing.
    pub fn tested_nothing(&self, allow_empty: bool) -> bool {
        matches!(self, DiffSection::Skipped { .. }) && !allow_empty
    }

    pub fn ok(&self) -> bool {
        match self {
            DiffSection::Skipped { .. } => true,
            DiffSection::Failed { .. } => false,
            DiffSection::Ran { campaign } => campaign.ok(),
        }
    }

    /// The words in verify's closing line.
    pub fn line(&self) -> String {
        match self {
            DiffSection::Skipped { skipped, .. } => format!("live-kernel diff SKIPPED ({skipped})"),
            DiffSection::Failed { error, .. } => format!("live-kernel diff failed to run ({error})"),
            DiffSection::Ran { campaign } => {
                let chain: String = campaign.chain.iter().chain(&campaign.rx_chain).map(|c| format!(", {}", c.words())).collect();
                format!("live-kernel diff {} scenarios with {} divergences{chain}", campaign.scenarios, campaign.divergences)
            }
        }
    }
}

/// `ringlab kernel-test` on the repository's series: not asked for, failed
/// to run, or its document.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KernelSection {
    Skipped { skipped: String },
    Failed { error: String },
    Ran(Box<KernelDoc>),
}

impl KernelSection {
    pub fn ok(&self) -> bool {
        match self {
            KernelSection::Skipped { .. } => true,
            KernelSection::Failed { .. } => false,
            KernelSection::Ran(d) => d.ok,
        }
    }

    /// The words in verify's closing line.
    pub fn line(&self) -> String {
        let d = match self {
            KernelSection::Skipped { .. } => return "kernel VM test not run (--kernel)".into(),
            KernelSection::Failed { error } => return format!("kernel VM test failed to run ({error})"),
            KernelSection::Ran(d) => d,
        };
        let Some(g) = &d.guests else {
            return format!(
                "kernel series {} patches, checkpatch {} warnings, no VM{}",
                d.patches,
                d.checkpatch_warnings,
                if d.ok { "" } else { " (FAILED)" }
            );
        };
        let opt = ringlab_kernel::kernel_test::doc::opt;
        let (valid, rejected) = std::iter::once(&g.diff.baseline)
            .chain(&g.diff.patched.runs)
            .map(|r| r.chain())
            .fold((0, 0), |(v, r), (v1, r1)| (v + v1, r + r1));
        format!(
            "kernel series {} patches, checkpatch {} warnings, xskxceiver {} passed {} failed, diff {}+{} divergences, {valid} kernel traces validated against XskCopyTx ({rejected} rejected), faults {} injected {} leaks{}",
            d.patches,
            d.checkpatch_warnings,
            opt(g.xskxceiver.pass),
            opt(g.xskxceiver.fail),
            g.diff.baseline.divergences(),
            g.diff.patched.divergences,
            g.faults.injected,
            g.faults.leaks,
            if d.ok { "" } else { " (FAILED)" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(diff: DiffSection) -> VerifyDoc {
        VerifyDoc {
            header: Header::new(VerifyDoc::DOCUMENT),
            models: vec![],
            coverage: vec![],
            thresholds: vec![],
            proofs: vec![],
            mutants: vec![],
            mutation: None,
            diff,
            iouring: None,
            kernel: vec![KernelSection::Skipped { skipped: "not requested".into() }],
            allow_empty: false,
            seconds: vec![],
            ok: true,
        }
    }

    #[test]
    fn a_diverging_iouring_diff_is_a_problem() {
        let ran = DiffSection::Skipped { skipped: "x".into(), kernel: "6.18".into() };
        let line = "iouring diff 100/1 div".to_string();
        let d = VerifyDoc { iouring: Some(IouringDiff { ok: false, line: line.clone() }), allow_empty: true, ..doc(ran.clone()) };
        assert!(!d.all_ok());
        assert!(d.problems().contains(&line), "{:?}", d.problems());
        let back = VerifyDoc::parse(&serde_json::to_string(&d).unwrap(), "v.json").unwrap();
        assert_eq!(back.iouring.map(|i| (i.ok, i.line)), Some((false, line)));
        let fine = VerifyDoc { iouring: Some(IouringDiff { ok: true, line: "iouring diff 100/0 div".into() }), allow_empty: true, ..doc(ran) };
        assert!(!fine.problems().iter().any(|p| p.contains("iouring")));
    }

    #[test]
    fn a_skipped_diff_is_a_problem_unless_allowed() {
        let mut d = doc(DiffSection::Skipped { skipped: "needs root".into(), kernel: "6.18".into() });
        assert!(d.problems().is_empty());
        d.ok = false;
        let p = d.problems();
        assert!(p.len() == 1 && p[0].contains("SKIPPED (needs root): nothing was tested"), "{p:?}");
        d.allow_empty = true;
        assert_eq!(d.problems(), vec!["verify.json records the run as failed".to_string()]);
    }

    #[test]
    fn every_diff_shape_reads_back_as_itself() {
        let ran = DiffSection::Ran { campaign: DiffDoc { scenarios: 5, kernel: "6.18".into(), ..Default::default() } };
        for d in [
            DiffSection::Skipped { skipped: "not root".into(), kernel: "6.18".into() },
            DiffSection::Failed { error: "boom".into(), kernel: "6.18".into(), seed: 1 },
            ran,
        ] {
            let text = serde_json::to_string(&doc(d)).unwrap();
            let back = VerifyDoc::parse(&text, "verify.json").unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
        }
    }

    #[test]
    fn a_failed_kernel_series_says_why() {
        let mut d = doc(DiffSection::Skipped { skipped: "needs root".into(), kernel: "6.18".into() });
        let k = ringlab_kernel::kernel_test::doc::KernelDoc {
            series: "kernel/patches/xsk-redirect-xsk".into(),
            patches: 8,
            problems: vec!["xskxceiver on the baseline kernel: 19 passed, 1 failed".into()],
            ok: false,
            ..Default::default()
        };
        let passed = ringlab_kernel::kernel_test::doc::KernelDoc { series: "kernel/patches/xsk-batch-xmit".into(), ok: true, ..Default::default() };
        d.kernel = vec![KernelSection::Ran(Box::new(passed)), KernelSection::Ran(Box::new(k))];
        d.ok = false;
        let p = d.problems();
        assert!(
            p.iter().any(|l| l == "kernel series kernel/patches/xsk-redirect-xsk: xskxceiver on the baseline kernel: 19 passed, 1 failed (detail: target/ringlab/kernel/xsk-redirect-xsk.json)"),
            "{p:?}"
        );
        assert!(!p.iter().any(|l| l.contains("xsk-batch-xmit")), "{p:?}");
    }

    #[test]
    fn one_kernel_section_on_its_own_reads_as_a_list_of_one() {
        let mut v = serde_json::to_value(doc(DiffSection::Skipped { skipped: "x".into(), kernel: "k".into() })).unwrap();
        v["kernel"] = serde_json::json!({"skipped": "not requested"});
        let d = VerifyDoc::parse(&v.to_string(), "verify.json").unwrap();
        assert!(matches!(d.kernel.as_slice(), [KernelSection::Skipped { .. }]), "{:?}", d.kernel);
    }

    #[test]
    fn another_schema_or_document_is_refused() {
        let mut v = serde_json::to_value(doc(DiffSection::Skipped { skipped: "x".into(), kernel: "k".into() })).unwrap();
        v["schema"] = "ringlab/0".into();
        let e = VerifyDoc::parse(&v.to_string(), "verify.json").unwrap_err();
        assert!(e.contains("ringlab/0"), "{e}");
        v["schema"] = ringlab_model::schema::SCHEMA.into();
        v["document"] = "bench".into();
        assert!(VerifyDoc::parse(&v.to_string(), "verify.json").unwrap_err().contains("bench"));
    }

    #[test]
    fn a_document_that_does_not_fit_names_the_section() {
        let e = VerifyDoc::parse("{\"models\": []}", "v.json").unwrap_err();
        assert!(e.contains("v.json: no \"schema\" field"), "{e}");
        assert!(VerifyDoc::parse("[1]", "v.json").unwrap_err().contains("not a JSON object"));
        assert!(VerifyDoc::parse("{", "v.json").unwrap_err().starts_with("v.json: not JSON"));
        let mut v = serde_json::to_value(doc(DiffSection::Skipped { skipped: "x".into(), kernel: "k".into() })).unwrap();
        v["diff"] = serde_json::json!({"scenarios": "many"});
        let e = VerifyDoc::parse(&v.to_string(), "v.json").unwrap_err();
        assert!(e.starts_with("v.json: section \"diff\": invalid type: string \"many\""), "{e}");
        v["diff"] = serde_json::json!({"skipped": "x", "kernel": "k"});
        v["proofs"] = serde_json::json!([{"name": "p"}]);
        let e = VerifyDoc::parse(&v.to_string(), "v.json").unwrap_err();
        assert!(e.contains("section \"proofs\", entry 0 (p): missing field `expected`"), "{e}");
        v["proofs"] = serde_json::json!(7);
        let e = VerifyDoc::parse(&v.to_string(), "v.json").unwrap_err();
        assert!(e.contains("section \"proofs\": invalid type: integer `7`, expected a sequence"), "{e}");
    }

    #[test]
    fn the_closing_words_name_what_happened() {
        assert!(DiffSection::Skipped { skipped: "no root".into(), kernel: "k".into() }.line().contains("SKIPPED (no root)"));
        assert_eq!(KernelSection::Skipped { skipped: "x".into() }.line(), "kernel VM test not run (--kernel)");
    }
}
