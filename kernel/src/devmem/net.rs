//! The wire of `ringlab devmem`: two namespaces, a netdevsim in the
//! sender's (A) linked to one in the receiver's (B), and a second,
//! unlinked netdevsim in B for the one-mode rule. One RX queue each, so
//! every frame from A lands on B's queue 0, the queue the dma-buf is
//! bound to. Everything is removed on drop.

use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::OwnedFd;

use super::error::Error;
use super::nsim::{self, Nsim};
use crate::rtnl::Rtnl;
use crate::sandbox::{self, Sandbox};
use crate::{interrupt, netns};

/// The namespaces' numbers, past any sandbox's of the same process.
const NS_K: u32 = 900_000;
const ADDR_A: Ipv4Addr = Ipv4Addr::new(10, 99, 0, 1);
const ADDR_B: Ipv4Addr = Ipv4Addr::new(10, 99, 0, 2);

pub struct Net {
    a: String,
    b: String,
    ifindex_b: u32,
    ifindex_b2: u32,
    listener: TcpListener,
    // dropped after the namespaces' users, before the namespaces
    _devs: Vec<Nsim>,
}

/// Runs `f` on a thread in namespace `ns` (setns acts per thread).
fn in_ns<T: Send>(ns: &str, f: impl FnOnce() -> T + Send) -> Result<T, Error> {
    std::thread::scope(|s| {
        s.spawn(|| {
            netns::enter(ns)?;
            Ok(f())
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

impl Net {
    /// The namespaces and devices, addressed and up; `extra` unlinked
    /// devices in B beside the linked one (the one-mode rule uses one).
    pub fn new(extra: u32) -> Result<Net, Error> {
        let pid = std::process::id();
        // named as the sandbox's (rl<pid>n<k>), so that a signal removes
        // them and a later run sweeps what a killed one left
        let (a, b) = (format!("rl{pid}n{}", NS_K), format!("rl{pid}n{}", NS_K + 1));
        interrupt::install()?;
        sandbox::sweep();
        interrupt::track(&a, || netns::add(&a))?;
        let net = (|| {
            interrupt::track(&b, || netns::add(&b))?;
            let base = 1000 + (pid % 10_000) * 8;
            let mut devs = Vec::new();
            for i in 0..2 + extra {
                devs.push(Nsim::new(base + i, 1)?);
            }
            let (fa, fb) = (nsim::netns_file(&a)?, nsim::netns_file(&b)?);
            let mut rtnl = Rtnl::open()?;
            rtnl.set_netns(devs[0].name(), &fa)?;
            for d in &devs[1..] {
                rtnl.set_netns(d.name(), &fb)?;
            }
            let name_a = devs[0].name().to_string();
            let names_b: Vec<String> = devs[1..].iter().map(|d| d.name().to_string()).collect();
            let ia = in_ns(&a, || -> Result<u32, Error> {
                let mut r = Rtnl::open()?;
                r.add_addr(&name_a, ADDR_A.into(), 24)?;
                Ok(Sandbox::ifindex(&name_a)?)
            })??;
            let ib = in_ns(&b, || -> Result<Vec<u32>, Error> {
                let mut r = Rtnl::open()?;
                r.add_addr(&names_b[0], ADDR_B.into(), 24)?;
                names_b.iter().map(|n| Ok(Sandbox::ifindex(n)?)).collect()
            })??;
            // linked first: netdevsim turns the carrier on when a device
            // opens with its peer running
            nsim::link((&fa, ia), (&fb, ib[0]))?;
            let up = std::time::Duration::from_secs(5);
            in_ns(&a, || -> Result<(), Error> { Ok(Rtnl::open()?.set_up(&name_a)?) })??;
            in_ns(&b, || -> Result<(), Error> {
                let mut r = Rtnl::open()?;
                for n in &names_b {
                    r.set_up(n)?;
                }
                Ok(())
            })??;
            in_ns(&a, || -> Result<(), Error> { Ok(Rtnl::open()?.wait_carrier(&name_a, up)?) })??;
            in_ns(&b, || -> Result<(), Error> { Ok(Rtnl::open()?.wait_carrier(&names_b[0], up)?) })??;
            let listener = in_ns(&b, || TcpListener::bind(SocketAddrV4::new(ADDR_B, 0)))?
                .map_err(|e| Error::sys(format!("bind a TCP listener on {ADDR_B} in {b}"), e))?;
            Ok(Net { a: a.clone(), b: b.clone(), ifindex_b: ib[0], ifindex_b2: ib.get(1).copied().unwrap_or(0), listener, _devs: devs })
        })();
        if net.is_err() {
            let _ = interrupt::untrack(&b, || netns::remove(&b));
            let _ = interrupt::untrack(&a, || netns::remove(&a));
        }
        net
    }

    pub fn ifindex_b(&self) -> u32 {
        self.ifindex_b
    }

    /// The unlinked device in B (0 when made without one).
    pub fn ifindex_b2(&self) -> u32 {
        self.ifindex_b2
    }

    /// `f` run in B, where the receiver's netlink calls must be made.
    pub fn in_b<T: Send, E: Send + From<Error>>(&self, f: impl FnOnce() -> Result<T, E> + Send) -> Result<T, E> {
        in_ns(&self.b, f)?
    }

    /// A TCP connection from A to B: (the sender's end, the receiver's).
    pub fn connect(&self) -> Result<(OwnedFd, OwnedFd), Error> {
        let to = self.listener.local_addr().map_err(|e| Error::sys("the listener's address", e))?;
        let tx = in_ns(&self.a, || TcpStream::connect(to))?.map_err(|e| Error::sys(format!("connect to {to} from {}", self.a), e))?;
        let (rx, _) = self.listener.accept().map_err(|e| Error::sys(format!("accept on {to}"), e))?;
        tx.set_nodelay(true).map_err(|e| Error::sys("TCP_NODELAY", e))?;
        Ok((tx.into(), rx.into()))
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in [&self.b, &self.a] {
            if let Err(e) = interrupt::untrack(ns, || netns::remove(ns)) {
                eprintln!("ringlab: could not remove namespace {ns}: {e}");
            }
        }
    }
}
