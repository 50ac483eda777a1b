//! What each CPU keeps: its bpf_net_context (the bpf_redirect_info the
//! XDP program's helper fills, and the XSKMAP flush list), the driver's
//! slot for the socket its fast path received into, and the receive it
//! is in (a CPU's own progress through __xsk_rcv(), which the stepped
//! system keeps between steps).

use std::collections::BTreeSet;

use ringlab_model::xsk_rx::{Buf, Pkt, Sock, Stage};
use ringlab_ring::sync::Ordering::{Acquire, Release};
use ringlab_ring::sync::{AtomicU8, Mutex};

use super::cost::Cost;

/// struct bpf_redirect_info's fields an XSKMAP redirect touches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedirectInfo {
    /// ri->tgt_value: the socket the lookup found (0 NULL).
    pub tgt_value: Sock,
    pub tgt_index: u32,
    /// ri->map_type is BPF_MAP_TYPE_XSKMAP.
    pub xskmap: bool,
    pub map_id: u32,
    pub flags: u64,
    /// ri->kern_flags' BPF_RI_F_XSK_MAP_INIT: the flush list is set up.
    pub flush_init: bool,
}

/// The XSKMAP's id, as ri->map_id holds it.
const XSKMAP_ID: u32 = 1;
const INT_MAX: u32 = i32::MAX as u32;

impl RedirectInfo {
    /// __bpf_xdp_redirect_map(map, k, 0, 0, __xsk_map_lookup_elem) with
    /// the lookup's result: success writes tgt_value, tgt_index, map_id,
    /// map_type, map and flags (6 stores); a failed lookup tgt_value,
    /// map_id and map_type (3).
    pub fn redirect_map(&mut self, k: Sock, found: Option<Sock>, cost: &mut Cost) -> bool {
        self.tgt_value = found.unwrap_or(0);
        match found {
            None => {
                self.map_id = INT_MAX;
                self.xskmap = false;
                cost.ri_writes += 3;
                false
            }
            Some(_) => {
                self.tgt_index = u32::from(k);
                self.map_id = XSKMAP_ID;
                self.xskmap = true;
                self.flags = 0;
                cost.ri_writes += 6;
                true
            }
        }
    }

    /// xdp_do_redirect() -> __xdp_do_redirect_xsk(): reads map_type and
    /// tgt_value, clears map_id and map_type (2 stores); the generic
    /// path's xdp_do_generic_redirect() also clears flags (3).
    pub fn do_redirect(&mut self, generic: bool, cost: &mut Cost) -> Option<Sock> {
        let s = (self.xskmap && self.tgt_value != 0).then_some(self.tgt_value);
        self.map_id = 0;
        self.xskmap = false;
        cost.ri_writes += 2;
        if generic {
            self.flags = 0;
            cost.ri_writes += 1;
        }
        s
    }
}

/// A CPU's receive in progress (the spec's cpu[c]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receive {
    pub stage: Stage,
    pub pkt: Pkt,
    pub sock: Sock,
    /// The socket the program's XSKMAP entry named when it ran.
    pub tgt: Sock,
    pub len: u8,
    pub bufs: Vec<Buf>,
    pub peek: Option<Buf>,
    pub fast: bool,
}

impl Receive {
    pub const IDLE: Receive = Receive {
        stage: Stage::Idle,
        pkt: 0,
        sock: 0,
        tgt: 0,
        len: 0,
        bufs: Vec::new(),
        peek: None,
        fast: false,
    };
}

#[derive(Debug, Default)]
pub struct PerCpu {
    pub ri: Mutex<RedirectInfo>,
    /// bpf_net_ctx's xskmap_map_flush_list, head first.
    flush: Mutex<Vec<Sock>>,
    /// The driver's slot (seed 002): the socket to xsk_flush() at the
    /// poll's end, 0 none.
    slot: AtomicU8,
}

impl PerCpu {
    /// __xsk_map_redirect()'s list_add() unless s is listed (the
    /// kernel's !xs->flush_node.prev).
    pub fn list(&self, s: Sock, cost: &mut Cost) {
        let mut l = self.flush.lock().unwrap_or_else(|e| e.into_inner());
        if !l.contains(&s) {
            let mut ri = self.ri.lock().unwrap_or_else(|e| e.into_inner());
            if !ri.flush_init {
                ri.flush_init = true;
                cost.ri_writes += 1;
            }
            cost.flush_adds += 1;
            l.insert(0, s);
        }
    }

    /// __xsk_map_flush()'s walk: every listed socket, taken off the list.
    /// The poll's bpf_net_context ends with it (bpf_net_ctx_clear()): the
    /// next poll sets up its list again.
    pub fn take_list(&self, cost: &mut Cost) -> Vec<Sock> {
        self.ri.lock().unwrap_or_else(|e| e.into_inner()).flush_init = false;
        let l = std::mem::take(&mut *self.flush.lock().unwrap_or_else(|e| e.into_inner()));
        cost.flush_walk += l.len() as u64;
        l
    }

    pub fn listed(&self) -> BTreeSet<Sock> {
        self.flush
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .copied()
            .collect()
    }

    pub fn slot(&self) -> Sock {
        self.slot.load(Acquire)
    }

    pub fn set_slot(&self, s: Sock) {
        self.slot.store(s, Release);
    }
}
