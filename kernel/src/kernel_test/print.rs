//! The kernel-test table on stdout.

use super::doc::{opt, CampaignRun, FaultRun, KernelDoc};
use super::kmemleak::Kmemleak;

fn campaign_line(c: &CampaignRun) -> String {
    match (&c.error, &c.doc) {
        (Some(e), _) => format!("error: {e}"),
        (None, Some(d)) => format!("{} scenarios, {} operations, {} divergences{}", d.scenarios, d.operations, d.divergences, d.paths_words()),
        (None, None) => "no result".into(),
    }
}

fn kmemleak_line(k: &Kmemleak) -> String {
    match (&k.error, &k.skipped, &k.first) {
        (Some(e), _, _) => format!("error: {e}"),
        (_, Some(w), _) => format!("SKIPPED: {w}"),
        (_, _, Some(l)) => format!("{} unreferenced objects after {} scans; first {} from {}", k.unreferenced, k.scans, l.object, l.backtrace.first().map_or("?", String::as_str)),
        _ => format!("{} unreferenced objects after {} scans", k.unreferenced, k.scans),
    }
}

fn fault_line(f: &FaultRun) -> String {
    match (&f.error, &f.skipped, &f.report) {
        (Some(e), _, _) => format!("error: {e}"),
        (_, Some(w), _) => format!("SKIPPED: {w}"),
        (_, _, Some(r)) => format!("{} rounds, {} faults injected, {} lost, {} double, {} leaked", r.rounds, r.injected, r.lost, r.double, r.leaks),
        _ => match &f.rx {
            Some(r) => {
                let l = &r.ledger;
                let paths = match r.redirect {
                    crate::bpf::Redirect::Xsk => {
                        format!("; bpf_redirect_xsk: XDP_REDIRECT_XSK {}, XDP_REDIRECT {}", r.fast_path, r.fallback)
                    }
                    crate::bpf::Redirect::Map => String::new(),
                };
                format!(
                    "{} rounds, {} faults injected ({} slab, {} page); {} frames sent: {} refused by sendto, {} dropped before the XDP program, {} dropped or passed by it, {} redirected: {} on the RX ring, {} rx_dropped, {} rx_ring_full; {} lost, {} double; {} buffers given, {} lost",
                    r.rounds,
                    r.injected,
                    r.injected_slab,
                    r.injected_page,
                    l.sent,
                    l.send_errors.values().sum::<u64>(),
                    r.dropped_before_program,
                    l.not_redirected,
                    l.redirected,
                    l.on_rx_ring,
                    l.rx_dropped,
                    l.rx_ring_full,
                    r.lost,
                    r.double,
                    l.buffers_given,
                    r.leaks
                ) + &paths
            }
            None => "no result".into(),
        },
    }
}

/// The devmem receiver on each kernel, a line per token mode.
fn devmem_lines(dm: &super::doc::DevmemPair) {
    for (k, r) in [("baseline", &dm.baseline), ("patched", &dm.patched)] {
        let Some(d) = &r.doc else {
            println!("  devmem {k}: {}", r.error.as_deref().unwrap_or("no result"));
            continue;
        };
        for m in &d.runs {
            match &m.skipped {
                Some(why) => println!("  devmem {k:<8} {:<6} SKIP: {why}", m.mode),
                None => {
                    let faults = if m.fault_pct > 0 { format!(", {} allocation faults fired", m.faults) } else { String::new() };
                    let zero = m.zero_token.map(|t| format!("; token after DONTNEED of id 0: {t}")).unwrap_or_default();
                    let tlc = m.trace.as_ref().and_then(|t| t.chain.as_ref()).map(|v| format!("; TLC on round 0: {}", v.words)).unwrap_or_default();
                    println!(
                        "  devmem {k:<8} {:<6} {} rounds, {} frags, {} DONTNEED freeing {}, {}/{} bindings freed, {} divergences{faults}{zero}{tlc}",
                        m.mode,
                        m.rounds,
                        m.frags,
                        m.dontneeds,
                        m.freed,
                        m.released,
                        m.rounds,
                        m.divergences.len()
                    )
                }
            }
        }
        if let Some(rule) = &d.mode_rule {
            println!(
                "  devmem {k:<8} mode rule: other mode while bound {}, same mode {}, other mode after unbind {}",
                rule.other_mode_while_bound, rule.same_mode_while_bound, rule.other_mode_after_unbind
            );
        }
    }
}

/// The tun workload, the two kernels beside each other per batch size:
/// frames conserved, and skbuff_head_cache's slab events per frame.
fn tun_lines(t: &super::doc::TunPair) {
    for (k, r) in [("baseline", &t.baseline), ("patched", &t.patched)] {
        if let Some(e) = &r.error {
            println!("  tun-vhost {k}: {e}");
        }
    }
    let (Some(b), Some(p)) = (&t.baseline.doc, &t.patched.doc) else { return };
    println!("  tun-vhost (vhost-net TX, XDP_PASS on the tap): frames received+dropped/lost/faults fired; skbuff_head_cache");
    println!("  objects allocated+freed per frame (SLUB_STATS); slab calls per frame, estimated as faults fired / failslab's rate");
    println!("  {:>5} {:>9}  {:>20} {:>20}  {:>11} {:>11}  {:>8} {:>8}", "batch", "failslab", "baseline", "patched", "baseline", "patched", "baseline", "patched");
    for (x, y) in b.runs.iter().zip(&p.runs) {
        let cons = |r: &crate::tun_vhost::BatchRun| format!("{}+{}/{}/{}", r.received, r.dropped, r.lost, r.faults);
        let per = |r: &crate::tun_vhost::BatchRun| r.slab.filter(|_| r.frames > 0).map_or("?".into(), |s| format!("{:.2}+{:.2}", s.allocs() as f64 / r.frames as f64, s.frees() as f64 / r.frames as f64));
        let calls = |r: &crate::tun_vhost::BatchRun| {
            if r.failslab == 0 || r.frames == 0 {
                "-".into()
            } else {
                format!("{:.3}", r.faults as f64 * 100.0 / f64::from(r.failslab) / r.frames as f64)
            }
        };
        println!("  {:>5} {:>8}%  {:>20} {:>20}  {:>11} {:>11}  {:>8} {:>8}", x.batch, x.failslab, cons(x), cons(y), per(x), per(y), calls(x), calls(y));
    }
    // 6.12.117's tun_xdp_one() counts a frame it cannot build an skb for nowhere
    let uncounted: u64 = b.runs.iter().map(|r| r.lost).sum();
    let faults: u64 = b.runs.iter().map(|r| r.faults).sum();
    println!("  baseline: {uncounted} frames dropped uncounted by 6.12's tun_xdp_one() ({faults} faults fired); patched: every frame received or counted dropped required");
}

pub fn print(d: &KernelDoc) {
    println!("series {} ({} patches, linux 6.12.117)", d.series, d.patches);
    println!("  checkpatch --strict   {} errors, {} warnings, {} checks", d.checkpatch_errors, d.checkpatch_warnings, d.checkpatch_checks);
    match &d.w1.error {
        Some(e) => println!("  git am + W=1          did not run: {e}"),
        None => println!(
            "  git am + W=1          {}/{} applied, {} new warnings ({})",
            d.w1.applied,
            d.patches,
            d.w1.new_warnings,
            d.w1.targets.join(" ")
        ),
    }
    match d.guests.as_ref().filter(|_| d.vm) {
        None => println!("  VM                    not run (--no-vm): no kernel built or booted"),
        Some(g) => {
            let t = &g.times;
            // a tun series' guests run no xskxceiver
            let xsk_shown = g.af_xdp();
            for (k, x, build, boot) in [
                ("baseline", &g.xskxceiver.baseline, t.build_baseline_s, t.boot_baseline_s),
                ("patched", &g.xskxceiver.patched, t.build_patched_s, t.boot_patched_s),
            ] {
                let xs = match &x.error {
                    Some(e) => format!("error: {e}"),
                    None => format!("{} pass, {} fail, {} skip", opt(x.pass), opt(x.fail), opt(x.skip)),
                };
                let xs = if xsk_shown { format!("  xskxceiver {xs}") } else { String::new() };
                println!("  {k:<9} build {build:>6}s  boot+tests {boot:>6}s{xs}");
            }
            if let Some(t) = &g.tun {
                tun_lines(t);
            } else if let Some(dm) = &g.devmem {
                devmem_lines(dm);
            } else {
                println!("  diff baseline  profile 6.12            {}", campaign_line(&g.diff.baseline));
            }
            for r in &g.diff.patched.runs {
                println!("  diff patched   {:<24} {}", r.name, campaign_line(r));
            }
            for f in &g.faults.runs {
                println!("  faults {:<8} {:<24} {}", f.kernel_label.as_deref().unwrap_or("?"), f.name, fault_line(f));
            }
            for (k, m) in [("baseline", &g.kmemleak.baseline), ("patched", &g.kmemleak.patched)] {
                println!("  kmemleak {k:<8} {}", kmemleak_line(m));
                for l in m.first.iter().flat_map(|f| f.backtrace.iter()).skip(1).take(8) {
                    println!("      {l}");
                }
            }
            if let Some(r) = &g.repro {
                println!("  repro rx-ring-missing: {}", r.words());
            }
            for m in &g.mutants {
                let how = if m.caught { format!("caught by {}", m.caught_by.join(", ")) } else { "NOT caught".into() };
                println!("  mutant {}: {how}", m.patch);
                if let Some(c) = &m.crash {
                    println!("    {}", c.summary());
                    for l in c.lines.iter().skip(1).take(5) {
                        println!("      {l}");
                    }
                }
                if let Some(mm) = m.divergence.as_ref().and_then(|r| r.mismatch.as_ref()) {
                    println!("    first divergence at operation {}: model {:?}, kernel {:?}", mm.at, mm.model, mm.kernel);
                }
            }
        }
    }
    if d.problems.is_empty() {
        println!("kernel-test: PASS");
    } else {
        for p in &d.problems {
            println!("  problem: {p}");
        }
        println!("kernel-test: FAIL ({} problems)", d.problems.len());
    }
}
