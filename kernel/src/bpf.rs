//! The XDP program (bpf/xsk_redirect.bpf.c, compiled by build.rs) loaded
//! with libbpf-rs and attached in SKB (generic) mode; detached on drop.
//! Its two builds redirect with bpf_redirect_map() or with
//! bpf_redirect_xsk() (kernel/patches/xsk-redirect-xsk).

use std::os::fd::{AsFd, RawFd};

use libbpf_rs::{MapCore, MapFlags, MapHandle, Object, ObjectBuilder, Xdp, XdpFlags};
use serde::{Deserialize, Serialize};

const PROG: &str = "xsk_redirect";

/// The compiled program (build.rs), inside the binary so that it runs
/// where the build folder is not, such as in the test VM; ELF wants its
/// headers aligned.
#[repr(C, align(8))]
struct Aligned<T: ?Sized>(T);
static XDP_OBJ: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("RINGLAB_XDP_OBJ")));
static XDP_XSK_OBJ: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("RINGLAB_XDP_XSK_OBJ")));

/// BPF_FUNC_redirect_xsk in the series' include/uapi/linux/bpf.h.
pub const BPF_FUNC_REDIRECT_XSK: u32 = 212;

/// The helper the program redirects with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Redirect {
    /// bpf_redirect_map(), in every kernel
    #[default]
    Map,
    /// bpf_redirect_xsk() (kernel/patches/xsk-redirect-xsk): XDP_REDIRECT_XSK
    /// to the queue's only socket, else bpf_redirect_map()
    Xsk,
}

impl Redirect {
    /// The program's object and its file name.
    pub(crate) fn obj(self) -> (&'static [u8], &'static str) {
        match self {
            Redirect::Map => (&XDP_OBJ.0, "xsk_redirect.bpf.o"),
            Redirect::Xsk => (&XDP_XSK_OBJ.0, "xsk_redirect_xsk.bpf.o"),
        }
    }
}

/// Frames the program's bpf_redirect_xsk() answered XDP_REDIRECT_XSK (the
/// fast path) and XDP_REDIRECT (the fallback to the XSKMAP path); both 0
/// with bpf_redirect_map().
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paths {
    pub fast_path: u64,
    pub fallback: u64,
}

impl std::ops::Sub for Paths {
    type Output = Paths;
    fn sub(self, o: Paths) -> Paths {
        Paths { fast_path: self.fast_path - o.fast_path, fallback: self.fallback - o.fallback }
    }
}

impl std::ops::AddAssign for Paths {
    fn add_assign(&mut self, o: Paths) {
        self.fast_path += o.fast_path;
        self.fallback += o.fallback;
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `{:#}`: libbpf-rs puts the errno under its context.
    #[error("{what}: {source:#}")]
    Libbpf {
        what: String,
        #[source]
        source: libbpf_rs::Error,
    },
    #[error("{PROG}.bpf.o has no {0}")]
    Missing(String),
    #[error(
        "the running kernel has no bpf_redirect_xsk() (BPF helper {BPF_FUNC_REDIRECT_XSK}; the verifier says \"invalid func unknown#{BPF_FUNC_REDIRECT_XSK}\"): \
         --redirect xsk needs a kernel with kernel/patches/xsk-redirect-xsk"
    )]
    NoRedirectXsk,
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        std::io::Error::other(e)
    }
}

fn ctx<T>(r: libbpf_rs::Result<T>, what: impl Into<String>) -> Result<T, Error> {
    r.map_err(|source| Error::Libbpf { what: what.into(), source })
}

/// xsk_redirect attached to one interface, with its two maps.
#[derive(Debug)]
pub struct XdpProg {
    obj: Object,
    /// The interfaces it is attached to.
    ifindexes: Vec<i32>,
    /// XSKMAP: queue -> AF_XDP socket.
    xsks: MapHandle,
    /// ARRAY of four u64: frames of ringlab's EtherTypes redirected, and
    /// dropped or passed; the fast path's and the fallback's (Paths).
    seen: MapHandle,
    /// Whether drop detaches the program (else the namespace's removal does).
    detach: bool,
}

/// Whether the running kernel's verifier refuses bpf_redirect_xsk() in XDP
/// programs: libbpf loads a program calling it and looks for the
/// verifier's "invalid func unknown#212". A probe that could not run
/// (< 0) says nothing: loading the program will tell.
fn lacks_redirect_xsk() -> bool {
    // Safety: a probe with no options.
    let r = unsafe { libbpf_sys::libbpf_probe_bpf_helper(libbpf_sys::BPF_PROG_TYPE_XDP, BPF_FUNC_REDIRECT_XSK, std::ptr::null()) };
    r == 0
}

impl XdpProg {
    /// Loads the program redirecting with `redirect` and attaches it in SKB
    /// mode to `ifindex` (of the calling thread's namespace).
    pub fn attach(ifindex: u32, redirect: Redirect) -> Result<XdpProg, Error> {
        if redirect == Redirect::Xsk && lacks_redirect_xsk() {
            return Err(Error::NoRedirectXsk);
        }
        let (buf, name) = redirect.obj();
        let open = ctx(ObjectBuilder::default().open_memory(buf), format!("opening {name} ({} bytes)", buf.len()))?;
        let obj = ctx(open.load(), format!("loading {name}"))?;
        let map = |name: &str| {
            let m = obj.maps().find(|m| m.name() == name).ok_or_else(|| Error::Missing(format!("map {name}")))?;
            ctx(MapHandle::try_from(&m), format!("map {name}"))
        };
        let (xsks, seen) = (map("xsks")?, map("seen")?);
        if obj.progs().all(|p| p.name() != PROG) {
            return Err(Error::Missing(format!("program {PROG}")));
        }
        let mut prog = XdpProg { obj, ifindexes: Vec::new(), xsks, seen, detach: true };
        prog.attach_to(ifindex)?;
        Ok(prog)
    }

    /// Attaches the same program to `ifindex` too (SKB mode). Only its
    /// first attach adds it to the kernel's XDP dispatcher, which waits for
    /// a grace period each time its set of programs changes
    /// (bpf_prog_change_xdp(), bpf_dispatcher_change_prog()).
    pub fn attach_to(&mut self, ifindex: u32) -> Result<(), Error> {
        let ifindex = ifindex as i32;
        let prog = self.obj.progs().find(|p| p.name() == PROG).ok_or_else(|| Error::Missing(format!("program {PROG}")))?;
        ctx(Xdp::new(prog.as_fd()).attach(ifindex, XdpFlags::SKB_MODE), format!("bpf_xdp_attach(ifindex {ifindex}, SKB mode)"))?;
        // From here on drop detaches.
        self.ifindexes.push(ifindex);
        Ok(())
    }

    /// `xsks[queue] = fd`: frames of that queue go to the socket.
    pub fn insert(&self, queue: u32, xsk_fd: RawFd) -> Result<(), Error> {
        let v = xsk_fd as u32;
        ctx(self.xsks.update(&queue.to_ne_bytes(), &v.to_ne_bytes(), MapFlags::ANY), "bpf_map_update_elem(xsks)")
    }

    /// Frames of ringlab's EtherTypes the program has redirected to a
    /// socket so far.
    pub fn seen(&self) -> Result<u64, Error> {
        self.counter(0)
    }

    /// Frames of ringlab's EtherTypes the program has dropped or passed
    /// (an empty XSKMAP entry passes) so far.
    pub fn not_redirected(&self) -> Result<u64, Error> {
        self.counter(1)
    }

    /// Frames bpf_redirect_xsk() sent by the fast path and by the fallback
    /// so far.
    pub fn paths(&self) -> Result<Paths, Error> {
        Ok(Paths { fast_path: self.counter(2)?, fallback: self.counter(3)? })
    }

    fn counter(&self, k: u32) -> Result<u64, Error> {
        let mut v = [0u8; 8];
        let found = ctx(self.seen.lookup_into(&k.to_ne_bytes(), &mut v, MapFlags::ANY), "bpf_map_lookup_elem(seen)")?;
        if !found {
            return Err(Error::Missing(format!("entry {k} in map seen")));
        }
        Ok(u64::from_ne_bytes(v))
    }

    /// Empties `xsks[queue]` (ENOENT when already empty is fine).
    pub fn remove(&self, queue: u32) {
        let _ = self.xsks.delete(&queue.to_ne_bytes());
    }
}

impl XdpProg {
    /// Leaves the program attached when dropped, for a device whose
    /// namespace is removed next: the removal deletes the device and
    /// detaches it, without a netlink round trip under the RTNL lock each.
    pub fn leave_attached(&mut self) {
        self.detach = false;
    }
}

impl Drop for XdpProg {
    fn drop(&mut self) {
        if !self.detach {
            return;
        }
        if let Some(prog) = self.obj.progs().find(|p| p.name() == PROG) {
            for i in &self.ifindexes {
                let _ = Xdp::new(prog.as_fd()).detach(*i, XdpFlags::SKB_MODE);
            }
        }
    }
}
