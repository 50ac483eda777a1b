//! The kernel side of the bare twin (sim_bare.rs): what the device queue's
//! sockets share, a socket's whole sendto, and the skb destructor, on the
//! simulator's ring code with the simulator's per-descriptor steps (design
//! b, the per-descriptor loop, single-buffer packets) and nothing else.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

use ringlab_model::copy_tx::TxResult;
use ringlab_model::rng::Rng;
use ringlab_ring::{KernelCons, KernelProd, Ring, XdpDesc};

pub type CqProd = KernelProd<Arc<Ring<u64>>>;
pub type TxCons = KernelCons<Arc<Ring<XdpDesc>>>;

/// An skb of a single-buffer packet: its socket and its frame's address.
#[derive(Clone, Copy, Debug)]
pub struct Skb {
    pub sock: usize,
    pub addr: u64,
}

/// What the sockets of one device queue share: the completion ring's
/// producer under pool->cq_lock, the driver's queue of skbs, each socket's
/// sk_wmem_alloc, and the flag that ends the run.
pub struct Shared {
    pub cq: Mutex<CqProd>,
    pub txq: Mutex<Vec<Skb>>,
    pub wmem: Vec<AtomicU32>,
    pub stop: AtomicBool,
}

/// A lock whose holder panicked still guards the same data; the panic
/// itself is reported where the thread is joined.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// xsk_destruct_skb() (design b): the skb's address stored at
    /// `->producer` and published, then sock_wfree().
    pub fn destruct(&self, skb: Skb) {
        {
            let p = lock(&self.cq);
            p.write_at_producer(&[skb.addr]);
            p.submit_n(1);
        }
        self.wmem[skb.sock].fetch_sub(1, Relaxed);
    }
}

/// What the driver may answer, drawn with the simulator's weights (see
/// ringlab_sim's socket_choices): a failed allocation and the outcomes
/// other than sent are rare.
pub struct Outcomes {
    pub choices: Vec<Option<TxResult>>,
    pub weights: Vec<u32>,
}

impl Outcomes {
    /// None stands for the failed allocation.
    pub fn new(alloc_fails: bool, outcomes: &[TxResult]) -> Outcomes {
        let mut choices = Vec::new();
        let mut weights = Vec::new();
        if alloc_fails {
            choices.push(None);
            weights.push(1);
        }
        for &o in outcomes {
            choices.push(Some(o));
            weights.push(if o == TxResult::Sent { 8 } else { 1 });
        }
        Outcomes { choices, weights }
    }
}

/// A socket's kernel side.
pub struct Sock {
    pub id: usize,
    pub tx: TxCons,
    pub budget: u32,
    /// The umem: frames of frame_size bytes from address 0.
    pub frames: u64,
    pub frame_size: u64,
}

impl Sock {
    /// xp_aligned_validate_desc(): a non-empty packet inside one frame of
    /// the umem, no option but XDP_PKT_CONTD.
    fn valid(&self, d: &XdpDesc) -> bool {
        let off = d.addr % self.frame_size;
        d.len > 0
            && d.addr / self.frame_size < self.frames
            && d.len as u64 <= self.frame_size - off
            && d.options & !1 == 0
    }

    /// One whole sendto (__xsk_generic_xmit(), batch 0): returns the
    /// descriptors handed to the driver as sent.
    pub fn sendto(&mut self, sh: &Shared, out: &Outcomes, rng: &mut Rng) -> u32 {
        let mut done = 0;
        loop {
            // xskq_cons_peek_desc(): with an empty cache, publish and refresh.
            if !self.tx.peek() {
                return done;
            }
            let d = self.tx.read(self.tx.cached_cons());
            if !self.valid(&d) {
                // xsk_cq_submit_addr_single_locked(), design b: one slot
                // reserved, written at ->producer and published.
                let mut p = lock(&sh.cq);
                if p.nb_free(1) > 0 {
                    p.reserve_n(1);
                    p.write_at_producer(&[d.addr]);
                    p.submit_n(1);
                    drop(p);
                    self.tx.release();
                }
                return done;
            }
            if done >= self.budget {
                return done;
            }
            // xsk_cq_reserve_locked(): design b reserves a count.
            if lock(&sh.cq).reserve_n(1) == 0 {
                return done;
            }
            let Some(o) = out.choices[rng.weighted(&out.weights)] else {
                // sock_alloc_send_skb() failed: the slot goes back.
                lock(&sh.cq).cancel_n(1);
                return done;
            };
            // xsk_build_skb(): charged to the socket; the descriptor is consumed.
            sh.wmem[self.id].fetch_add(1, Relaxed);
            let skb = Skb { sock: self.id, addr: d.addr };
            self.tx.release();
            match o {
                TxResult::Sent => {
                    lock(&sh.txq).push(skb);
                    done += 1;
                }
                TxResult::Busy => {
                    // The descriptor back for the retry, its slot cancelled.
                    self.tx.cancel_n(1);
                    lock(&sh.cq).cancel_n(1);
                    sh.wmem[self.id].fetch_sub(1, Relaxed);
                    return done;
                }
                TxResult::Drop => {
                    sh.destruct(skb);
                    return done;
                }
            }
        }
    }
}
