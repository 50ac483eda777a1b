//! struct net_devmem_dmabuf_binding: its net_iovs, its page pool, its
//! state and token mode; NETDEV_CMD_BIND_RX, the put of a reference that
//! may return a net_iov to the pool, and net_devmem_unbind_dmabuf().

use ringlab_model::devmem::{Binding as BindingId, Bst, Mode};

use super::cost::Cost;
use super::niov::NetIov;
use super::pool::PagePool;
use super::sock::TcpSock;
use super::Disabled;
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};
use ringlab_ring::sync::{Arc, AtomicU8};

const IDLE: u8 = 0;
const BOUND: u8 = 1;
const DEAD: u8 = 2;

#[derive(Debug)]
pub struct Binding {
    pub id: BindingId,
    /// Idle (not yet bound), bound, or dead (unbound).
    state: AtomicU8,
    /// The token mode NETDEV_CMD_BIND_RX asked for; set once, at bind.
    mode: AtomicU8,
    pub niovs: Vec<NetIov>,
    pub pool: PagePool,
}

fn mode_of(m: u8) -> Mode {
    if m == 0 {
        Mode::Xarray
    } else {
        Mode::Array
    }
}

fn mode_id(m: Mode) -> u8 {
    match m {
        Mode::Xarray => 0,
        Mode::Array => 1,
    }
}

impl Binding {
    /// A binding not yet bound, its mode `init` until a bind sets it (the
    /// spec's Init chooses one).
    pub fn new(id: BindingId, niovs: usize, init: Mode) -> Binding {
        Binding {
            id,
            state: AtomicU8::new(IDLE),
            mode: AtomicU8::new(mode_id(init)),
            niovs: (0..niovs).map(|_| NetIov::default()).collect(),
            pool: PagePool::new(niovs),
        }
    }

    pub fn state(&self) -> Bst {
        match self.state.load(Acquire) {
            IDLE => Bst::Idle,
            BOUND => Bst::Bound,
            _ => Bst::Dead,
        }
    }

    pub fn mode(&self) -> Mode {
        mode_of(self.mode.load(Acquire))
    }

    pub fn is_bound(&self) -> bool {
        self.state.load(Acquire) == BOUND
    }

    /// net_devmem_bind_dmabuf() and net_devmem_bind_dmabuf_to_queue(): the
    /// binding takes its mode and its net_iovs enter the page pool. The
    /// single-mode rule is the caller's (it sees every binding).
    pub fn bind(&self, mode: Mode) -> Result<(), Disabled> {
        if self.state() != Bst::Idle {
            return Err(Disabled::new(
                "BindRx",
                format!("binding {} is not idle", self.id),
            ));
        }
        self.mode.store(mode_id(mode), Release);
        self.pool.fill();
        self.state.store(BOUND, Release);
        Ok(())
    }

    /// The page pool hands out `want` (or any free net_iov) with its first
    /// reference, the skb's.
    pub fn alloc(&self, want: Option<usize>) -> Option<usize> {
        let n = self.pool.alloc(want)?;
        self.niovs[n].set_first_ref();
        Some(n)
    }

    /// napi_pp_put_page() of `k` references on net_iov `n`: the one that
    /// drops the last returns it to the pool (page_pool_put_netmem ->
    /// mp_dmabuf_devmem_release_page -> net_devmem_free_dmabuf). Returns
    /// the references left (the kernel WARNs below zero; the spec's
    /// NoUnderflow names it).
    pub fn put(&self, n: usize, k: i64, cost: &mut Cost) -> i64 {
        let left = self.niovs[n].unref(k, cost);
        if left == 0 {
            self.pool.push(n, &self.niovs[n]);
        }
        left
    }

    /// net_devmem_unbind_dmabuf(): the netlink socket that bound the
    /// binding is closed. Its queues stop taking from the pool; in array
    /// mode every token the application still holds is void: each uref is
    /// exchanged with zero and that many references dropped (seed 004's
    /// cleanup; mutant dm-unbind-no-cleanup: not).
    ///
    /// `socks` are the binding's sockets (seed 004 tracks them as the
    /// binding's users). In array mode, before the cleanup, each one's
    /// socket lock is taken once: a tcp_recvmsg_dmabuf() that found the
    /// binding bound (under that lock) has then counted its token, and one
    /// that starts later finds it dead and hands out none, so the spec's
    /// atomic Unbind holds against concurrent receives.
    pub fn unbind(&self, socks: &[Arc<TcpSock>], cost: &mut Cost) -> Result<(), Disabled> {
        if self
            .state
            .compare_exchange(BOUND, DEAD, AcqRel, Acquire)
            .is_err()
        {
            return Err(Disabled::new(
                "Unbind",
                format!("binding {} is not bound", self.id),
            ));
        }
        self.pool.close();
        if self.mode() != Mode::Array {
            return Ok(());
        }
        for s in socks {
            s.sync_with_recv();
        }
        if ringlab_mutant::on("mutant-dm-unbind-no-cleanup") {
            return Ok(());
        }
        for (n, niov) in self.niovs.iter().enumerate() {
            let left = niov.uref_take(cost);
            if left > 0 {
                self.put(n, i64::from(left), cost);
            }
        }
        Ok(())
    }
}
