//! A TCP socket steered to a binding's queues: its receive queue of skbs
//! (each one devmem frag, read in pieces), its sk_user_frags xarray under
//! xa_lock_bh, and whether it is open; the frag's arrival
//! (tcp_data_queue) and close() (tcp_v4_destroy_sock).
//!
//! Locks: `queue` stands for the socket lock recvmsg holds (lock_sock)
//! and the receive queue; `frags` for xa_lock_bh. Whoever takes both takes
//! `queue` first. `open` changes only under both.

use std::collections::VecDeque;

use ringlab_model::devmem::{Mode, Sock};

use super::binding::Binding;
use super::cost::Cost;
use super::xarray::UserFrags;
use super::Disabled;
use ringlab_ring::sync::Ordering::{Acquire, Release};
use ringlab_ring::sync::{Arc, AtomicBool, Mutex, MutexGuard};

/// An skb on a receive queue: one frag of a net_iov, holding one
/// reference on it until the last piece is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skb {
    /// The net_iov's index in the binding.
    pub niov: usize,
    /// Pieces not yet read.
    pub left: u32,
}

#[derive(Debug)]
pub struct TcpSock {
    pub id: Sock,
    pub binding: Arc<Binding>,
    /// Pieces a frag is read in (the spec's Parts).
    pub parts: u32,
    pub(super) queue: Mutex<VecDeque<Skb>>,
    pub(super) frags: Mutex<UserFrags>,
    open: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TcpSock {
    pub fn new(id: Sock, binding: Arc<Binding>, parts: u32) -> TcpSock {
        TcpSock {
            id,
            binding,
            parts,
            queue: Mutex::new(VecDeque::new()),
            frags: Mutex::new(UserFrags::default()),
            open: AtomicBool::new(true),
        }
    }

    pub fn is_open(&self) -> bool {
        self.open.load(Acquire)
    }

    /// The socket lock and the receive queue.
    pub(super) fn lock_queue(&self) -> MutexGuard<'_, VecDeque<Skb>> {
        lock(&self.queue)
    }

    /// xa_lock_bh(&sk->sk_user_frags), counted.
    pub(super) fn lock_frags(&self, cost: &mut Cost) -> MutexGuard<'_, UserFrags> {
        cost.xa_lock += 1;
        lock(&self.frags)
    }

    /// tcp_data_queue(): the NIC's frag of net_iov `niov` (its first
    /// reference already the skb's) joins the receive queue; a closed
    /// socket takes nothing and the skb is the caller's to free.
    pub fn queue_frag(&self, niov: usize) -> Result<(), Skb> {
        let skb = Skb {
            niov,
            left: self.parts,
        };
        let mut q = self.lock_queue();
        if !self.is_open() {
            return Err(skb);
        }
        q.push_back(skb);
        Ok(())
    }

    /// close(): tcp_close purges the receive queue, and
    /// tcp_v4_destroy_sock() in xarray mode drops the reference of every
    /// token in sk_user_frags (tcp_release_user_frags(); mutant
    /// dm-close-no-release: it does not). In array mode the tokens stay
    /// with the application.
    pub fn close(&self, cost: &mut Cost) -> Result<(), Disabled> {
        let mut q = self.lock_queue();
        let mut xa = self.lock_frags(cost);
        if !self.is_open() {
            return Err(Disabled::new(
                "Close",
                format!("socket {:?} is closed", self.id),
            ));
        }
        self.open.store(false, Release);
        let skbs: Vec<Skb> = q.drain(..).collect();
        let release =
            self.binding.mode() == Mode::Xarray && !ringlab_mutant::on("mutant-dm-close-no-release");
        let held = if release { xa.drain() } else { Vec::new() };
        drop(xa);
        drop(q);
        for k in skbs {
            self.binding.put(k.niov, 1, cost);
        }
        for n in held {
            self.binding.put(n, 1, cost);
        }
        Ok(())
    }

    /// Takes the socket lock once and lets it go: see
    /// [`Binding::unbind`].
    pub(super) fn sync_with_recv(&self) {
        drop(self.lock_queue());
    }

    /// The receive queue as it is.
    pub fn skbs(&self) -> Vec<Skb> {
        self.lock_queue().iter().copied().collect()
    }

    /// The xarray as it is.
    pub fn user_frags(&self) -> UserFrags {
        lock(&self.frags).clone()
    }
}
