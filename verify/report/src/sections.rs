//! The diff and kernel sections of index.html, from verify.json's typed
//! `DiffSection` and `KernelSection` (templates/diff.html, kernel.html).

use serde::Serialize;

use ringlab_kernel::diff_doc::DiffDoc;
use ringlab_kernel::kernel_test::doc::{CampaignRun, Guests, KernelDoc};
use ringlab_kernel::kernel_test::kmemleak::Kmemleak;
use ringlab_kernel::probe::Probe;
use ringlab_results::{DiffSection, KernelSection};

/// The live-kernel campaign: skipped, failed to run, or its figures (the
/// chain's among them: `campaign.chain`, with its example).
#[derive(Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum DiffView<'a> {
    Skipped { skipped: &'a str, kernel: &'a str },
    Failed { error: &'a str, kernel: &'a str, seed: u64 },
    Ran { campaign: &'a DiffDoc },
}

impl<'a> DiffView<'a> {
    pub fn of(d: &'a DiffSection) -> DiffView<'a> {
        match d {
            DiffSection::Skipped { skipped, kernel } => DiffView::Skipped { skipped, kernel },
            DiffSection::Failed { error, kernel, seed } => DiffView::Failed { error, kernel, seed: *seed },
            DiffSection::Ran { campaign } => DiffView::Ran { campaign },
        }
    }
}

/// `ringlab kernel-test` on the series: not asked for, failed to run, or
/// its document with the guests' runs as rows.
#[derive(Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum KernelView<'a> {
    Skipped {
        skipped: &'a str,
    },
    Failed {
        error: &'a str,
    },
    Ran {
        doc: &'a KernelDoc,
        /// verify's closing words for it.
        line: String,
        guests: Option<&'a Guests>,
        campaigns: Vec<CampaignRow<'a>>,
        faults: Vec<FaultRow<'a>>,
        kmemleak: Vec<KmemleakRow<'a>>,
        probes: Vec<ProbeRow<'a>>,
        /// `ringlab repro` on each kernel, in words.
        repro: Option<String>,
        /// The section as verify.json holds it.
        json: String,
    },
}

#[derive(Serialize)]
pub struct CampaignRow<'a> {
    kernel: &'static str,
    name: &'a str,
    scenarios: u64,
    divergences: u64,
    error: Option<&'a str>,
}

#[derive(Serialize)]
pub struct FaultRow<'a> {
    kernel: &'a str,
    name: &'a str,
    injected: u64,
    lost: u64,
    double: u64,
    leaks: u64,
    ok: bool,
    note: String,
}

/// One guest's kmemleak: objects left unreferenced after the campaigns,
/// the first one's backtrace, or why there was no scan.
#[derive(Serialize)]
pub struct KmemleakRow<'a> {
    kernel: &'static str,
    unreferenced: u64,
    ok: bool,
    note: String,
    backtrace: &'a [String],
}

#[derive(Serialize)]
pub struct ProbeRow<'a> {
    kernel: &'static str,
    probe: Option<&'a Probe>,
    error: &'a str,
}

impl<'a> KernelView<'a> {
    pub fn of(k: &'a KernelSection) -> KernelView<'a> {
        let d = match k {
            KernelSection::Skipped { skipped } => return KernelView::Skipped { skipped },
            KernelSection::Failed { error } => return KernelView::Failed { error },
            KernelSection::Ran(d) => d,
        };
        let guests = d.guests.as_ref();
        let campaign = |kernel, r: &'a CampaignRun| CampaignRow {
            kernel,
            name: &r.name,
            scenarios: r.scenarios(),
            divergences: r.divergences(),
            error: r.error.as_deref(),
        };
        let campaigns = guests
            .map(|g| std::iter::once(campaign("baseline", &g.diff.baseline)).chain(g.diff.patched.runs.iter().map(|r| campaign("patched", r))).collect())
            .unwrap_or_default();
        let faults = guests
            .map(|g| {
                g.faults
                    .runs
                    .iter()
                    .map(|f| FaultRow {
                        kernel: f.kernel_label.as_deref().unwrap_or("?"),
                        name: &f.name,
                        injected: f.injected(),
                        lost: f.lost(),
                        double: f.double(),
                        leaks: f.leaks(),
                        ok: f.error.is_none() && f.skipped.is_none() && f.injected() > 0 && f.problems().is_empty(),
                        note: match (&f.error, &f.skipped, &f.rx) {
                            (Some(e), _, _) => e.clone(),
                            (None, Some(why), _) => format!("skipped: {why}"),
                            (None, None, Some(rx)) => {
                                let l = &rx.ledger;
                                let mut n = format!(
                                    "{} frames sent: {} refused by sendto, {} dropped before the XDP program, {} dropped or passed by it, {} redirected ({} on the RX ring, {} rx_dropped, {} rx_ring_full); {} slab and {} page faults",
                                    l.sent,
                                    l.send_errors.values().sum::<u64>(),
                                    rx.dropped_before_program,
                                    l.not_redirected,
                                    l.redirected,
                                    l.on_rx_ring,
                                    l.rx_dropped,
                                    l.rx_ring_full,
                                    rx.injected_slab,
                                    rx.injected_page
                                );
                                for p in &rx.problems {
                                    n += &format!("; {p}");
                                }
                                n
                            }
                            _ => String::new(),
                        },
                    })
                    .collect()
            })
            .unwrap_or_default();
        let kmemleak = guests
            .map(|g| {
                [("baseline", &g.kmemleak.baseline), ("patched", &g.kmemleak.patched)]
                    .into_iter()
                    .map(|(kernel, k): (&'static str, &'a Kmemleak)| KmemleakRow {
                        kernel,
                        unreferenced: k.unreferenced,
                        ok: k.clean(),
                        note: match (&k.error, &k.skipped, &k.first) {
                            (Some(e), _, _) => e.clone(),
                            (None, Some(why), _) => format!("SKIPPED: {why}"),
                            (None, None, Some(l)) => format!("first: {} (size {}), {}", l.object, l.size, l.comm),
                            _ => format!("{} scans", k.scans),
                        },
                        backtrace: k.first.as_ref().map_or(&[][..], |l| &l.backtrace[..]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let probes = guests
            .map(|g| {
                [("baseline", &g.probe.baseline), ("patched", &g.probe.patched)]
                    .into_iter()
                    .map(|(kernel, p)| ProbeRow { kernel, probe: p.probe.as_ref(), error: p.error.as_deref().unwrap_or("no answer") })
                    .collect()
            })
            .unwrap_or_default();
        KernelView::Ran {
            doc: d,
            line: k.line(),
            guests,
            campaigns,
            faults,
            kmemleak,
            probes,
            repro: guests.and_then(|g| g.repro.as_ref()).map(|r| r.words()),
            json: serde_json::to_string_pretty(d).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index_page::tests::{doc, render};
    use ringlab_kernel::faults::rx::{FaultRxReport, Ledger};
    use ringlab_kernel::faults::FaultReport;
    use ringlab_kernel::kernel_test::doc::{DiffRuns, FaultRun, FaultRuns, KmemleakPair, MutantRun, PatchedRuns, ProbeRun, Xskxceiver, XskxceiverPair, W1};
    use ringlab_kernel::kernel_test::kmemleak::Leak;
    use ringlab_kernel::diff_doc::{ChainDoc, ChainExample, ExampleOp, ExampleStep};
    use ringlab_results::VerifyDoc;

    fn ran(chain: Option<ChainDoc>) -> DiffSection {
        let campaign = DiffDoc {
            kernel: "6.18.1".into(),
            profile: "6.18".into(),
            seed: 1,
            scenarios: 500,
            operations: 8601,
            replay_files: vec!["target/ringlab/diff/d.json".into()],
            chain,
            ..Default::default()
        };
        DiffSection::Ran { campaign }
    }

    #[test]
    fn diff_section_shows_figures_or_why_it_did_not_run() {
        let html = render(&VerifyDoc { diff: ran(None), ..doc() });
        assert!(html.contains("<tr><th>operations</th><td>8601</td></tr>"), "{html}");
        assert!(html.contains("<p>replay: <code>ringlab diff --replay target/ringlab/diff/d.json</code></p>"));
        assert!(!html.contains("id=\"chain\""));
        assert!(render(&doc()).contains("<p class=\"none\">SKIPPED: not root</p>"));
        let failed = DiffSection::Failed { error: "no AF_XDP".into(), kernel: "6.1".into(), seed: 1 };
        let html = render(&VerifyDoc { diff: failed, ok: false, ..doc() });
        assert!(html.contains("<p class=\"bad-text\">The campaign did not run: no AF_XDP</p>"));
        assert!(html.contains("<li>live-kernel diff failed to run (no AF_XDP)</li>"), "{html}");
    }

    #[test]
    fn the_chain_is_shown_when_present() {
        let step = |a: &str, c: &str| ExampleStep { action: a.into(), changed: vec![c.into()] };
        let example = ChainExample {
            seed: 0x2a,
            profile: "6.18".into(),
            accepted: true,
            ops: vec![ExampleOp {
                op: "Kick".into(),
                kernel: "Kicks([0])".into(),
                model: "Kicks([0])".into(),
                steps: vec![step("Sendto", "call = x"), step("XmitReserve", "resv = <<Placeholder>>")],
            }],
        };
        let chain = ChainDoc {
            spec: "XskCopyTx".into(),
            validated: 498,
            rejected: 2,
            rejections: vec!["scenario seed 0x1: no step".into()],
            example: Some(example),
            ..Default::default()
        };
        let html = render(&VerifyDoc { diff: ran(Some(chain)), ..doc() });
        assert!(html.contains("498 kernel traces validated against XskCopyTx, 2 rejected"), "{html}");
        assert!(html.contains("scenario seed 0x1: no step"));
        assert!(html.contains("<td><code>XmitReserve</code>"), "{html}");
        assert!(html.contains("resv = &lt;&lt;Placeholder&gt;&gt;"), "{html}");
        let failed = ChainDoc { spec: "XskCopyTx".into(), error: Some("no TLC".into()), ..Default::default() };
        let html = render(&VerifyDoc { diff: ran(Some(failed)), ..doc() });
        assert!(html.contains("not validated: no TLC"), "{html}");
    }

    #[test]
    fn the_receive_chain_is_shown_with_its_refusals() {
        let rx = ChainDoc {
            spec: "XskRx".into(),
            validated: 111,
            unprojected: 6,
            refused_by: [("fill-not-owned".to_string(), 6)].into(),
            ..Default::default()
        };
        let DiffSection::Ran { mut campaign } = ran(None) else { unreachable!() };
        campaign.rx_chain = Some(rx);
        let html = render(&VerifyDoc { diff: DiffSection::Ran { campaign }, ..doc() });
        assert!(html.contains("id=\"rx-chain\""), "{html}");
        assert!(html.contains("111 receive traces validated against XskRx, 0 rejected, 6 refused (fill-not-owned 6)"), "{html}");
        assert!(!html.contains("id=\"chain\""), "{html}");
    }

    fn kernel_doc() -> KernelDoc {
        let x = Xskxceiver { pass: Some(3), fail: Some(0), skip: Some(1), ..Default::default() };
        let fault = FaultRun {
            name: "faults-batch0-budget32".into(),
            kernel_label: Some("baseline".into()),
            report: Some(FaultReport { injected: 4, leaks: 1, ..Default::default() }),
            ..Default::default()
        };
        let ledger = Ledger { sent: 40, redirected: 30, not_redirected: 6, veth_rx_dropped: 4, on_rx_ring: 30, ..Default::default() };
        let rx = FaultRun {
            name: "faults-rx".into(),
            kernel_label: Some("patched".into()),
            rx: Some(FaultRxReport { injected: 9, injected_slab: 5, injected_page: 4, dropped_before_program: 4, ledger, ..Default::default() }),
            ..Default::default()
        };
        let leak = Kmemleak {
            scans: 2,
            unreferenced: 1,
            first: Some(Leak { object: "0xffff888004a1c000".into(), size: 232, comm: "\"ringlab\", pid 9".into(), backtrace: vec!["__alloc_skb+0x9c/0x1a0".into(), "veth_xdp_rcv+0x1f3/0x2d0".into()] }),
            ..Default::default()
        };
        let campaign = |name: &str| CampaignRun { name: name.into(), doc: Some(DiffDoc { scenarios: 5, ..Default::default() }), ..Default::default() };
        KernelDoc {
            series: "kernel/patches/series".into(),
            patches: 2,
            w1: W1 { applied: 2, ..Default::default() },
            vm: true,
            guests: Some(Guests {
                xskxceiver: XskxceiverPair { baseline: x.clone(), patched: x, ..Default::default() },
                diff: DiffRuns {
                    baseline: campaign("diff-mainline"),
                    patched: PatchedRuns { runs: vec![campaign("diff-batch16-budget64")], ..Default::default() },
                },
                faults: FaultRuns::of(vec![fault, rx]),
                kmemleak: KmemleakPair { baseline: Kmemleak { scans: 2, ..Default::default() }, patched: leak },
                mutants: vec![MutantRun { patch: "m.patch".into(), caught: true, caught_by: vec!["faults".into()], ..Default::default() }],
                probe: ringlab_kernel::kernel_test::doc::ProbePair { baseline: ProbeRun { error: Some("boot failed".into()), probe: None }, ..Default::default() },
                ..Default::default()
            }),
            problems: vec!["baseline faults-batch0-budget32: 0 lost, 0 completed twice, 1 CQ slots leaked".into()],
            ..Default::default()
        }
    }

    #[test]
    fn kernel_section_from_the_kernel_document() {
        let html = render(&VerifyDoc { kernel: vec![KernelSection::Ran(Box::new(kernel_doc()))], ok: false, ..doc() });
        assert!(html.contains("<tr><th>series</th><td><code>kernel/patches/series</code>, 2 patches</td></tr>"), "{html}");
        assert!(html.contains("<tr><td>baseline</td><td class=\"num\">3</td><td class=\"num\">0</td><td class=\"num\">1</td>"));
        assert!(html.contains("<td>patched</td><td><code>diff-batch16-budget64</code></td><td class=\"num\">5</td>"));
        assert!(html.contains("<tr class=\"fail\"><td>baseline</td><td><code>faults-batch0-budget32</code></td><td class=\"num\">4</td>"));
        assert!(html.contains("<td><code>m.patch</code></td><td><span class=\"pass\">caught</span></td><td>faults</td>"));
        assert!(html.contains("<tr class=\"fail\"><td>baseline</td><td colspan=\"5\">boot failed</td></tr>"));
        assert!(html.contains("<li class=\"fail\">baseline faults-batch0-budget32: 0 lost"));
        assert!(html.contains("<td>patched</td><td><code>faults-rx</code></td><td class=\"num\">9</td>"), "{html}");
        assert!(html.contains("40 frames sent: 0 refused by sendto, 4 dropped before the XDP program, 6 dropped or passed by it, 30 redirected (30 on the RX ring"), "{html}");
        assert!(html.contains("<tr><td>baseline</td><td class=\"num\">0</td><td>2 scans</td></tr>"), "{html}");
        assert!(html.contains("<tr class=\"fail\"><td>patched</td><td class=\"num\">1</td><td>first: 0xffff888004a1c000 (size 232)"), "{html}");
        assert!(html.contains("<pre>__alloc_skb+0x9c/0x1a0\nveth_xdp_rcv+0x1f3/0x2d0</pre>"), "{html}");
        assert!(html.contains("<details><summary>as recorded in verify.json</summary><pre>{"));
        let html = render(&VerifyDoc { kernel: vec![KernelSection::Failed { error: "no qemu".into() }], ok: false, ..doc() });
        assert!(html.contains("<p class=\"bad-text\">kernel-test did not run: no qemu</p>"));
    }
}
