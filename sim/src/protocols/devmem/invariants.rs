//! The checks after each step: what only the concrete state shows (the
//! free list, reserved xarray ids, the pool of an unbound binding), then
//! the spec's invariants, evaluated by the model (ringlab_model::devmem)
//! on [`Devmem::model_state`], with a description of what broke.

use ringlab_model::devmem::{Bst, Config, Mode, State};

use super::system::Devmem;
use super::xarray::Slot;
pub use crate::harness::Violation;

/// The invariants checked after every step, in the order the spec's model
/// configs list them. OwnTokensOnly is not among them: array mode gives it
/// up by design; the scheduler reports when it first breaks.
pub const CHECKED: [&str; 8] = [
    "RefsAccounted",
    "NoUnderflow",
    "PoolOnlyUnreferenced",
    "NoLeakAfterClose",
    "NoLeakAfterUnbind",
    "BudgetPerCall",
    "TokensDelivered",
    "SingleMode",
];

/// What the projection does not show: each free list holds exactly the
/// net_iovs counted in it, no xarray id is left reserved between steps,
/// and a pool hands out net_iovs exactly while its binding is bound.
pub fn concrete(sys: &Devmem) -> Result<(), String> {
    for b in &sys.bindings {
        let mut listed = b.pool.list();
        listed.sort_unstable();
        let counted: Vec<usize> = b
            .pool
            .pooled()
            .iter()
            .enumerate()
            .flat_map(|(n, &c)| (0..c).map(move |_| n))
            .collect();
        if listed != counted {
            return Err(format!(
                "binding {}: the free list holds {listed:?}, its counts say {counted:?}",
                b.id
            ));
        }
        if b.pool.is_open() != (b.state() == Bst::Bound) {
            return Err(format!(
                "binding {} is {} but its pool is {}",
                b.id,
                b.state().id(),
                if b.pool.is_open() { "open" } else { "closed" }
            ));
        }
    }
    for s in &sys.socks {
        if let Some((id, _)) = s.user_frags().entries().find(|(_, v)| *v == Slot::Reserved) {
            return Err(format!("socket {:?}: id {id} is still reserved", s.id));
        }
    }
    Ok(())
}

/// Every checked invariant on the projection; the state if they hold.
pub fn check(sys: &Devmem) -> Result<State, Violation> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    match st.violated(cfg, &CHECKED) {
        None => Ok(st),
        Some(invariant) => Err(Violation::of(invariant, explain(&st, cfg, invariant))),
    }
}

/// What breaks `invariant` in `st`, in the spec's terms.
pub fn explain(st: &State, cfg: &Config, invariant: &str) -> String {
    let mut out = Vec::new();
    for n in cfg.niovs() {
        let k = cfg.niov_index(n);
        let (skb, kernel, user) = (
            st.skb_refs(cfg, n),
            st.kernel_tokens(cfg, n),
            st.user_tokens(cfg, n),
        );
        let at = format!("net_iov <<{}, {}>>", n.b, n.i);
        let bad = match invariant {
            "RefsAccounted" => st.ppref[k] != skb + kernel,
            "NoUnderflow" => st.ppref[k] < 0 || st.uref[k] < 0,
            "PoolOnlyUnreferenced" => {
                st.pool[k] > 1
                    || (st.pool[k] == 1 && (st.ppref[k], skb, kernel, user) != (0, 0, 0, 0))
            }
            "NoLeakAfterUnbind" => {
                st.bst_of(n.b) == Bst::Dead && st.mode_of(n.b) == Mode::Array && st.uref[k] != 0
            }
            "TokensDelivered" => kernel != user,
            _ => false,
        };
        if bad {
            out.push(format!(
                "{at}: pp_ref_count {}, uref {}, in the pool {}x, {skb} skb refs, {kernel} kernel tokens, {user} application tokens",
                st.ppref[k], st.uref[k], st.pool[k]
            ));
        }
    }
    match invariant {
        "NoLeakAfterClose" => {
            for s in cfg.socks() {
                let k = cfg.sock_index(s);
                let held = st.xa[k].iter().filter(|x| x.is_some()).count();
                if !st.open[k] && (held > 0 || !st.rxq[k].is_empty()) {
                    out.push(format!(
                        "closed socket <<{}, {}>> still has {held} xarray tokens and {} skbs",
                        s.b,
                        s.i,
                        st.rxq[k].len()
                    ));
                }
            }
        }
        "BudgetPerCall" => out.push(format!(
            "one SO_DEVMEM_DONTNEED examined {} tokens, MAX_DONTNEED_FRAGS {}",
            st.work, cfg.dontneed_limit
        )),
        "SingleMode" => {
            let bound: Vec<String> = cfg
                .binding_ids()
                .filter(|&b| st.bst_of(b) == Bst::Bound)
                .map(|b| format!("binding {b} {}", st.mode_of(b).id()))
                .collect();
            out.push(format!("bound: {}", bound.join(", ")));
        }
        "OwnTokensOnly" => out.extend(st.stolen.iter().map(|x| {
            format!(
                "token {} received through <<{}, {}>> released through <<{}, {}>>",
                x.tok, x.from.b, x.from.i, x.by.b, x.by.i
            )
        })),
        _ => {}
    }
    out.join("; ")
}

/// At the end, every socket closed and every binding unbound: each net_iov
/// of a binding that was bound is in its pool once, with no reference and
/// no token; no skb and no xarray entry is left.
pub fn quiescent(sys: &Devmem) -> Result<(), String> {
    for b in &sys.bindings {
        if b.state() == Bst::Idle {
            continue;
        }
        let pooled = b.pool.pooled();
        for (n, niov) in b.niovs.iter().enumerate() {
            let (p, u) = niov.counts();
            if pooled[n] != 1 || p != 0 || u != 0 {
                return Err(format!(
                    "net_iov <<{}, {n}>>: in the pool {}x, pp_ref_count {p}, uref {u}",
                    b.id, pooled[n]
                ));
            }
        }
    }
    for s in &sys.socks {
        if !s.skbs().is_empty() || !s.user_frags().is_empty() {
            return Err(format!(
                "socket {:?} still holds skbs or xarray entries",
                s.id
            ));
        }
    }
    Ok(())
}
