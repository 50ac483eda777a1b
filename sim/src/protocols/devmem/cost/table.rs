//! The cost table: the same workload in 6.12.117's xarray mode and seed
//! 004's array mode, per token (see [`super::Cost`]), with the
//! application returning its tokens one per SO_DEVMEM_DONTNEED call (as
//! ncdevmem does), 16, or all it holds (64) in one call.
//!
//! Workload: one binding of 255 net_iovs (the model's most), 4 sockets
//! (seed 004 measured 4 flows), frags read whole. Each round the NIC
//! queues every free net_iov, the sockets in turn (64, 64, 64 and 63
//! frags), the application reads every socket dry, then returns every
//! token through the socket it came from, one dmabuf_token {token, 1}
//! each.

use ringlab_model::devmem::{Mode, Niov, Sock};

use crate::devmem::config::DevmemConfig;
use crate::devmem::cost::Cost;
use crate::devmem::dontneed::DmabufToken;
use crate::devmem::system::Devmem;

/// What seed 004 measured (kperf), printed beside the counts.
pub const SEED_FIGURE: &str = "seed 004 (kperf, 4 flows, 11 runs): ~13% cpu util per RX user thread; RX worker idle 13.13% -> 26.32%";

const SOCKETS: u8 = 4;
const NIOVS: u8 = 255;

/// One row: a mode and how many tokens a call returns, the totals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CostRow {
    pub name: String,
    pub mode: &'static str,
    pub batch: usize,
    pub total: Cost,
}

impl CostRow {
    pub fn per_token(&self, count: u64) -> f64 {
        count as f64 / self.total.tokens.max(1) as f64
    }
}

const ROWS: [(&str, Mode, usize); 6] = [
    ("6.12.117 xarray, 1/call", Mode::Xarray, 1),
    ("seed 004 array, 1/call", Mode::Array, 1),
    ("6.12.117 xarray, 16/call", Mode::Xarray, 16),
    ("seed 004 array, 16/call", Mode::Array, 16),
    ("6.12.117 xarray, 64/call", Mode::Xarray, 64),
    ("seed 004 array, 64/call", Mode::Array, 64),
];

fn workload(mode: Mode, batch: usize, tokens: u64) -> Cost {
    let cfg = DevmemConfig::new(&[mode], 1, SOCKETS, NIOVS, 1);
    let mut sys = Devmem::new(cfg).expect("the workload's config is valid");
    sys.bind_rx(0, mode).expect("one binding binds");
    let socks = sys.cfg.spec.socks();
    while sys.cost.released < tokens {
        for (k, n) in sys.bindings[0].pool.list().into_iter().enumerate() {
            let s = socks[k % socks.len()];
            let n = Niov { b: 0, i: n as u8 };
            sys.rx_frag(s, n).expect("a free net_iov, an open socket");
        }
        for &s in &socks {
            while sys.recv_msg(s, true).is_ok() {}
        }
        for &s in &socks {
            release(&mut sys, s, batch);
        }
    }
    sys.cost
}

/// Every token s holds, `batch` dmabuf_tokens a call.
fn release(sys: &mut Devmem, s: Sock, batch: usize) {
    let held: Vec<DmabufToken> = sys
        .app
        .held(s)
        .into_iter()
        .flat_map(|(t, c)| {
            (0..c).map(move |_| DmabufToken {
                token_start: t,
                token_count: 1,
            })
        })
        .collect();
    for call in held.chunks(batch) {
        sys.dontneed_tokens(s, call).expect("an open socket");
    }
}

/// The table: each row's counts for at least `tokens` tokens.
pub fn table(tokens: u64) -> Vec<CostRow> {
    ROWS.iter()
        .map(|&(name, mode, batch)| CostRow {
            name: name.into(),
            mode: mode.id(),
            batch,
            total: workload(mode, batch, tokens),
        })
        .collect()
}

/// The table as text: per token, each array row's ratio to the xarray
/// row above it.
pub fn render(rows: &[CostRow]) -> String {
    type Col = (&'static str, fn(&Cost) -> u64);
    let cols: [Col; 6] = [
        ("allocs", Cost::allocs),
        ("xa_alloc", |c| c.xa_alloc),
        ("xa_lock_bh", |c| c.xa_lock),
        ("pp_ref RMW", |c| c.pp_rmw),
        ("uref RMW", |c| c.uref_rmw),
        ("RMW+locks", Cost::rmw),
    ];
    let mut out = format!("{:<27}{:>8}", "per token", "tokens");
    for (name, _) in &cols {
        out += &format!("{name:>16}");
    }
    out.push('\n');
    let mut base: Option<&CostRow> = None;
    for r in rows {
        if r.mode == "xarray" {
            base = Some(r);
        }
        out += &format!("{:<27}{:>8}", r.name, r.total.tokens);
        for (_, get) in &cols {
            let v = r.per_token(get(&r.total));
            let cell = match base {
                Some(b) if r.mode != "xarray" => {
                    let bv = b.per_token(get(&b.total));
                    if bv > 0.0 {
                        format!("{v:.3} ({:.2}x)", v / bv)
                    } else {
                        format!("{v:.3}")
                    }
                }
                _ => format!("{v:.3}"),
            };
            out += &format!("{cell:>16}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_mode_takes_no_lock_and_no_xa_alloc_per_token() {
        let rows = table(2048);
        let per = |r: &CostRow, f: fn(&Cost) -> u64| r.per_token(f(&r.total));
        for pair in rows.chunks(2) {
            let (x, a) = (&pair[0], &pair[1]);
            assert!(x.total.tokens >= 2048 && a.total.tokens >= 2048);
            assert_eq!(x.total.released, x.total.tokens, "every token came back");
            assert_eq!(per(x, |c| c.xa_alloc), 1.0);
            assert!(per(x, |c| c.xa_lock) >= 2.0, "refill and commit per token");
            assert_eq!(a.total.xa_lock, 0);
            assert_eq!(a.total.xa_alloc, 0);
            // Both take and drop the application's reference and drop the
            // skb's; array mode also counts the token in uref, twice.
            assert_eq!(per(x, |c| c.pp_rmw), 3.0);
            assert_eq!(per(a, |c| c.pp_rmw), 3.0);
            assert_eq!(per(a, |c| c.uref_rmw), 2.0);
            assert!(per(a, Cost::rmw) < per(x, Cost::rmw));
        }
        let one = per(&rows[0], |c| c.kvmalloc);
        let many = per(&rows[4], |c| c.kvmalloc);
        assert_eq!(one, 1.0);
        assert!(many < 0.02, "{many}");
        let text = render(&rows);
        assert!(text.starts_with("per token"), "{text}");
        assert_eq!(text.lines().count(), 7);
    }
}
