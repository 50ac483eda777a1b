//! `ringlab bench series --profile N`: where a case's instructions go. The
//! plugin (profile=1) writes each translated block's instructions between
//! a case's markers; the kernel's System.map names the function a block
//! starts in. Blocks below the kernel's half of the address space are the
//! sender's own code and the C library: `[user]`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

/// Addresses at or above this are the kernel's (x86-64, 4-level paging).
const KERNEL_HALF: u64 = 0xffff_8000_0000_0000;

/// A PC further than this past its nearest symbol is taken to be code
/// System.map does not list (modules, BPF programs): no function is that
/// long.
const LONGEST_FUNCTION: u64 = 1 << 20;

/// Blocks' instructions by the end marker of the case they ran in: PC and
/// count, as the plugin wrote them.
pub type Blocks = BTreeMap<u16, Vec<(u64, u64)>>;

/// The plugin's `ringlab-prof` lines; other lines are parse_plugin's.
pub fn parse_blocks(text: &str) -> Result<Blocks, String> {
    let mut m = Blocks::new();
    for (i, l) in text.lines().enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let bad = || format!("plugin output line {}: '{l}' is not 'ringlab-prof ID PC COUNT'", i + 1);
        match w.as_slice() {
            ["ringlab-prof", "lost"] => {
                return Err("the plugin ran out of memory for its block records: the profile is incomplete".into());
            }
            ["ringlab-prof", id, pc, n] => {
                let id = id.parse::<u16>().map_err(|_| bad())?;
                let pc = u64::from_str_radix(pc, 16).map_err(|_| bad())?;
                let n = n.parse::<u64>().map_err(|_| bad())?;
                m.entry(id).or_default().push((pc, n));
            }
            ["ringlab-prof", ..] => return Err(bad()),
            _ => {}
        }
    }
    Ok(m)
}

/// A kernel's text symbols, by address.
#[derive(Debug)]
pub struct Symbols {
    starts: Vec<(u64, String)>,
}

impl Symbols {
    /// `System.map` lines: `ADDRESS TYPE NAME`; text symbols (t, T, w, W) only.
    pub fn parse(text: &str, what: &str) -> Result<Symbols, String> {
        let mut starts = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let w: Vec<&str> = l.split_whitespace().collect();
            let [addr, kind, name] = w.as_slice() else {
                return Err(format!("{what} line {}: '{l}' is not 'ADDRESS TYPE NAME'", i + 1));
            };
            if !matches!(*kind, "t" | "T" | "w" | "W") {
                continue;
            }
            let a = u64::from_str_radix(addr, 16).map_err(|_| format!("{what} line {}: bad address '{addr}'", i + 1))?;
            starts.push((a, (*name).to_string()));
        }
        if starts.is_empty() {
            return Err(format!("{what}: no text symbols"));
        }
        starts.sort();
        Ok(Symbols { starts })
    }

    pub fn load(path: &Path) -> Result<Symbols, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Symbols::parse(&text, &path.display().to_string())
    }

    /// The function `pc` is in: the nearest text symbol at or below it.
    pub fn name(&self, pc: u64) -> &str {
        if pc < KERNEL_HALF {
            return "[user]";
        }
        match self.starts.partition_point(|(a, _)| *a <= pc) {
            0 => "[kernel, not in System.map]",
            i if pc - self.starts[i - 1].0 >= LONGEST_FUNCTION => "[kernel, not in System.map]",
            i => &self.starts[i - 1].1,
        }
    }
}

/// One function's instructions a packet in one case on one kernel.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FnCost {
    pub case: String,
    pub kernel: String,
    pub function: String,
    pub insn_per_packet: f64,
}

/// The blocks of the case ending at `end`, by function, a packet each.
pub fn by_function(blocks: &Blocks, end: u16, packets: u64, syms: &Symbols, case: &str, kernel: &str) -> Vec<FnCost> {
    let mut f: BTreeMap<&str, u64> = BTreeMap::new();
    for (pc, n) in blocks.get(&end).map(Vec::as_slice).unwrap_or(&[]) {
        *f.entry(syms.name(*pc)).or_default() += n;
    }
    f.into_iter()
        .map(|(name, n)| FnCost {
            case: case.into(),
            kernel: kernel.into(),
            function: name.into(),
            insn_per_packet: n as f64 / packets.max(1) as f64,
        })
        .collect()
}

/// One line of a comparison: a function's cost on the reference and on the
/// case, a packet each.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub function: String,
    pub reference: f64,
    pub case: f64,
}

/// The `top` functions whose cost differs most between `reference` and
/// `case`, largest difference first, and the sum of the rest's difference.
pub fn compare(reference: &[FnCost], case: &[FnCost], top: usize) -> (Vec<Diff>, f64) {
    let mut m: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for c in reference {
        m.entry(&c.function).or_default().0 += c.insn_per_packet;
    }
    for c in case {
        m.entry(&c.function).or_default().1 += c.insn_per_packet;
    }
    let mut all: Vec<Diff> = m
        .into_iter()
        .map(|(f, (r, c))| Diff { function: f.into(), reference: r, case: c })
        .collect();
    all.sort_by(|a, b| (b.case - b.reference).abs().total_cmp(&(a.case - a.reference).abs()).then(a.function.cmp(&b.function)));
    let rest = all.iter().skip(top).map(|d| d.case - d.reference).sum();
    all.truncate(top);
    (all, rest)
}

/// Where a function belongs on the path of a frame sent on veth, by its
/// name's prefix (first match; `other kernel` if none): a reading aid,
/// not a source-file map.
const GROUPS: [(&str, &[&str]); 6] = [
    ("user (sender)", &["[user]"]),
    ("AF_XDP (net/xdp)", &["xsk_", "__xsk_", "xskq_", "xp_"]),
    (
        "slab allocator",
        &[
            "kmem_cache_", "__kmem_cache", "__slab_", "___slab_", "slab_", "__update_cpu_freelist", "kfree", "__kmalloc", "kmalloc",
            "should_failslab", "kmemleak_", "virt_to_folio", "virt_to_slab", "cache_from_obj", "__slub_", "slub_", "get_freelist",
            "__nr_to_section", "kmem_cache_debug",
        ],
    ),
    (
        "skb build and free",
        &["__alloc_skb", "alloc_skb", "sock_alloc_send", "skb_", "__skb_", "kfree_skb", "consume_skb", "sk_skb_reason_drop", "__finalize_skb", "sock_wfree", "__kfree_skb", "__build_skb", "__copy_skb"],
    ),
    ("device transmit", &["__dev_direct_xmit", "dev_direct_xmit", "validate_xmit_", "netif_skb_features", "veth_xmit", "skb_network_protocol", "__vlan_get_protocol", "dev_hard_start_xmit", "__dev_queue_xmit", "packet_"]),
    (
        "peer receive (veth peer, backlog, softirq)",
        &[
            "__netif_receive_skb", "netif_receive_skb", "net_rx_action", "process_backlog", "enqueue_to_backlog", "handle_softirqs", "do_softirq", "__do_softirq",
            "__napi_poll", "napi_", "eth_type_trans", "__dev_forward_skb", "dev_forward_skb", "deliver_ptype_list_skb", "__netif_rx", "netif_rx", "sd_has_rps_ipi",
            "xdp_do_check_flushed", "__local_bh_enable", "local_bh_enable", "veth_",
        ],
    ),
];

/// The group of `function` (see [`GROUPS`]).
pub fn group(function: &str) -> &'static str {
    GROUPS
        .iter()
        .find(|(_, prefixes)| prefixes.iter().any(|p| function.starts_with(p)))
        .map(|(g, _)| *g)
        .unwrap_or("other kernel")
}

/// Every group's names in order, `other kernel` last.
pub fn group_names() -> Vec<&'static str> {
    GROUPS.iter().map(|(g, _)| *g).chain(["other kernel"]).collect()
}

/// A case's instructions a packet by group.
pub fn by_group(costs: &[FnCost]) -> BTreeMap<&'static str, f64> {
    let mut m = BTreeMap::new();
    for c in costs {
        *m.entry(group(&c.function)).or_default() += c.insn_per_packet;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffff81000200 D some_data\nffffffff81000300 T xsk_generic_xmit\n";

    #[test]
    fn pcs_map_to_the_nearest_text_symbol_below() {
        let s = Symbols::parse(MAP, "map").unwrap();
        assert_eq!(s.name(0xffffffff81000100), "helper");
        assert_eq!(s.name(0xffffffff810001ff), "helper");
        // data symbols do not end a function
        assert_eq!(s.name(0xffffffff81000250), "helper");
        assert_eq!(s.name(0xffffffff81000400), "xsk_generic_xmit");
        assert_eq!(s.name(0x5555_0000_1000), "[user]");
        assert_eq!(s.name(0xffff_9000_0000_0000), "[kernel, not in System.map]");
        assert_eq!(s.name(0xffffffffa0000000), "[kernel, not in System.map]");
    }

    #[test]
    fn functions_fall_in_the_first_group_whose_prefix_they_have() {
        assert_eq!(group("[user]"), "user (sender)");
        assert_eq!(group("__xsk_generic_xmit"), "AF_XDP (net/xdp)");
        assert_eq!(group("kmem_cache_alloc_noprof"), "slab allocator");
        assert_eq!(group("skb_store_bits"), "skb build and free");
        // veth_xmit is the sender's device, every other veth_ the peer
        assert_eq!(group("veth_xmit"), "device transmit");
        assert_eq!(group("veth_poll"), "peer receive (veth peer, backlog, softirq)");
        assert_eq!(group("schedule"), "other kernel");
        assert_eq!(*group_names().last().unwrap(), "other kernel");
        let c = |f: &str, n: f64| FnCost { case: "c".into(), kernel: "k".into(), function: f.into(), insn_per_packet: n };
        let g = by_group(&[c("kfree", 2.0), c("kmem_cache_free", 3.0), c("schedule", 1.0)]);
        assert_eq!(g["slab allocator"], 5.0);
        assert_eq!(g["other kernel"], 1.0);
    }

    #[test]
    fn a_bad_map_line_is_named() {
        let e = Symbols::parse("ffffffff81000000 T\n", "System.map").unwrap_err();
        assert!(e.contains("System.map line 1"), "{e}");
        assert!(Symbols::parse("zz T x\n", "m").unwrap_err().contains("bad address 'zz'"));
        assert!(Symbols::parse("ffffffff81000000 D x\n", "m").unwrap_err().contains("no text symbols"));
    }

    #[test]
    fn blocks_are_kept_by_case_and_a_lost_profile_is_an_error() {
        let b = parse_blocks("ringlab-insn 0 5\nringlab-prof 1 ffffffff81000100 40\nringlab-prof 1 ffffffff81000300 60\nringlab-prof 3 5555 7\n").unwrap();
        assert_eq!(b[&1], vec![(0xffffffff81000100, 40), (0xffffffff81000300, 60)]);
        assert_eq!(b[&3], vec![(0x5555, 7)]);
        assert!(parse_blocks("ringlab-prof lost\n").unwrap_err().contains("incomplete"));
        assert!(parse_blocks("ringlab-prof 1 xyz 3\n").unwrap_err().contains("line 1"));
    }

    #[test]
    fn functions_add_up_their_blocks_a_packet_each_and_compare_by_difference() {
        let s = Symbols::parse(MAP, "map").unwrap();
        let b = parse_blocks(
            "ringlab-prof 1 ffffffff81000100 40\nringlab-prof 1 ffffffff81000110 60\nringlab-prof 1 ffffffff81000300 100\n\
             ringlab-prof 3 ffffffff81000100 100\nringlab-prof 3 ffffffff81000300 20\nringlab-prof 3 1000 30\n",
        )
        .unwrap();
        let r = by_function(&b, 1, 10, &s, "copy", "a");
        assert_eq!(r.iter().find(|c| c.function == "helper").unwrap().insn_per_packet, 10.0);
        let c = by_function(&b, 3, 10, &s, "batch", "b");
        let (top, rest) = compare(&r, &c, 2);
        assert_eq!(top[0], Diff { function: "xsk_generic_xmit".into(), reference: 10.0, case: 2.0 });
        assert_eq!(top[1].function, "[user]");
        assert_eq!(rest, 0.0);
        let (top, rest) = compare(&r, &c, 1);
        assert_eq!(top.len(), 1);
        assert_eq!(rest, 3.0);
    }
}
