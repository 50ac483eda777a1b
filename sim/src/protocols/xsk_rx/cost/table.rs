//! The cost table: one workload through 6.12.117's XSKMAP path (native
//! and generic XDP) and seed 002's XDP_REDIRECT_XSK fast path, one packet
//! at a time and in the driver's batches of 16 (XSK_RCV_BATCH), per
//! received packet (see [`super::Cost`]).
//!
//! Workload: one socket bound to the queue and in the XSKMAP, its
//! program redirecting every packet to its index; NAPI polls of 64
//! packets (the kernel's NAPI_POLL_WEIGHT) on one CPU; the application
//! refilling the fill ring and reading the rx ring between polls.

use ringlab_model::xsk_rx::{Config, Redirect, RxPath, Stage, Verdict};

use crate::xsk_rx::config::XskRxConfig;
use crate::xsk_rx::cost::Cost;
use crate::xsk_rx::system::XskRx;

/// What seed 002 measured (xdpsock rxonly, i40e), printed beside the
/// counts.
pub const SEED_FIGURE: &str = "seed 002 (xdpsock -r, i40e, 2.4GHz): ~13% throughput, ~13 cycles/packet fewer (scalar); ~27%, ~24 cycles with the batched driver";

/// Packets a poll handles: NAPI_POLL_WEIGHT.
pub const BUDGET: u32 = 64;
const BUFS: u8 = 64;

/// The packets a poll of the table's workload handles.
pub fn table_budget() -> u32 {
    BUDGET
}

/// One row: a path, its totals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CostRow {
    pub name: &'static str,
    pub path: &'static str,
    pub redirect: &'static str,
    /// Packets the driver keeps for one xsk_rcv_batch() (1: none kept).
    pub batch: u8,
    pub total: Cost,
}

impl CostRow {
    pub fn per_packet(&self, count: u64) -> f64 {
        count as f64 / self.total.packets().max(1) as f64
    }
}

/// The batch the kernel series' drivers keep: XSK_RCV_BATCH.
pub const BATCH: u8 = 16;

const ROWS: [(&str, RxPath, Redirect, u8); 4] = [
    ("6.12.117 XSKMAP, driver", RxPath::Driver, Redirect::Map, 1),
    ("6.12.117 XSKMAP, generic", RxPath::Generic, Redirect::Map, 1),
    ("seed 002 XDP_REDIRECT_XSK", RxPath::Driver, Redirect::Xsk, 1),
    ("XDP_REDIRECT_XSK, batch 16", RxPath::Driver, Redirect::Xsk, BATCH),
];

fn config(path: RxPath, redirect: Redirect, batch: u8, packets: u8) -> Config {
    Config {
        cpus: vec!["c1".into()],
        n_sockets: 1,
        n_bufs: BUFS,
        max_pkts: packets,
        max_len: 1,
        sg: false,
        fq_size: 64,
        rx_size: 64,
        poll_budget: BUDGET,
        path,
        verdicts: vec![Verdict::Redirect],
        closes: false,
        late_bind: vec![],
        remap: false,
        tx_only: vec![],
        redirect,
        batch,
        mutant: super::super::mutant(),
    }
}

/// `packets` packets (at most 200) through one path; with `batch` > 1
/// the driver keeps the fast path's packets and receives each batch when
/// it is full and at the poll's end.
pub fn workload(path: RxPath, redirect: Redirect, batch: u8, packets: u8) -> Result<Cost, String> {
    let mut sys = XskRx::new(XskRxConfig::from_spec(config(path, redirect, batch, packets)))?;
    let e = |d: crate::Disabled| d.to_string();
    let refill = |sys: &mut XskRx| -> Result<(), String> {
        for s in sys.cfg.spec.sockets() {
            while sys.user_recv(s).is_ok() {}
        }
        for b in sys.app.held() {
            if sys.user_fill(b).is_err() {
                break;
            }
        }
        Ok(())
    };
    refill(&mut sys)?;
    while !sys.is_done() {
        let driver = path == RxPath::Driver;
        if driver {
            sys.napi_poll(0).map_err(e)?;
        }
        for _ in 0..BUDGET {
            if sys.rxq.arrived() == u32::from(packets) {
                break;
            }
            if sys.xdp_run(0, Verdict::Redirect, 1, 1).is_err() {
                // the batch is full: received first
                receive_batch(&mut sys, driver)?;
                sys.xdp_run(0, Verdict::Redirect, 1, 1).map_err(e)?;
            }
            if sys.recv[0].stage != Stage::Idle {
                receive(&mut sys, driver)?;
            }
        }
        if driver {
            receive_batch(&mut sys, driver)?;
            sys.xdp_do_flush(0).map_err(e)?;
        }
        refill(&mut sys)?;
    }
    Ok(sys.cost)
}

/// The receive CPU 0 is in, to its end: a buffer, the copy and the
/// descriptor (generic XDP: under the lock, then flushed).
fn receive(sys: &mut XskRx, driver: bool) -> Result<(), String> {
    let e = |d: crate::Disabled| d.to_string();
    if !driver {
        sys.rx_lock(0).map_err(e)?;
    }
    sys.xp_alloc_free(0)
        .or_else(|_| sys.xp_alloc_peek(0).and_then(|()| sys.xp_alloc_take(0)))
        .map_err(e)?;
    sys.xsk_rcv_reserve(0).map_err(e)?;
    if !driver {
        sys.xsk_flush(0).map_err(e)?;
    }
    Ok(())
}

/// xsk_rcv_batch(): every packet CPU 0 keeps, in order.
fn receive_batch(sys: &mut XskRx, driver: bool) -> Result<(), String> {
    while !sys.pend[0].is_empty() {
        sys.xsk_rcv_batch(0).map_err(|d| d.to_string())?;
        receive(sys, driver)?;
    }
    Ok(())
}

/// The table: each row's counts for `packets` packets.
pub fn table(packets: u8) -> Result<Vec<CostRow>, String> {
    ROWS.iter()
        .map(|&(name, path, redirect, batch)| {
            Ok(CostRow {
                name,
                path: path.id(),
                redirect: redirect.id(),
                batch,
                total: workload(path, redirect, batch, packets)?,
            })
        })
        .collect()
}

/// The table as text, per packet.
pub fn render(rows: &[CostRow]) -> String {
    type Col = (&'static str, fn(&Cost) -> u64);
    let cols: [Col; 5] = [
        ("map lookups", |c| c.map_lookups),
        ("ri writes", |c| c.ri_writes),
        ("ctx writes", |c| c.ctx_writes),
        ("flush adds", |c| c.flush_adds),
        ("flush walk", |c| c.flush_walk),
    ];
    let mut out = format!("{:<28}{:>8}", "per packet", "packets");
    for (name, _) in &cols {
        out += &format!("{name:>14}");
    }
    out.push('\n');
    for r in rows {
        out += &format!("{:<28}{:>8}", r.name, r.total.packets());
        for (_, get) in &cols {
            out += &format!("{:>14.3}", r.per_packet(get(&r.total)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures of 6.12.117's source and seed 002's description, per
    /// packet: the XSKMAP path looks the index up once and writes
    /// bpf_redirect_info 8 times (6 in the helper, 2 in
    /// xdp_do_redirect(); 9 generic), plus kern_flags once a poll; it
    /// adds the socket to the flush list once a poll and walks it once.
    /// The fast path looks entry k up once to compare it with the queue's
    /// socket and touches neither bpf_redirect_info nor the flush list.
    #[test]
    fn each_path_costs_what_its_source_says() {
        let rows = table(192).unwrap();
        eprintln!("{}\n{SEED_FIGURE}", render(&rows));
        let [driver, generic, fast, batched] =
            [&rows[0].total, &rows[1].total, &rows[2].total, &rows[3].total];
        let polls = 192 / u64::from(BUDGET);
        assert_eq!((driver.slow, driver.fast, driver.polls), (192, 0, polls));
        assert_eq!(driver.map_lookups, 192);
        assert_eq!(driver.ri_writes, 192 * 8 + polls);
        assert_eq!((driver.flush_adds, driver.flush_walk), (polls, polls));
        assert_eq!((generic.slow, generic.map_lookups), (192, 192));
        assert_eq!(generic.ri_writes, 192 * 9);
        assert_eq!((generic.flush_adds, generic.flush_walk), (0, 0));
        assert_eq!((fast.fast, fast.slow, fast.polls), (192, 0, polls));
        assert_eq!(fast.map_lookups, 192);
        assert_eq!(
            (fast.ri_writes, fast.flush_adds, fast.flush_walk),
            (0, 0, 0)
        );
        assert_eq!((driver.ctx_writes, generic.ctx_writes), (0, 0));
        // the helper keeps the socket, the driver takes it; the socket to
        // flush is kept once a poll
        assert_eq!(fast.ctx_writes, 192 * 2 + polls);
        // The batch receives the same packets through the same steps,
        // later: in copy mode it saves none of these operations.
        assert_eq!(*batched, *fast);
    }
}
