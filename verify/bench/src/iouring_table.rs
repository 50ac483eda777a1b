//! The io_uring bench's two tables from its samples: K requests/s per mode
//! and payload beside the seed's, each payload's column normalised to its
//! msg_zerocopy (zc) row as the seed's was; and the seed's orderings, each
//! said to hold on this machine or not.

use super::iouring_modes::{Mode, BASE, MODES};
use super::iouring_seed;
use super::table::{col, median, paired_ratio, ratio, ChartSpec, Fmt, Table, Val};

pub const PAYLOADS: [usize; 3] = [4096, 1024, 128];

/// Every run's figures: `rate[p][m]` holds one requests/s per round for
/// payload PAYLOADS[p] and mode MODES[m]; the zero-copy counts are summed
/// over all of a mode's runs.
pub struct Samples {
    pub rate: Vec<Vec<Vec<f64>>>,
    pub zc_done: Vec<u64>,
    pub zc_copied: Vec<u64>,
    pub requests: Vec<u64>,
    pub calls: Vec<u64>,
}

impl Samples {
    pub fn empty() -> Samples {
        let m = MODES.len();
        Samples {
            rate: vec![vec![Vec::new(); m]; PAYLOADS.len()],
            zc_done: vec![0; m],
            zc_copied: vec![0; m],
            requests: vec![0; m],
            calls: vec![0; m],
        }
    }

    fn k(&self, p: usize, m: usize) -> Option<f64> {
        median(&self.rate[p][m]).map(|x| x / 1e3)
    }

    /// (max - min) / median of the rounds, as a fraction.
    fn spread(&self, p: usize, m: usize) -> Option<f64> {
        let xs = &self.rate[p][m];
        let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(*x), h.max(*x)));
        ratio(Some(hi - lo), median(xs)).or((hi == lo).then_some(0.0))
    }

    /// Mode `a` over mode `b` at payload `p`: the median of the rounds' ratios.
    fn over(&self, p: usize, a: usize, b: usize) -> Option<f64> {
        paired_ratio(&self.rate[p][a], &self.rate[p][b])
    }
}

fn index(m: Mode) -> usize {
    MODES.iter().position(|x| *x == m).expect("every mode is in MODES")
}

const TITLE: &str = "io_uring zero-copy send (UDP/IPv4 over veth to a dropping peer, K requests/s)";

/// The main table; `context` are notes on how it was measured.
pub fn rates(s: &Samples, busy: Option<&str>, context: Vec<String>) -> Table {
    let title = match busy {
        Some(_) => format!("{TITLE} [BUSY machine]"),
        None => TITLE.to_string(),
    };
    let mut t = Table::new(
        "iouring",
        title,
        vec![
            col("mode", "mode", Fmt::Text),
            col("k4096", "4096 K/s", Fmt::Count),
            col("spread4096", "±%", Fmt::Secs),
            col("zc4096", "/zc", Fmt::Ratio),
            col("k1024", "1024 K/s", Fmt::Count),
            col("spread1024", "±%", Fmt::Secs),
            col("zc1024", "/zc", Fmt::Ratio),
            col("k128", "128 K/s", Fmt::Count),
            col("spread128", "±%", Fmt::Secs),
            col("zc128", "/zc", Fmt::Ratio),
            col("seed_k4096", "seed 4096", Fmt::Count),
            col("seed_zc4096", "/zc", Fmt::Ratio),
            col("seed_nic_zc1024", "NIC 1024/zc", Fmt::Ratio),
            col("seed_nic_zc128", "NIC 128/zc", Fmt::Ratio),
        ],
    );
    let base = index(BASE);
    let seed_base = iouring_seed::dummy_4096(&BASE.name());
    for (m, mode) in MODES.iter().enumerate() {
        let name = mode.name();
        let mut row: Vec<Val> = vec![name.clone().into()];
        for p in 0..PAYLOADS.len() {
            row.push(s.k(p, m).into());
            row.push(s.spread(p, m).map(|x| x * 100.0).into());
            row.push(s.over(p, m, base).into());
        }
        let seed = iouring_seed::dummy_4096(&name);
        row.push(seed.into());
        row.push(ratio(seed, seed_base).into());
        for p in [1024, 128] {
            row.push(ratio(iouring_seed::nic(&name, p), iouring_seed::nic(&BASE.name(), p)).into());
        }
        t.push(row);
    }
    if let Some(why) = busy {
        t.note(format!("BUSY: {why}: figures are lower and noisier than this machine gives idle"));
    }
    for m in MODES {
        t.note(format!("{}: {}", m.name(), m.what()));
    }
    t.note("-f: the seed's flag flushed a notification slot per request; today every IORING_OP_SEND_ZC request posts its own notification, so -f here means the submitter waits for a batch's notifications before submitting the next, against 64 buffers kept in flight without it");
    t.note("K/s: thousand datagrams sent per second, the median of the rounds; ±%: (max - min) / median of the rounds; /zc: the median of each round's ratio to msg_zerocopy (zc) at that payload, as the seed normalised");
    t.note("seed 4096: the seed's dummy-netdev table (UDP/IPv4, 4096 bytes); NIC 1024/zc, NIC 128/zc: its NIC-pair table (UDP/IPv6), normalised the same way");
    for (m, mode) in MODES.iter().enumerate().filter(|(_, m)| m.zc()) {
        if let Some(r) = ratio(Some(s.zc_copied[m] as f64), Some(s.zc_done[m] as f64)).or((s.zc_done[m] > 0).then_some(0.0)) {
            t.note(format!(
                "{}: {:.0}% of {} zero-copy completions reported the data copied after all",
                mode.name(),
                r * 100.0,
                s.zc_done[m]
            ));
        }
    }
    for n in context {
        t.note(n);
    }
    t.chart = Some(ChartSpec {
        label: "mode",
        series: vec!["k4096", "k1024", "k128"],
        unit: "thousand UDP datagrams sent per second, by payload (longer is faster)".into(),
        skip_prefix: None,
    });
    t
}

/// The seed's orderings: (what it says, the faster mode, the slower one).
fn orderings() -> Vec<(&'static str, Mode, Mode)> {
    use super::iouring_ring::RingMode;
    let r = |zc, n, flush| Mode::Ring(RingMode { zc, n, flush });
    vec![
        ("n8 > n1", r(false, 8, false), r(false, 1, false)),
        ("n8 > n1", r(true, 8, true), r(true, 1, true)),
        ("n8 > n1", r(true, 8, false), r(true, 1, false)),
        ("no-flush > flush", r(true, 1, false), r(true, 1, true)),
        ("no-flush > flush", r(true, 8, false), r(true, 8, true)),
        ("zc > -z0", r(true, 1, false), r(false, 1, false)),
        ("zc > -z0", r(true, 8, false), r(false, 8, false)),
        ("io_uring > msg_zerocopy", r(false, 1, false), Mode::Send),
        ("io_uring > msg_zerocopy", r(true, 1, false), Mode::MsgZerocopy),
    ]
}

/// Whether the seed's order holds at payload `p`.
fn verdict(s: &Samples, p: usize, a: usize, b: usize) -> Option<String> {
    let r = s.over(p, a, b)?;
    let noise = s.spread(p, a).unwrap_or(0.0).max(s.spread(p, b).unwrap_or(0.0));
    let word = if r > 1.0 { "same" } else { "reversed" };
    let within = if (r - 1.0).abs() <= noise { " (within spread)" } else { "" };
    Some(format!("{} {word}{within}", PAYLOADS[p]))
}

pub fn orders(s: &Samples) -> Table {
    let mut t = Table::new(
        "iouring_order",
        "io_uring zero-copy send: the seed's orderings here (ratio faster/slower, > 1 keeps the seed's order)",
        vec![
            col("ordering", "ordering", Fmt::Text),
            col("pair", "pair", Fmt::Text),
            col("seed", "seed 4096", Fmt::Ratio),
            col("r4096", "4096", Fmt::Ratio),
            col("r1024", "1024", Fmt::Ratio),
            col("r128", "128", Fmt::Ratio),
            col("here", "on this machine", Fmt::Text),
        ],
    );
    for (what, fast, slow) in orderings() {
        let (a, b) = (index(fast), index(slow));
        let seed = ratio(iouring_seed::dummy_4096(&fast.name()), iouring_seed::dummy_4096(&slow.name()));
        let mut row: Vec<Val> = vec![what.into(), format!("{} / {}", fast.name(), slow.name()).into(), seed.into()];
        for p in 0..PAYLOADS.len() {
            row.push(s.over(p, a, b).into());
        }
        let said: Vec<String> = (0..PAYLOADS.len()).filter_map(|p| verdict(s, p, a, b)).collect();
        row.push(if said.is_empty() { "-".into() } else { said.join(", ").into() });
        t.push(row);
    }
    t.note("same: the first mode of the pair was faster here too; reversed: slower; (within spread): by less than the rounds' spread of either mode, so the order is not settled by this run");
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up rates: mode m sends (m + 1) * 100 K/s in every round, the
    /// second round 10% faster throughout.
    fn samples() -> Samples {
        let mut s = Samples::empty();
        for p in 0..PAYLOADS.len() {
            for m in 0..MODES.len() {
                let k = (m + 1) as f64 * 1e5;
                s.rate[p][m] = vec![k, k * 1.1];
            }
        }
        s
    }

    #[test]
    fn rates_are_normalised_to_msg_zerocopy_zc() {
        let t = rates(&samples(), None, vec![]);
        assert_eq!(t.rows.len(), MODES.len());
        let zc = t.index("zc4096").unwrap();
        let k = t.index("k4096").unwrap();
        assert_eq!(t.rows[1][zc], Val::Num(1.0), "msg_zerocopy (zc) is the base");
        assert_eq!(t.rows[0][zc], Val::Num(0.5));
        assert_eq!(t.rows[0][k], Val::Num(105.0), "median of 100 and 110 K/s");
        let seed = t.index("seed_zc4096").unwrap();
        assert_eq!(t.rows[7][seed], Val::Num(2265.0 / 997.0));
        assert!(!t.title.contains("BUSY"));
        let busy = rates(&samples(), Some("load average 3.00 on 2 cores before the run"), vec![]);
        assert!(busy.title.ends_with("[BUSY machine]"));
        assert!(busy.notes[0].starts_with("BUSY: load average 3.00"));
    }

    #[test]
    fn orders_say_same_or_reversed_per_payload() {
        let t = orders(&samples());
        let here = t.index("here").unwrap();
        // n8 -z0 (mode 3) over n1 -z0 (mode 2): 4/3, the seed's order.
        assert_eq!(t.rows[0][here], Val::Text("4096 same, 1024 same, 128 same".into()));
        // n1 (mode 5) over n1 -f (mode 4): 6/5, beyond the rounds' 9.5% spread.
        assert_eq!(t.rows[3][here], Val::Text("4096 same, 1024 same, 128 same".into()));
        let mut s = samples();
        for p in 0..PAYLOADS.len() {
            s.rate[p][0] = vec![1e6, 1e6]; // send beats io_uring -n1 -z0 everywhere
        }
        let t = orders(&s);
        let row = t.rows.iter().find(|r| r[1] == Val::Text("io_uring -n1 -z0 / msg_zerocopy (non-zc)".into())).unwrap();
        assert_eq!(row[here], Val::Text("4096 reversed, 1024 reversed, 128 reversed".into()));
        let seed = t.index("seed").unwrap();
        assert_eq!(row[seed], Val::Num(1469.0 / 1120.0));
    }
}
