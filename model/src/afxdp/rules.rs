//! The profile's rules as data: each field of [`Profile`] that can differ
//! between kernels, the kernel function that decides it, and where the
//! rule comes from (the 6.12.117 source, or a measurement on a newer
//! kernel). `ringlab diff --kernels` names these when it explains why two
//! kernels answered the same scenario differently.

use super::profile::Profile;

/// One rule of the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The field of [`Profile`].
    pub name: &'static str,
    /// What it decides, in a line.
    pub what: &'static str,
    /// The kernel function (net/xdp/xsk.c unless said) that decides it.
    pub function: &'static str,
    /// Where each value comes from.
    pub provenance: &'static str,
    /// The commit that introduced the newer behaviour, where known.
    pub commit: Option<&'static str>,
}

/// Every rule that differs between some two profiles of this model.
pub const RULES: [Rule; 6] = [
    Rule {
        name: "cq_full_errno",
        what: "sendto's result when the completion ring is full",
        function: "__xsk_generic_xmit (xsk_cq_reserve_addr_locked fails)",
        provenance: "6.12.117: `goto out` with err still 0; 6.18: EAGAIN, measured (kernel/tests/live.rs, profile_rules)",
        commit: None,
    },
    Rule {
        name: "tx_cons_published_on_return",
        what: "whether the TX ring's consumer is visible when sendto returns",
        function: "__xsk_generic_xmit / xskq_cons_get_entries",
        provenance: "6.12.117: copy mode publishes ->consumer only in xskq_cons_get_entries; 6.18: on the way out, measured (live.rs)",
        commit: None,
    },
    Rule {
        name: "completion_clears_bit0",
        what: "whether a completion loses bit 0 of its descriptor's address",
        function: "xsk_destruct_skb (destructor_arg's single-buffer tag)",
        provenance: "6.12.117: xsk_cq_reserve_addr_locked writes desc.addr; 6.18: the address tagged in destructor_arg, measured (live.rs)",
        commit: None,
    },
    Rule {
        name: "cq_addr_on_submit",
        what: "whether a completion's address is written when it is published rather than when its slot is reserved",
        function: "xsk_cq_reserve_addr_locked / xsk_cq_submit_addr_locked",
        provenance: "6.12.117: written at reserve time; 6.18: by the destructor as it publishes, measured with shared completion rings (live.rs, shared_umem_*) and BTF's struct xsk_addrs",
        commit: None,
    },
    Rule {
        name: "drop_frags",
        what: "what a dropped multi-buffer packet's fragments become: slots cancelled or addresses completed",
        function: "xsk_drop_skb -> xsk_consume_skb",
        provenance: "6.12.117: xsk_cq_cancel_locked; 6.18: completed, measured (live.rs, f1_dropped_fragment_completed)",
        commit: None,
    },
    Rule {
        name: "tx_budget",
        what: "descriptors one sendto may transmit",
        function: "__xsk_generic_xmit (TX_BATCH_SIZE, xs->max_tx_budget)",
        provenance: "TX_BATCH_SIZE 32 (xsk.c:35); XDP_MAX_TX_SKB_BUDGET on 6.17+ and the batch series",
        commit: None,
    },
];

/// The rule named `name`.
pub fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// `p`'s value of the rule `name`, as text.
pub fn value(p: &Profile, name: &str) -> Option<String> {
    Some(match name {
        "cq_full_errno" => p.cq_full_errno.to_string(),
        "tx_cons_published_on_return" => p.tx_cons_published_on_return.to_string(),
        "completion_clears_bit0" => p.completion_clears_bit0.to_string(),
        "cq_addr_on_submit" => p.cq_addr_on_submit.to_string(),
        "drop_frags" => format!("{:?}", p.drop_frags),
        "tx_budget" => p.tx_budget.to_string(),
        _ => return None,
    })
}

/// The rules on which `a` and `b` differ, in RULES' order.
pub fn differing(a: &Profile, b: &Profile) -> Vec<&'static str> {
    RULES.iter().map(|r| r.name).filter(|n| value(a, n) != value(b, n)).collect()
}

/// `base` with the rules `names` taken from `from`.
pub fn with_rules(base: &Profile, from: &Profile, names: &[&str]) -> Profile {
    let mut p = *base;
    for n in names {
        match *n {
            "cq_full_errno" => p.cq_full_errno = from.cq_full_errno,
            "tx_cons_published_on_return" => p.tx_cons_published_on_return = from.tx_cons_published_on_return,
            "completion_clears_bit0" => p.completion_clears_bit0 = from.completion_clears_bit0,
            "cq_addr_on_submit" => p.cq_addr_on_submit = from.cq_addr_on_submit,
            "drop_frags" => p.drop_frags = from.drop_frags,
            "tx_budget" => p.tx_budget = from.tx_budget,
            other => panic!("no profile rule named {other}"),
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::afxdp::profile::{V6_12, V6_18};

    #[test]
    fn every_rule_reads_and_writes_its_field() {
        for r in &RULES {
            let flipped = with_rules(&V6_12, &V6_18, &[r.name]);
            assert_eq!(value(&flipped, r.name), value(&V6_18, r.name), "{}", r.name);
            assert!(!r.function.is_empty() && !r.provenance.is_empty());
            assert_eq!(rule(r.name), Some(r));
        }
    }

    #[test]
    fn the_two_releases_differ_on_five_rules_and_every_difference_is_a_rule() {
        let d = differing(&V6_12, &V6_18);
        assert_eq!(d, ["cq_full_errno", "tx_cons_published_on_return", "completion_clears_bit0", "cq_addr_on_submit", "drop_frags"]);
        // taking them all over turns one profile into the other, name aside
        let all = with_rules(&V6_12, &V6_18, &d);
        assert_eq!(Profile { name: V6_18.name, ..all }, V6_18);
        assert!(differing(&V6_12, &V6_12).is_empty());
    }
}
