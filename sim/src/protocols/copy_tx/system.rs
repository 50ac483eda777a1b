//! The whole copy-mode transmit system in one place, each spec action a
//! method: what the harness's scheduler and the comparison with the
//! model drive, and what the real-thread runner splits across threads.

use ringlab_model::copy_tx::{Action, TxResult};

use super::config::CopyTxConfig;
use super::cost::Cost;
use super::cq::Cq;
use super::driver::Driver;
use super::pool::Pool;
use super::sock::{XmitCfg, XskSock};
use super::umem::Umem;
use super::user::App;
use super::{Disabled, Step};
use ringlab_ring::{KernelCons, KernelProd, Ring, UserCons, UserProd, XdpDesc};
use ringlab_ring::sync::Arc;

#[derive(Debug)]
pub struct CopyTx {
    pub cfg: CopyTxConfig,
    pub pool: Arc<Pool>,
    pub socks: Vec<XskSock>,
    pub driver: Driver,
    pub app: App,
    /// Where the drain is (see drain.rs).
    #[cfg(not(loom))]
    pub(crate) drain: super::drain::Drain,
}

impl CopyTx {
    pub fn new(cfg: CopyTxConfig) -> Result<CopyTx, String> {
        cfg.validate()?;
        let umem = Umem {
            frames: cfg.frames() as u32,
            frame_size: cfg.frame_size,
        };
        let cq_ring = Arc::new(
            Ring::new(cfg.spec.cq_size as u32, cfg.cq_start, u64::MAX)
                .map_err(|e| e.to_string())?,
        );
        // Safety: the pool holds the completion ring's only producer, the
        // application its only consumer.
        let (kprod, ucons) = unsafe { (KernelProd::new(cq_ring.clone()), UserCons::new(cq_ring)) };
        let pool = Arc::new(Pool::new(
            umem,
            Cq::new(kprod),
            cfg.spec.design,
            cfg.sockets(),
        ));
        let xcfg = XmitCfg::of(&cfg);
        let mut socks = Vec::new();
        let mut prods = Vec::new();
        for s in 0..cfg.sockets() {
            let ring = Arc::new(
                Ring::new(cfg.spec.tx_size as u32, cfg.tx_start, XdpDesc::default())
                    .map_err(|e| e.to_string())?,
            );
            // Safety: socket s is this ring's only consumer, the
            // application its only producer.
            let (kcons, uprod) = unsafe { (KernelCons::new(ring.clone()), UserProd::new(ring)) };
            socks.push(XskSock::new(s, kcons, xcfg.clone()));
            prods.push(uprod);
        }
        Ok(CopyTx {
            app: App::new(umem, prods, ucons, cfg.spec.multi_buf),
            cfg,
            pool,
            socks,
            driver: Driver::default(),
            #[cfg(not(loom))]
            drain: Default::default(),
        })
    }

    fn sock(&mut self, action: &'static str, s: usize) -> Result<&mut XskSock, Disabled> {
        self.socks
            .get_mut(s)
            .ok_or_else(|| Disabled::new(action, format!("no socket {s}")))
    }

    /// UserSubmit(s, f, ok, contd). See [`App::user_submit`].
    pub fn user_submit(&mut self, s: usize, f: u32, ok: bool, contd: bool) -> Step {
        self.app.user_submit(s, f, ok, contd)
    }
    /// Sendto(s). See [`XskSock::sendto`].
    pub fn sendto(&mut self, s: usize) -> Step {
        self.sock("Sendto", s)?.sendto()
    }
    /// UserReap. See [`App::user_reap`].
    pub fn user_reap(&mut self) -> Step {
        self.app.user_reap().map(|_| ())
    }
    /// XmitReserve(s). See [`XskSock::xmit_reserve`].
    pub fn xmit_reserve(&mut self, s: usize) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitReserve", s)?.xmit_reserve(&pool)
    }
    /// XmitReserveStore(s). See [`XskSock::xmit_reserve_store`].
    pub fn xmit_reserve_store(&mut self, s: usize) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitReserveStore", s)?.xmit_reserve_store(&pool)
    }
    /// XmitAllocFail(s). See [`XskSock::xmit_alloc_fail`].
    pub fn xmit_alloc_fail(&mut self, s: usize) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitAllocFail", s)?.xmit_alloc_fail(&pool)
    }
    /// XmitSend(s, o). See [`XskSock::xmit_send`].
    pub fn xmit_send(&mut self, s: usize, o: TxResult) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitSend", s)?.xmit_send(&pool, o)
    }
    /// XmitBatchReserve(s). See [`XskSock::xmit_batch_reserve`].
    pub fn xmit_batch_reserve(&mut self, s: usize) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitBatchReserve", s)?.xmit_batch_reserve(&pool)
    }
    /// XmitBatchAlloc(s, j). See [`XskSock::xmit_batch_alloc`].
    pub fn xmit_batch_alloc(&mut self, s: usize, j: u32) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitBatchAlloc", s)?.xmit_batch_alloc(&pool, j)
    }
    /// XmitBatchAllocFail(s). See [`XskSock::xmit_batch_alloc_fail`].
    pub fn xmit_batch_alloc_fail(&mut self, s: usize) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitBatchAllocFail", s)?
            .xmit_batch_alloc_fail(&pool)
    }
    /// XmitBatchSend(s, o). See [`XskSock::xmit_batch_send`].
    pub fn xmit_batch_send(&mut self, s: usize, o: TxResult) -> Step {
        let pool = self.pool.clone();
        self.sock("XmitBatchSend", s)?.xmit_batch_send(&pool, o)
    }
    /// DriverFree(f) of the skb of socket `sock`. See [`Driver::driver_free`].
    pub fn driver_free(&mut self, f: u32, sock: usize) -> Step {
        let addr = self.pool.umem.addr(f);
        self.driver.driver_free(&self.pool, addr, sock)
    }

    /// One spec action with the model's choices.
    pub fn step(&mut self, a: &Action) -> Step {
        match *a {
            Action::UserSubmit { s, f, ok, contd } => {
                self.user_submit(s as usize, f as u32, ok, contd)
            }
            Action::UserReap => self.user_reap(),
            Action::DriverFree { f, sock } => self.driver_free(f as u32, sock as usize),
            _ => {
                let s = sock_of(a).expect("every other action is a socket's");
                let pool = self.pool.clone();
                self.sock(a.name(), s)?.step(&pool, a)
            }
        }
    }

    /// The kernel side's counts so far: every socket's and the driver's.
    pub fn cost(&self) -> Cost {
        let mut c = self.driver.cost;
        for s in &self.socks {
            c.add(&s.cost);
        }
        c
    }
}

/// The socket an action of the kernel's sendto loop is for.
pub fn sock_of(a: &Action) -> Option<usize> {
    match a {
        Action::UserSubmit { .. } => None,
        _ => a.socket().map(usize::from),
    }
}

impl XskSock {
    /// One action of this socket's sendto loop.
    pub fn step(&mut self, pool: &Pool, a: &Action) -> Step {
        match *a {
            Action::Sendto { .. } => self.sendto(),
            Action::XmitReserve { .. } => self.xmit_reserve(pool),
            Action::XmitReserveStore { .. } => self.xmit_reserve_store(pool),
            Action::XmitAllocFail { .. } => self.xmit_alloc_fail(pool),
            Action::XmitSend { o, .. } => self.xmit_send(pool, o),
            Action::XmitBatchReserve { .. } => self.xmit_batch_reserve(pool),
            Action::XmitBatchAlloc { j, .. } => match u32::try_from(j) {
                Ok(j) => self.xmit_batch_alloc(pool, j),
                Err(_) => Err(Disabled::new("XmitBatchAlloc", format!("j = {j}"))),
            },
            Action::XmitBatchAllocFail { .. } => self.xmit_batch_alloc_fail(pool),
            Action::XmitBatchSend { o, .. } => self.xmit_batch_send(pool, o),
            _ => Err(Disabled::new(
                a.name(),
                "not an action of a socket's sendto",
            )),
        }
    }
}
