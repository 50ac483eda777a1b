//! index.html: the verdict, then every result of the verify run, with the
//! details behind <details>.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

use super::input::VerifyDoc;
use super::markup::{esc, url_encode};
use super::page::{page, utc, Stamp};
use super::trace_page::explorer_link;
use ringlab_results::mutants::{Kill, MutantResult};
use ringlab_tlc::explorer::RingTrace;

/// The check kinds of the mutation matrix, as the manifest names them.
pub const CHECK_KINDS: [&str; 5] = ["tlc", "proptest", "loom", "trace", "proof"];

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

pub fn index_page(i: &IndexInput, stamp: &Stamp) -> String {
    let mut b = String::new();
    banner(&mut b, i);
    models(&mut b, i);
    proofs(&mut b, i.doc);
    mutants(&mut b, &i.doc.mutants);
    diff_section(&mut b, i.doc.differential.as_ref());
    later_section(&mut b, "Kernel", "kernel", i.doc.kernel.as_ref(), "No kernel run: verify.json has no kernel section, so nothing here was checked against a live kernel.");
    sim(&mut b, i.sim);
    if !i.skipped.is_empty() {
        let _ = write!(b, "<h2>Not included</h2><ul>");
        for s in i.skipped {
            let _ = write!(b, "<li class=\"note\">{}</li>", esc(s));
        }
        b.push_str("</ul>\n");
    }
    let nav = "<nav><a href=\"explorer.html\">ring explorer</a></nav>";
    page("ringlab verification report", "", nav, &b, stamp)
}

fn banner(b: &mut String, i: &IndexInput) {
    let d = i.doc;
    let ok = d.all_ok();
    let mut problems = Vec::new();
    for m in d.models.iter().filter(|m| !m.ok()) {
        problems.push(format!("model {}: {} (expected {})", m.name, m.outcome, m.expected));
    }
    for p in d.proofs.iter().filter(|p| !p.ok()) {
        problems.push(format!("proof {}: {} (expected {})", p.name, p.outcome, p.expected));
    }
    for mu in d.mutants.iter().filter(|m| !m.ok()) {
        let not: Vec<&str> = mu.checks.iter().filter(|c| c.result != Kill::Killed).map(|c| c.check.as_str()).collect();
        problems.push(format!("mutant {}: not killed by {}", mu.id, if not.is_empty() { "any check".to_string() } else { not.join(", ") }));
    }
    if !ok && problems.is_empty() {
        problems.push("verify.json records the run as failed".into());
    }
    let count = |n: usize, all: usize, what: &str| format!("{what} {n}/{all}");
    let summary = [
        count(d.models.iter().filter(|m| m.ok()).count(), d.models.len(), "models as expected"),
        count(d.proofs.iter().filter(|p| p.ok()).count(), d.proofs.len(), "proofs as expected"),
        count(d.mutants.iter().filter(|m| m.ok()).count(), d.mutants.len(), "mutants killed"),
    ]
    .join(" · ");
    let _ = write!(
        b,
        "<section id=\"banner\" class=\"banner {}\"><strong>{}</strong>{}",
        if ok { "ok" } else { "bad" },
        if ok { "All as expected" } else { "Not all as expected" },
        esc(&summary)
    );
    if !problems.is_empty() {
        b.push_str("<ul>");
        for p in problems {
            let _ = write!(b, "<li>{}</li>", esc(&p));
        }
        b.push_str("</ul>");
    }
    b.push_str("</section>\n");
    let when = i.verify_time.map(|t| format!(" (verify run of {})", utc(t))).unwrap_or_default();
    let _ = writeln!(b, "<p class=\"note\">From target/ringlab/verify.json{when}. Every model must have the outcome the manifest expects, every proof be proved or refuted as expected, and every mutant be killed by every check listed for it.</p>");
}

fn models(b: &mut String, i: &IndexInput) {
    let ms = &i.doc.models;
    let _ = writeln!(b, "<h2 id=\"models\">TLC models<span class=\"count\">{} models</span></h2>", ms.len());
    b.push_str("<div class=\"scroll\"><table class=\"grid nowrap\"><thead><tr><th>model</th><th>spec</th><th>config</th><th>expected</th><th>outcome</th><th>distinct states</th><th>depth</th><th>seconds</th><th>trace</th></tr></thead><tbody>\n");
    for m in ms {
        let page = i.pages.get(&m.name);
        let name = match page {
            Some(p) => format!("<a href=\"{}\">{}</a>", esc(p), esc(&m.name)),
            None => esc(&m.name),
        };
        let opt = |x: Option<u64>| x.map_or("–".to_string(), |v| v.to_string());
        let _ = writeln!(
            b,
            "<tr{} data-model=\"{}\"><td title=\"{}\">{name}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td><code class=\"{}\">{}</code> {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td>{}</td></tr>",
            if m.ok() { "" } else { " class=\"fail\"" },
            esc(&m.name),
            esc(&m.about),
            esc(&m.spec),
            esc(&m.config),
            esc(&m.expected),
            if m.ok() { "pass" } else { "fail" },
            esc(&m.outcome),
            if m.ok() { "<span class=\"pass\" title=\"as expected\">✓</span>" } else { "<span class=\"fail\" title=\"not the expected outcome\">✗ differs</span>" },
            opt(m.distinct_states),
            opt(m.depth),
            m.seconds,
            page.map_or(String::new(), |p| format!("<a href=\"{}\">steps</a>", esc(p))),
        );
        let mut more = Vec::new();
        if !m.about.is_empty() {
            more.push(esc(&m.about));
        }
        if let Some(e) = &m.error {
            more.push(format!("TLC did not finish:<pre>{}</pre>", esc(e)));
        }
        if let Some(d) = &m.drift {
            more.push(format!("note: {}", esc(d)));
        }
        if m.error.is_some() || m.drift.is_some() {
            let _ = writeln!(b, "<tr><td></td><td colspan=\"8\" class=\"wrap\"><details open><summary>details</summary>{}</details></td></tr>", more.join("<br>"));
        }
    }
    b.push_str("</tbody></table></div>\n");
}

fn proofs(b: &mut String, d: &VerifyDoc) {
    let _ = writeln!(b, "<h2 id=\"proofs\">Z3 proofs<span class=\"count\">{} proofs, for every power-of-two size and every u32 counter value</span></h2>", d.proofs.len());
    b.push_str("<table class=\"grid\"><thead><tr><th>proof</th><th>what it states</th><th>expected</th><th>outcome</th><th>seconds</th><th></th></tr></thead><tbody>\n");
    for p in &d.proofs {
        let cx = match &p.counterexample {
            Some(c) => {
                let vals: Vec<String> = c.iter().map(|(k, v)| format!("{k} = {v:#x}")).collect();
                format!("<details><summary>counterexample</summary><pre>{}</pre></details>", esc(&vals.join("\n")))
            }
            None => String::new(),
        };
        let mutant = p.mutant.as_ref().map(|m| format!(" <span class=\"tag\">mutant {}</span>", esc(m))).unwrap_or_default();
        let _ = writeln!(
            b,
            "<tr{}><td><code>{}</code>{mutant}</td><td>{}{cx}</td><td>{}</td><td class=\"{}\">{}</td><td class=\"num\">{:.2}</td><td>{}</td></tr>",
            if p.ok() { "" } else { " class=\"fail\"" },
            esc(&p.name),
            esc(&p.about),
            esc(&p.expected),
            if p.ok() { "pass" } else { "fail" },
            esc(&p.outcome),
            p.seconds,
            if p.ok() { "<span class=\"pass\">✓</span>" } else { "<span class=\"fail\">✗</span>" },
        );
    }
    b.push_str("</tbody></table>\n");
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
fn cell(m: &MutantResult, kind: &str) -> String {
    let runs: Vec<_> = m.checks.iter().filter(|c| c.check.split(':').next() == Some(kind)).collect();
    if runs.is_empty() {
        return "<span class=\"mark na\" title=\"not applicable\">–</span>".into();
    }
    runs.iter()
        .map(|c| {
            let (mark, class, word) = match c.result {
                Kill::Killed => ("✓", "killed", "killed"),
                Kill::Survived => ("✗", "survived", "survived"),
                Kill::Error => ("✗", "error", "error"),
            };
            format!("<span class=\"mark {class}\" title=\"{}\">{mark}</span>", esc(&format!("{}: {word} — {}", c.check, c.detail)))
        })
        .collect()
}

fn mutants(b: &mut String, ms: &[MutantResult]) {
    let _ = writeln!(b, "<h2 id=\"mutants\">Mutation matrix<span class=\"count\">{} mutants; ✓ killed, ✗ survived or error (hover for the detail), – not applicable</span></h2>", ms.len());
    b.push_str("<table class=\"grid matrix\"><thead><tr><th>mutant</th><th>kind</th><th>year</th><th>fix / bug</th>");
    for k in CHECK_KINDS {
        let _ = write!(b, "<th class=\"c\">{k}</th>");
    }
    b.push_str("<th></th></tr></thead><tbody>\n");
    for m in ms {
        let bug = match fix_link(m) {
            Some(l) => format!("<a href=\"{}\">{}</a>", esc(&l), esc(&m.bug)),
            None => esc(&m.bug),
        };
        let what = if m.what.is_empty() { String::new() } else { format!("<details><summary>what it breaks</summary>{}</details>", esc(&m.what)) };
        let _ = write!(
            b,
            "<tr{} data-mutant=\"{}\"><td><code>{}</code></td><td><span class=\"tag {}\">{}</span></td><td>{}</td><td>{bug}{what}</td>",
            if m.ok() { "" } else { " class=\"fail\"" },
            esc(&m.id),
            esc(&m.id),
            esc(&m.kind),
            esc(&m.kind),
            m.year.map_or("–".to_string(), |y| y.to_string()),
        );
        for k in CHECK_KINDS {
            let _ = write!(b, "<td class=\"c\" data-check=\"{k}\">{}</td>", cell(m, k));
        }
        let _ = writeln!(b, "<td>{}</td></tr>", if m.ok() { "<span class=\"pass\">killed</span>" } else { "<span class=\"fail\">FAIL</span>" });
    }
    b.push_str("</tbody></table>\n");
    let details: Vec<_> = ms.iter().flat_map(|m| m.checks.iter().map(move |c| (m, c))).collect();
    if !details.is_empty() {
        b.push_str("<details><summary>every check run, with its detail</summary><table class=\"grid\"><thead><tr><th>mutant</th><th>check</th><th>result</th><th>seconds</th><th>detail</th></tr></thead><tbody>\n");
        for (m, c) in details {
            let r = match c.result {
                Kill::Killed => "killed",
                Kill::Survived => "survived",
                Kill::Error => "error",
            };
            let _ = writeln!(
                b,
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td class=\"{}\">{r}</td><td class=\"num\">{:.1}</td><td>{}</td></tr>",
                esc(&m.id),
                esc(&c.check),
                if c.result == Kill::Killed { "pass" } else { "fail" },
                c.seconds,
                esc(&c.detail)
            );
        }
        b.push_str("</tbody></table></details>\n");
    }
}

/// A section a later feature fills: its JSON when present, else a plain
/// statement that none was run.
/// The live-kernel campaign: its figures, or why it did not run.
fn diff_section(b: &mut String, v: Option<&Value>) {
    let Some(Value::Object(d)) = v else {
        return later_section(b, "Differential campaigns", "differential", v, "No differential campaign was run: verify.json has no differential section.");
    };
    let _ = writeln!(b, "<h2 id=\"differential\">Differential campaign against the live kernel</h2>");
    let field = |k: &str| d.get(k).map(|x| x.as_str().map(String::from).unwrap_or_else(|| x.to_string()));
    if let Some(why) = field("skipped") {
        let _ = writeln!(b, "<p class=\"none\">SKIPPED: {}</p>", esc(&why));
        return;
    }
    if let Some(e) = field("error") {
        let _ = writeln!(b, "<p class=\"bad\">The campaign did not run: {}</p>", esc(&e));
        return;
    }
    b.push_str("<table><tbody>\n");
    for (k, label) in [
        ("kernel", "kernel"),
        ("profile", "model profile"),
        ("seed", "seed"),
        ("scenarios", "scenarios"),
        ("operations", "operations"),
        ("divergences", "divergences"),
    ] {
        if let Some(x) = field(k) {
            let _ = writeln!(b, "<tr><th>{label}</th><td>{}</td></tr>", esc(&x));
        }
    }
    b.push_str("</tbody></table>\n");
    if let Some(Value::Array(files)) = d.get("replay_files") {
        for f in files.iter().filter_map(Value::as_str) {
            let _ = writeln!(b, "<p>replay: <code>ringlab diff --replay {}</code></p>", esc(f));
        }
    }
}

fn later_section(b: &mut String, title: &str, id: &str, v: Option<&Value>, none: &str) {
    let _ = writeln!(b, "<h2 id=\"{id}\">{title}</h2>");
    match v {
        None | Some(Value::Null) => {
            let _ = writeln!(b, "<p class=\"none\">{}</p>", esc(none));
        }
        Some(v) => {
            let text = serde_json::to_string_pretty(v).unwrap_or_default();
            let _ = writeln!(b, "<details open><summary>as recorded in verify.json</summary><pre>{}</pre></details>", esc(&text));
        }
    }
}

fn sim(b: &mut String, sim: &[RingTrace]) {
    let _ = writeln!(b, "<h2 id=\"sim\">Simulator traces<span class=\"count\">from target/ringlab/sim/*.jsonl</span></h2>");
    if sim.is_empty() {
        b.push_str("<p class=\"none\">None: no simulator trace in target/ringlab/sim/ (write one with <code>ringlab sim ring --trace target/ringlab/sim/NAME.jsonl</code>).</p>\n");
        return;
    }
    b.push_str("<ul>");
    for t in sim {
        let first = t.states.first().map_or(0, |s| s.num);
        let _ = write!(
            b,
            "<li><a href=\"{}\">{}</a> <span class=\"note\">{} · {} states</span></li>",
            esc(&explorer_link("", &t.title, first)),
            esc(&t.title),
            esc(&t.source),
            t.states.len()
        );
    }
    b.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_tlc::check::ModelResult;
    use ringlab_results::mutants::CheckRun;

    fn model(name: &str, outcome: &str, trace: bool) -> ModelResult {
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

    fn render(doc: &VerifyDoc) -> String {
        let pages: BTreeMap<String, String> = [("m".to_string(), "traces/m.html".to_string())].into();
        index_page(&IndexInput { doc, verify_time: Some(0), pages: &pages, sim: &[], skipped: &[] }, &Stamp { version: "9.9.9", now: 0 })
    }

    #[test]
    fn banner_is_green_when_all_is_as_expected() {
        let mut mu = mutant("real", None, Kill::Killed);
        mu.killed_by = vec!["tlc:xsk-ring-no-c".into(), "loom:loom".into()];
        let doc = VerifyDoc { models: vec![model("m", "violation:NoOverwrite", true)], mutants: vec![mu], ok: true, ..Default::default() };
        let html = render(&doc);
        assert!(html.contains("class=\"banner ok\""), "{html}");
        assert!(html.contains("<a href=\"traces/m.html\">m</a>"));
        assert!(html.contains("generated by ringlab 9.9.9 on 1970-01-01 00:00 UTC"));
        assert!(html.contains("No differential campaign was run"));
        assert!(html.contains("No kernel run"));
    }

    #[test]
    fn diff_section_shows_figures_or_why_it_was_skipped() {
        let mut doc = VerifyDoc { ok: true, ..Default::default() };
        doc.differential = Some(serde_json::json!({"kernel": "6.18.1", "profile": "6.18", "seed": 1,
            "scenarios": 500, "operations": 8601, "divergences": 0, "replay_files": ["target/ringlab/diff/d.json"]}));
        let html = render(&doc);
        assert!(html.contains("<tr><th>operations</th><td>8601</td></tr>"), "{html}");
        assert!(html.contains("ringlab diff --replay target/ringlab/diff/d.json"));
        doc.differential = Some(serde_json::json!({"skipped": "not root", "kernel": "6.18.1"}));
        assert!(render(&doc).contains("SKIPPED: not root"));
    }

    #[test]
    fn banner_is_red_when_something_failed() {
        let doc = VerifyDoc { models: vec![model("m", "pass", false)], ok: false, ..Default::default() };
        let html = render(&doc);
        assert!(html.contains("class=\"banner bad\""));
        assert!(html.contains("model m: pass (expected violation:NoOverwrite)"));
        // a row that says ok while the record says failed is still red
        let doc = VerifyDoc { models: vec![model("m", "violation:NoOverwrite", false)], ok: false, ..Default::default() };
        assert!(render(&doc).contains("class=\"banner bad\""));
        // a surviving mutant
        let doc = VerifyDoc { mutants: vec![mutant("real", None, Kill::Survived)], ok: true, ..Default::default() };
        let html = render(&doc);
        assert!(html.contains("class=\"banner bad\""));
        assert!(html.contains("mutant xsk-rmb: not killed by loom:loom"));
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
        assert!(cell(&m, "tlc").contains("mark killed"));
        assert!(cell(&m, "loom").contains("mark survived") && cell(&m, "loom").contains("title=\"loom:loom: survived — all tests passed"));
        assert!(cell(&m, "proof").contains("–"));
    }
}
