//! index.html: the verdict, then every result of the verify run, with the
//! details behind <details>. This builds the page's context from the typed
//! verify document; templates/index.html is its HTML.

use std::collections::BTreeMap;

use serde::Serialize;

use super::markup::url_encode;
use super::page::{utc, Stamp};
use super::sections::{DiffView, KernelView};
use super::templates::render;
use super::trace_page::explorer_link;
use ringlab_results::mutants::{Kill, MutantResult};
use ringlab_results::{ProofDoc, VerifyDoc};
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::coverage::SpecCoverage;
use ringlab_tlc::explorer::RingTrace;
use ringlab_tlc::thresholds::ThresholdResult;

/// The mutation matrix's columns: every kind of check a manifest mutant
/// names as its killer, as the manifest names them (diff: the live-kernel
/// diff; chain: kernel traces validated by TLC).
pub const CHECK_KINDS: [&str; 8] = ["tlc", "proptest", "loom", "threads", "trace", "proof", "diff", "chain"];

pub struct IndexInput<'a> {
    pub doc: &'a VerifyDoc,
    /// When verify.json was written.
    pub verify_time: Option<u64>,
    /// Model name to its counterexample page, relative to the index.
    pub pages: &'a BTreeMap<String, String>,
    pub sim: &'a [RingTrace],
    /// Inputs that could not be read.
    pub skipped: &'a [String],
}

/// The page's context (templates/index.html).
#[derive(Serialize)]
struct IndexPage<'a> {
    up: &'static str,
    stamp: String,
    banner: Banner,
    /// When the verify run was, in words.
    when: String,
    models: Vec<ModelRow<'a>>,
    coverage: Vec<CoverageRow<'a>>,
    thresholds: Vec<ThresholdRow<'a>>,
    proofs: Vec<ProofRow<'a>>,
    check_kinds: [&'static str; 8],
    mutants: Vec<MutantRow<'a>>,
    /// The automatic campaign's sample: scores, and every mutant.
    mutation: Option<MutationView<'a>>,
    diff: DiffView<'a>,
    /// One per series kernel-test ran (or one saying why none ran).
    kernels: Vec<KernelView<'a>>,
    sim: Vec<SimRow<'a>>,
    skipped: &'a [String],
}

#[derive(Serialize)]
struct MutationView<'a> {
    scope: &'a str,
    error: Option<&'a str>,
    scores: Vec<ScoreRow<'a>>,
    runs: &'a [ringlab_results::MutationRun],
    ok: bool,
}

#[derive(Serialize)]
struct ScoreRow<'a> {
    #[serde(flatten)]
    s: &'a ringlab_results::Score,
    score: String,
}

impl<'a> MutationView<'a> {
    fn of(m: &'a ringlab_results::MutationDoc) -> MutationView<'a> {
        MutationView {
            scope: &m.scope,
            error: m.error.as_deref(),
            scores: m
                .scores
                .iter()
                .map(|s| ScoreRow { s, score: s.ratio().map_or("-".into(), |r| format!("{:.1}%", 100.0 * r)) })
                .collect(),
            runs: &m.runs,
            ok: m.sample_ok(),
        }
    }
}

#[derive(Serialize)]
struct Banner {
    ok: bool,
    summary: String,
    problems: Vec<String>,
}

#[derive(Serialize)]
struct ModelRow<'a> {
    #[serde(flatten)]
    m: &'a ModelResult,
    ok: bool,
    /// Its counterexample page.
    page: Option<&'a str>,
    /// Actions taken of all, and the redundant ones.
    actions: String,
    redundant: String,
    /// Why its coverage fails it, a line each.
    uncovered: Vec<String>,
}

#[derive(Serialize)]
struct CoverageRow<'a> {
    #[serde(flatten)]
    s: &'a SpecCoverage,
    ok: bool,
    never: String,
    redundant: String,
    aliases: String,
    failures: Vec<String>,
}

#[derive(Serialize)]
struct ThresholdRow<'a> {
    #[serde(flatten)]
    t: &'a ThresholdResult,
    crossed_by: String,
    verdict: String,
}

#[derive(Serialize)]
struct ProofRow<'a> {
    #[serde(flatten)]
    p: &'a ProofDoc,
    ok: bool,
    /// The counterexample's values, a line each.
    values: String,
}

#[derive(Serialize)]
struct MutantRow<'a> {
    #[serde(flatten)]
    m: &'a MutantResult,
    ok: bool,
    fix: Option<String>,
    cells: Vec<Cell>,
}

/// A matrix cell: a mark per check of that kind (none: not applicable).
#[derive(Serialize)]
struct Cell {
    kind: &'static str,
    marks: Vec<Mark>,
}

#[derive(Serialize)]
struct Mark {
    mark: &'static str,
    class: &'static str,
    title: String,
}

#[derive(Serialize)]
struct SimRow<'a> {
    href: String,
    title: &'a str,
    source: &'a str,
    states: usize,
}

pub fn index_page(i: &IndexInput, stamp: &Stamp) -> Result<String, String> {
    let d = i.doc;
    let page = IndexPage {
        up: "",
        stamp: stamp.line(),
        banner: banner(d),
        when: i.verify_time.map(|t| format!(" (verify run of {})", utc(t))).unwrap_or_default(),
        models: d
            .models
            .iter()
            .map(|m| ModelRow {
                m,
                ok: m.ok(),
                page: i.pages.get(&m.name).map(String::as_str),
                actions: m.coverage.as_ref().map_or_else(|| "-".into(), |c| c.taken_words()),
                redundant: m.coverage.as_ref().map_or_else(|| "-".into(), |c| c.redundant_words()),
                uncovered: m.coverage.as_ref().map(|c| c.failures()).unwrap_or_default(),
            })
            .collect(),
        coverage: d
            .coverage
            .iter()
            .map(|s| CoverageRow {
                s,
                ok: s.ok(),
                never: s.never_words(),
                redundant: s.redundant_words(),
                aliases: s.aliases_words(),
                failures: s.failures(),
            })
            .collect(),
        thresholds: d.thresholds.iter().map(|t| ThresholdRow { t, crossed_by: t.crossed_by(), verdict: t.verdict() }).collect(),
        proofs: d
            .proofs
            .iter()
            .map(|p| ProofRow {
                p,
                ok: p.ok(),
                values: p.counterexample.iter().flatten().map(|(k, v)| format!("{k} = {v:#x}")).collect::<Vec<_>>().join("\n"),
            })
            .collect(),
        check_kinds: CHECK_KINDS,
        mutants: d
            .mutants
            .iter()
            .map(|m| &m.result)
            .map(|m| MutantRow { m, ok: m.ok(), fix: fix_link(m), cells: CHECK_KINDS.iter().map(|k| cell(m, k)).collect() })
            .collect(),
        mutation: d.mutation.as_ref().map(MutationView::of),
        diff: DiffView::of(&d.diff),
        kernels: d.kernel.iter().map(KernelView::of).collect(),
        sim: i
            .sim
            .iter()
            .map(|t| SimRow {
                href: explorer_link("", &t.title, t.states.first().map_or(0, |s| s.num)),
                title: &t.title,
                source: &t.source,
                states: t.states.len(),
            })
            .collect(),
        skipped: i.skipped,
    };
    render("index.html", &page)
}

/// The verdict: all as expected or not, the counts, and what is not.
fn banner(d: &VerifyDoc) -> Banner {
    let ok = d.all_ok();
    let problems = d.problems();
    let count = |n: usize, all: usize, what: &str| format!("{what} {n}/{all}");
    let summary = [
        count(d.models.iter().filter(|m| m.ok()).count(), d.models.len(), "models as expected"),
        count(d.thresholds.iter().filter(|t| t.ok).count(), d.thresholds.len(), "thresholds crossed"),
        count(d.proofs.iter().filter(|p| p.ok()).count(), d.proofs.len(), "proofs as expected"),
        count(d.mutants.iter().filter(|m| m.result.ok()).count(), d.mutants.len(), "mutants killed"),
    ]
    .join(" · ");
    Banner { ok, summary, problems }
}

/// Where a mutant's fix is described: its own link, or for a bug that
/// shipped in the kernel, a search of the kernel log for the fix's title.
pub fn fix_link(m: &MutantResult) -> Option<String> {
    if let Some(l) = &m.link {
        return Some(l.clone());
    }
    (m.kind == "real").then(|| {
        format!("https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/log/?qt=grep&q={}", url_encode(&m.bug))
    })
}

/// One matrix cell: a mark per check of that kind.
fn cell(m: &MutantResult, kind: &'static str) -> Cell {
    let marks = m
        .checks
        .iter()
        .filter(|c| c.check.split(':').next() == Some(kind))
        .map(|c| {
            let (mark, class) = match c.result {
                Kill::Killed => ("✓", "killed"),
                Kill::Survived => ("✗", "survived"),
                Kill::Error => ("✗", "error"),
                Kill::Skipped => ("·", "skipped"),
            };
            Mark { mark, class, title: format!("{}: {class} — {}", c.check, c.detail) }
        })
        .collect();
    Cell { kind, marks }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn every_killer_kind_has_a_column() {
        let m = ringlab_tlc::manifest::Manifest::load(&ringlab_tlc::specs_dir().join("manifest.json")).unwrap();
        for mu in &m.mutants {
            for k in &mu.killers {
                let kind = k.label().split(':').next().unwrap().to_string();
                assert!(CHECK_KINDS.contains(&kind.as_str()), "mutant {}: killer kind {kind} has no column in the matrix", mu.id);
            }
        }
    }
    use ringlab_model::schema::Header;
    use ringlab_results::mutants::CheckRun;
    use ringlab_results::{DiffSection, KernelSection, MutantDoc};

    pub fn model(name: &str, outcome: &str, trace: bool) -> ModelResult {
        ModelResult {
            name: name.into(),
            about: String::new(),
            spec: "XskRing.tla".into(),
            config: "mc/X.cfg".into(),
            expected: "violation:NoOverwrite".into(),
            outcome: outcome.into(),
            distinct_states: Some(105),
            depth: Some(6),
            seconds: 1.4,
            trace_file: trace.then(|| "t.json".to_string()),
            error: None,
            drift: None,
            drift_fails: false,
            coverage: None,
        }
    }

    fn mutant(kind: &str, link: Option<&str>, result: Kill) -> MutantResult {
        MutantResult {
            id: "xsk-rmb".into(),
            kind: kind.into(),
            bug: "xsk: add missing memory barrier in xskq_has_addrs()".into(),
            year: Some(2019),
            what: String::new(),
            link: link.map(str::to_string),
            killed_by: vec![],
            checks: vec![
                CheckRun { check: "tlc:xsk-ring-no-c".into(), result: Kill::Killed, detail: "TLC: violation".into(), seconds: 1.0 },
                CheckRun { check: "loom:loom".into(), result, detail: "all tests passed with the mutant in".into(), seconds: 1.0 },
            ],
        }
    }

    /// A document with nothing in it but a skipped diff and kernel.
    pub fn doc() -> VerifyDoc {
        VerifyDoc {
            header: Header::new(VerifyDoc::DOCUMENT),
            models: vec![],
            coverage: vec![],
            thresholds: vec![],
            proofs: vec![],
            mutants: vec![],
            mutation: None,
            diff: DiffSection::Skipped { skipped: "not root".into(), kernel: "6.18.1".into() },
            iouring: None,
            kernel: vec![KernelSection::Skipped { skipped: "not requested".into() }],
            allow_empty: true,
            seconds: vec![],
            ok: true,
        }
    }

    pub fn render(doc: &VerifyDoc) -> String {
        let pages: BTreeMap<String, String> = [("m".to_string(), "traces/m.html".to_string())].into();
        index_page(&IndexInput { doc, verify_time: Some(0), pages: &pages, sim: &[], skipped: &[] }, &Stamp { version: "9.9.9", now: 0 }).unwrap()
    }

    #[test]
    fn a_surviving_mutant_of_the_sample_fails_the_banner_by_name() {
        use ringlab_results::{MutationDoc, MutationRun, Verdict};
        let run = |id: &str, verdict| MutationRun {
            id: id.into(),
            group: "XskRing.tla".into(),
            op: "drop-guard".into(),
            at: "specs/XskRing.tla:3".into(),
            what: "`x < 3` -> TRUE".into(),
            verdict,
            detail: String::new(),
            seconds: 1.0,
        };
        let runs = vec![run("XskRing.tla/A/drop-guard/0", Verdict::Killed), run("XskRing.tla/B/drop-guard/0", Verdict::Survived)];
        let m = MutationDoc { scope: "sample".into(), scores: MutationDoc::tally(&runs, |_| "spec"), runs, ..MutationDoc::default() };
        let html = render(&VerifyDoc { mutation: Some(m), ..doc() });
        assert!(html.contains("mutant XskRing.tla/B/drop-guard/0 survived"), "{html}");
        assert!(html.contains("id=\"mutation\""));
        assert!(!html.contains("mutant XskRing.tla/A/drop-guard/0 survived"));
    }

    #[test]
    fn coverage_and_thresholds_name_what_fails() {
        use ringlab_tlc::coverage::{ActionCov, Coverage, Redundant};
        use ringlab_tlc::thresholds::{ThresholdResult, WitnessResult};
        let mut m = model("m", "pass", false);
        m.expected = "pass".into();
        let act = |name: &str, transitions| ActionCov { name: name.into(), distinct: 0, transitions, own: Some(0) };
        m.coverage = Some(Coverage {
            actions: vec![act("Inc", 3), act("IncTwice", 2), act("Skip", 0)],
            complete: true,
            never: vec!["Skip".into()],
            graph: true,
            redundant: vec![Redundant { name: "IncTwice".into(), transitions: 2, also: vec!["Inc".into()] }],
            ..Coverage::default()
        });
        let t = ThresholdResult {
            name: "tx-budget".into(),
            kernel: "TX_BATCH_SIZE 32".into(),
            source: "net/xdp/xsk.c:35".into(),
            model: "Budget = 2".into(),
            scaled: None,
            witnesses: vec![WitnessResult { by: "xsk-copytx-b Reach_BudgetSpent".into(), verdict: "not reached".into(), ok: false, seconds: 1.0 }],
            ok: false,
            problem: None,
        };
        let html = render(&VerifyDoc { models: vec![m], thresholds: vec![t], ok: false, ..doc() });
        assert!(html.contains("<li>model m: action Skip is never taken"), "{html}");
        assert!(html.contains("action IncTwice is redundant: each of its 2 transitions is also one of Inc&#39;s"), "{html}");
        assert!(html.contains("<li>threshold tx-budget: xsk-copytx-b Reach_BudgetSpent: not reached</li>"), "{html}");
        assert!(html.contains("<td class=\"num\">2/3</td><td>IncTwice</td>"), "{html}");
        assert!(html.contains("data-threshold=\"tx-budget\""), "{html}");
    }

    #[test]
    fn banner_is_green_when_all_is_as_expected() {
        let mut mu = mutant("real", None, Kill::Killed);
        mu.killed_by = vec!["tlc:xsk-ring-no-c".into(), "loom:loom".into()];
        let doc = VerifyDoc { models: vec![model("m", "violation:NoOverwrite", true)], mutants: vec![MutantDoc::from(&mu)], ..doc() };
        let html = render(&doc);
        assert!(html.contains("class=\"banner ok\""), "{html}");
        assert!(html.contains("<a href=\"traces/m.html\">m</a>"));
        assert!(html.contains("<td class=\"num\">105</td><td class=\"num\">6</td><td class=\"num\">1.4</td>"), "{html}");
        assert!(html.contains("generated by ringlab 9.9.9 on 1970-01-01 00:00 UTC"));
        assert!(html.contains("<td class=\"c\" data-check=\"loom\"><span class=\"mark killed\" title=\"loom:loom: killed — all tests passed with the mutant in\">✓</span></td>"), "{html}");
        assert!(html.contains("<td class=\"c\" data-check=\"proof\"><span class=\"mark na\" title=\"not applicable\">–</span></td>"));
        assert!(html.contains("SKIPPED: not root"));
        assert!(html.contains("No kernel run: not requested."));
    }

    #[test]
    fn text_is_escaped_once() {
        let mut m = model("m<1>", "violation:NoOverwrite", false);
        m.about = "a \"quoted\" & 'odd' <name>".into();
        m.drift = Some("x < y".into());
        let html = render(&VerifyDoc { models: vec![m], ..doc() });
        assert!(html.contains("<td title=\"a &quot;quoted&quot; &amp; &#39;odd&#39; &lt;name&gt;\">m&lt;1&gt;</td>"), "{html}");
        assert!(html.contains("<details open><summary>details</summary>a &quot;quoted&quot; &amp; &#39;odd&#39; &lt;name&gt;<br>note: x &lt; y</details>"), "{html}");
    }

    #[test]
    fn banner_is_red_when_something_failed() {
        let html = render(&VerifyDoc { models: vec![model("m", "pass", false)], ok: false, ..doc() });
        assert!(html.contains("class=\"banner bad\""));
        assert!(html.contains("model m: pass (expected violation:NoOverwrite)"));
        // a row that says ok while the record says failed is still red
        let html = render(&VerifyDoc { models: vec![model("m", "violation:NoOverwrite", false)], ok: false, ..doc() });
        assert!(html.contains("class=\"banner bad\"") && html.contains("verify.json records the run as failed"));
        // a surviving mutant
        let mu = MutantDoc::from(&mutant("real", None, Kill::Survived));
        let html = render(&VerifyDoc { mutants: vec![mu], ..doc() });
        assert!(html.contains("class=\"banner bad\""));
        assert!(html.contains("mutant xsk-rmb: not killed by loom:loom"));
        assert!(html.contains("<td class=\"fail\">survived</td>"));
    }

    #[test]
    fn matrix_cells_and_fix_links() {
        let m = mutant("real", None, Kill::Survived);
        assert_eq!(
            fix_link(&m).unwrap(),
            "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/log/?qt=grep&q=xsk%3A%20add%20missing%20memory%20barrier%20in%20xskq_has_addrs%28%29"
        );
        assert_eq!(fix_link(&mutant("real", Some("https://example.org/53"), Kill::Killed)).unwrap(), "https://example.org/53");
        assert_eq!(fix_link(&mutant("synthetic", None, Kill::Killed)), None);
        assert_eq!(cell(&m, "tlc").marks[0].class, "killed");
        let loom = &cell(&m, "loom").marks[0];
        assert_eq!((loom.class, loom.mark), ("survived", "✗"));
        assert!(loom.title.starts_with("loom:loom: survived — all tests passed"));
        assert!(cell(&m, "proof").marks.is_empty());
    }
}
