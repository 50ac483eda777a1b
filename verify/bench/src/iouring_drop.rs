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
use std::os::fd::{FromRawFd, OwnedFd};

const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_PROG_TYPE_SCHED_CLS: u32 = 3;
const BPF_TCX_INGRESS: u32 = 46;
/// TC_ACT_SHOT (TCX_DROP in the tcx uAPI).
const TC_ACT_SHOT: u64 = 2;
/// `mov64 r0, imm` and `exit`, as eBPF encodes them (opcode in the low byte,
/// imm in the high 32 bits).
const PROG: [u64; 2] = [0xb7 | (TC_ACT_SHOT << 32), 0x95];

/// The attached drop; dropping it detaches the program.
pub struct PeerDrop {
    _link: OwnedFd,
    _prog: OwnedFd,
}

/// bpf(2) with a zeroed attribute block of 128 bytes, `fill` sets its fields.
fn bpf(cmd: libc::c_long, fill: impl FnOnce(&mut [u32; 32])) -> io::Result<OwnedFd> {
    let mut attr = [0u32; 32];
    fill(&mut attr);
    // Safety: attr is a valid, fully initialised block of the size passed.
    let fd = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.as_mut_ptr(), std::mem::size_of_val(&attr)) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // Safety: bpf(2) returned a new fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

fn split(p: u64) -> (u32, u32) {
    (p as u32, (p >> 32) as u32)
}

/// Loads the program and links it to tcx ingress of `ifindex`.
pub fn attach(ifindex: u32) -> Result<PeerDrop, String> {
    let license = b"GPL\0";
    let prog = bpf(BPF_PROG_LOAD, |a| {
        // union bpf_attr, BPF_PROG_LOAD: prog_type, insn_cnt, insns, license.
        a[0] = BPF_PROG_TYPE_SCHED_CLS;
        a[1] = PROG.len() as u32;
        (a[2], a[3]) = split(PROG.as_ptr() as u64);
        (a[4], a[5]) = split(license.as_ptr() as u64);
    })
    .map_err(|e| format!("BPF_PROG_LOAD of the tc drop program: {e}"))?;
    let prog_fd = std::os::fd::AsRawFd::as_raw_fd(&prog) as u32;
    let link = bpf(BPF_LINK_CREATE, |a| {
        // BPF_LINK_CREATE: prog_fd, target_ifindex, attach_type.
        a[0] = prog_fd;
        a[1] = ifindex;
        a[2] = BPF_TCX_INGRESS;
    })
    .map_err(|e| format!("BPF_LINK_CREATE at tcx ingress of ifindex {ifindex}: {e} (tcx is in linux 6.6 and later)"))?;
    Ok(PeerDrop { _link: link, _prog: prog })
}
