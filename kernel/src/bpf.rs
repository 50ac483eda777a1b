//! The XDP program (bpf/xsk_redirect.bpf.c, compiled by build.rs) loaded
//! with libbpf-rs and attached in SKB (generic) mode; detached on drop.

use std::os::fd::{AsFd, RawFd};

use libbpf_rs::{MapCore, MapFlags, MapHandle, Object, ObjectBuilder, Xdp, XdpFlags};

const PROG: &str = "xsk_redirect";

/// The compiled program (build.rs), inside the binary so that it runs
/// where the build folder is not, such as in the test VM; ELF wants its
/// headers aligned.
#[repr(C, align(8))]
struct Aligned<T: ?Sized>(T);
static XDP_OBJ: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("RINGLAB_XDP_OBJ")));

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
    ifindex: i32,
    /// XSKMAP: queue -> AF_XDP socket.
    xsks: MapHandle,
    /// ARRAY of two u64: frames of ringlab's EtherTypes redirected, and
    /// dropped or passed.
    seen: MapHandle,
}

impl XdpProg {
    /// Loads the program and attaches it in SKB mode to `ifindex` (of the
    /// calling thread's namespace).
    pub fn attach(ifindex: u32) -> Result<XdpProg, Error> {
        let buf = &XDP_OBJ.0;
        let open = ctx(ObjectBuilder::default().open_memory(buf), format!("opening {PROG}.bpf.o ({} bytes)", buf.len()))?;
        let obj = ctx(open.load(), format!("loading {PROG}.bpf.o"))?;
        let map = |name: &str| {
            let m = obj.maps().find(|m| m.name() == name).ok_or_else(|| Error::Missing(format!("map {name}")))?;
            ctx(MapHandle::try_from(&m), format!("map {name}"))
        };
        let (xsks, seen) = (map("xsks")?, map("seen")?);
        let ifindex = ifindex as i32;
        {
            let prog = obj.progs().find(|p| p.name() == PROG).ok_or_else(|| Error::Missing(format!("program {PROG}")))?;
            let xdp = Xdp::new(prog.as_fd());
            ctx(xdp.attach(ifindex, XdpFlags::SKB_MODE), format!("bpf_xdp_attach(ifindex {ifindex}, SKB mode)"))?;
        }
        // From here on drop detaches.
        Ok(XdpProg { obj, ifindex, xsks, seen })
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

impl Drop for XdpProg {
    fn drop(&mut self) {
        if let Some(prog) = self.obj.progs().find(|p| p.name() == PROG) {
            let _ = Xdp::new(prog.as_fd()).detach(self.ifindex, XdpFlags::SKB_MODE);
        }
    }
}
