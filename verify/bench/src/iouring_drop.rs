//! The peer's drop: a two-instruction BPF program (`r0 = TC_ACT_SHOT;
//! exit`) attached at tcx ingress of the veth peer, detached when its link
//! is closed (or the namespace goes).
//!
//! Why this drop: the seed sent to a dummy netdev, whose dummy_xmit() frees
//! every skb untouched. On veth the peer's __netif_receive_skb_core() runs
//! tcx ingress before the protocol handlers; a drop there frees the skb
//! before skb_orphan_frags_rx() (on the way to ip_rcv) would copy the frags
//! of a zero-copy skb, and before any UDP lookup or ICMP. No socket, no
//! route, no tc classifier module needed (CONFIG_NET_XGRESS and
//! CONFIG_BPF_SYSCALL are enough).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use libbpf_sys::{bpf_insn, bpf_link_create, bpf_prog_load, BPF_PROG_TYPE_SCHED_CLS, BPF_TCX_INGRESS};

/// TC_ACT_SHOT (TCX_DROP in the tcx uAPI).
const TC_ACT_SHOT: u64 = 2;
/// `mov64 r0, imm` and `exit`, as eBPF encodes them (opcode in the low byte,
/// imm in the high 32 bits; struct bpf_insn is these 8 bytes).
const PROG: [u64; 2] = [0xb7 | (TC_ACT_SHOT << 32), 0x95];

/// The attached drop; dropping it detaches the program.
pub struct PeerDrop {
    _link: OwnedFd,
    _prog: OwnedFd,
}

/// A libbpf call's result as an owned fd (libbpf returns -errno).
fn owned(ret: i32) -> io::Result<OwnedFd> {
    if ret < 0 {
        return Err(io::Error::from_raw_os_error(-ret));
    }
    // Safety: libbpf returned a new fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(ret) })
}

/// Loads the program and links it to tcx ingress of `ifindex` (libbpf's
/// bpf_prog_load() and bpf_link_create(); the program is too small for
/// an object file).
pub fn attach(ifindex: u32) -> Result<PeerDrop, String> {
    let insns = PROG.as_ptr().cast::<bpf_insn>();
    // Safety: insns points at PROG.len() instructions laid out as struct
    // bpf_insn; the name and license are NUL-terminated; no options.
    let ret = unsafe {
        bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, c"ringlab_drop".as_ptr(), c"GPL".as_ptr(), insns, PROG.len() as _, std::ptr::null_mut())
    };
    let prog = owned(ret).map_err(|e| format!("loading the tc drop program (bpf_prog_load): {e}"))?;
    // For tcx the target is the ifindex (libbpf passes it as target_fd).
    // Safety: prog is a loaded program's fd; no options.
    let ret = unsafe { bpf_link_create(prog.as_raw_fd(), ifindex as i32, BPF_TCX_INGRESS, std::ptr::null()) };
    let link = owned(ret)
        .map_err(|e| format!("linking it at tcx ingress of ifindex {ifindex} (bpf_link_create): {e} (tcx is in linux 6.6 and later)"))?;
    Ok(PeerDrop { _link: link, _prog: prog })
}
