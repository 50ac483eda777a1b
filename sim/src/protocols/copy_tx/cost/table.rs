//! The cost table: the same workload under 6.12.117's per-descriptor loop
//! (design a), design b's per-descriptor loop, and design b's batch of 1,
//! 16, 64 and 256, counted per packet (see [`super::Cost`]).
//!
//! Workload: one socket, 256 frames, a tx ring of 512 and a completion
//! ring of 1024 (reservations never fail), a budget of 512 so a batch is
//! never cut short. Each round the application submits every frame it
//! owns, one sendto sends them all, the driver frees every skb in an order
//! drawn from the seed, and the application takes every completion; no
//! allocation fails, every transmit succeeds. The tx consumer is published
//! as __xsk_generic_xmit() does (when a peek finds its cache empty).

use ringlab_model::copy_tx::{Design, TxResult};

use crate::copy_tx::config::{CopyTxConfig, Publish};
use crate::copy_tx::cost::Cost;
use crate::copy_tx::pick::socket_choices;
use crate::copy_tx::system::CopyTx;
use ringlab_model::rng::Rng;

/// One row: a design and batch size, its totals, and the packets.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CostRow {
    pub name: String,
    pub design: &'static str,
    pub batch: u32,
    pub packets: u64,
    pub total: Cost,
}

impl CostRow {
    pub fn per_packet(&self, count: u64) -> f64 {
        count as f64 / self.packets.max(1) as f64
    }
}

/// The rows, in order: the 6.12.117 baseline first.
const ROWS: [(&str, Design, u32); 6] = [
    ("6.12.117 (a)", Design::A, 0),
    ("b per-desc", Design::B, 0),
    ("b batch 1", Design::B, 1),
    ("b batch 16", Design::B, 16),
    ("b batch 64", Design::B, 64),
    ("b batch 256", Design::B, 256),
];

fn workload(design: Design, batch: u32, packets: u64, seed: u64) -> CostRow {
    let mut cfg = CopyTxConfig::new(design, batch as i64, 1, 256);
    cfg.spec.tx_size = 512;
    cfg.spec.cq_size = 1024;
    cfg.spec.budget = 512;
    cfg.spec.alloc_fails = false;
    cfg.spec.outcomes = vec![TxResult::Sent];
    cfg.publish = Publish::Kernel;
    cfg.seed = seed;
    let mut sys = CopyTx::new(cfg.clone()).expect("the workload's config is valid");
    let mut rng = Rng::new(seed);
    while sys.app.reaped < packets {
        let free: Vec<u32> = sys.app.free.iter().copied().collect();
        for f in free {
            sys.user_submit(0, f, true, false)
                .expect("the tx ring holds every frame");
        }
        let pool = sys.pool.clone();
        let k = &mut sys.socks[0];
        loop {
            let (a, _) = socket_choices(k, &cfg)[0];
            k.step(&pool, &a).expect("the workload's steps are enabled");
            if k.call.stage == ringlab_model::copy_tx::Stage::Idle {
                break;
            }
        }
        loop {
            let n = sys.pool.in_flight(|q| q.len());
            if n == 0 {
                break;
            }
            sys.driver.free_nth(&sys.pool, rng.below(n as u32) as usize);
        }
        while sys.user_reap().is_ok() {}
    }
    CostRow {
        name: String::new(),
        design: if design == Design::A { "a" } else { "b" },
        batch,
        packets: sys.app.reaped,
        total: sys.cost(),
    }
}

/// The table: each row's counts for at least `packets` packets, the
/// driver's order drawn from `seed`.
pub fn table(packets: u64, seed: u64) -> Vec<CostRow> {
    ROWS.iter()
        .map(|&(name, design, batch)| CostRow {
            name: name.into(),
            ..workload(design, batch, packets, seed)
        })
        .collect()
}

/// The table as text: per packet, and each count's ratio to the first row.
pub fn render(rows: &[CostRow]) -> String {
    type Col = (&'static str, fn(&Cost) -> u64);
    let cols: [Col; 6] = [
        ("cq_lock", |c| c.cq_lock),
        ("atomic RMW", |c| c.rmw),
        ("skb allocs", |c| c.allocs),
        ("lines written", |c| c.lines),
        ("index ld/st", |c| c.idx_loads + c.idx_stores),
        ("doorbells", |c| c.doorbells),
    ];
    let mut out = format!("{:<14}{:>9}", "per packet", "packets");
    for (name, _) in &cols {
        out += &format!("{name:>19}");
    }
    out.push('\n');
    let base = rows.first();
    for r in rows {
        out += &format!("{:<14}{:>9}", r.name, r.packets);
        for (_, get) in &cols {
            let v = r.per_packet(get(&r.total));
            let b = base.map_or(v, |b| b.per_packet(get(&b.total)));
            let ratio = if b > 0.0 { v / b } else { 1.0 };
            out += &format!("{:>19}", format!("{v:.3} ({ratio:.2}x)"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batching_takes_fewer_locks_allocations_and_lines_per_packet() {
        let rows = table(1024, 7);
        let per = |r: &CostRow, f: fn(&Cost) -> u64| r.per_packet(f(&r.total));
        let (base, b256) = (&rows[0], &rows[5]);
        assert!(rows
            .iter()
            .all(|r| r.packets >= 1024 && r.total.descs == r.packets));
        // Per descriptor: a reservation and a destructor each take the lock.
        assert_eq!(per(base, |c| c.cq_lock), 2.0);
        assert_eq!(per(base, |c| c.allocs), 1.0);
        // A batch of 256 reserves once per 256; the destructors remain.
        assert!(per(b256, |c| c.cq_lock) < 1.01);
        assert!(per(b256, |c| c.allocs) < 0.01);
        assert!(per(b256, |c| c.lines) < per(base, |c| c.lines));
        for w in rows[2..].windows(2) {
            assert!(
                per(&w[1], |c| c.rmw) <= per(&w[0], |c| c.rmw),
                "{}",
                render(&rows)
            );
        }
        let text = render(&rows);
        assert!(text.starts_with("per packet"), "{text}");
        assert_eq!(text.lines().count(), 7);
    }
}
