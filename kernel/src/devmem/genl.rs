//! The "netdev" generic netlink family as ncdevmem uses it: NETDEV_CMD_BIND_RX
//! binds a dma-buf to RX queues for as long as the requesting socket lives,
//! and NETDEV_CMD_PAGE_POOL_GET shows the page pools the binding feeds.
//! Requests are built and replies read by [`super::netlink`]'s pure
//! functions; this file only adds the socket.

use std::os::fd::RawFd;

use netlink_sys::Socket;

use super::error::Error;
use super::netlink::{
    absorb, as_u16, as_u32, as_uint, attrs, Refusal, Request, Step, GENL_HDRLEN, NLM_F_ACK, NLM_F_DUMP, NLM_F_REQUEST,
};

/// Generic netlink's protocol number (include/uapi/linux/netlink.h).
const NETLINK_GENERIC: isize = 16;
/// The controller family's fixed id (include/uapi/linux/genetlink.h, = NLMSG_MIN_TYPE).
const GENL_ID_CTRL: u16 = 0x10;
/// Look a family up by name (include/uapi/linux/genetlink.h).
const CTRL_CMD_GETFAMILY: u8 = 3;
/// u16 family id (include/uapi/linux/genetlink.h).
const CTRL_ATTR_FAMILY_ID: u16 = 1;
/// NUL-terminated family name (include/uapi/linux/genetlink.h).
const CTRL_ATTR_FAMILY_NAME: u16 = 2;
/// Version the controller reports since 2.6 (net/netlink/genetlink.c); the kernel ignores ours.
const CTRL_VERSION: u8 = 2;

/// include/uapi/linux/netdev.h.
pub const NETDEV_FAMILY_NAME: &str = "netdev";
/// include/uapi/linux/netdev.h.
const NETDEV_FAMILY_VERSION: u8 = 1;
/// Dump of every page pool (include/uapi/linux/netdev.h).
const NETDEV_CMD_PAGE_POOL_GET: u8 = 5;
/// Bind a dma-buf to RX queues (include/uapi/linux/netdev.h).
const NETDEV_CMD_BIND_RX: u8 = 13;
/// u32; the kernel reads it as NETDEV_A_DEV_IFINDEX, also 1 (include/uapi/linux/netdev.h).
pub const NETDEV_A_DMABUF_IFINDEX: u16 = 1;
/// One nest per queue, repeated at top level (include/uapi/linux/netdev.h).
pub const NETDEV_A_DMABUF_QUEUES: u16 = 2;
/// u32 dma-buf fd (include/uapi/linux/netdev.h).
pub const NETDEV_A_DMABUF_FD: u16 = 3;
/// u32 binding id, in the reply (include/uapi/linux/netdev.h).
pub const NETDEV_A_DMABUF_ID: u16 = 4;
/// u8 0 or 1, the devmem-autorelease series only (its include/uapi/linux/netdev.h).
pub const NETDEV_A_DMABUF_AUTORELEASE: u16 = 5;
/// u32 queue index (include/uapi/linux/netdev.h).
pub const NETDEV_A_QUEUE_ID: u16 = 1;
/// u32 enum netdev_queue_type (include/uapi/linux/netdev.h).
pub const NETDEV_A_QUEUE_TYPE: u16 = 3;
/// include/uapi/linux/netdev.h, enum netdev_queue_type.
pub const NETDEV_QUEUE_TYPE_RX: u32 = 0;
/// NLA_UINT (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_ID: u16 = 1;
/// u32, absent for loopback's pools (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_IFINDEX: u16 = 2;
/// NLA_UINT, absent when the pool has no NAPI (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_NAPI_ID: u16 = 3;
/// NLA_UINT pages handed out and not yet returned (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_INFLIGHT: u16 = 4;
/// NLA_UINT bytes of those pages (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_INFLIGHT_MEM: u16 = 5;
/// NLA_UINT seconds (boot time) the device went away, absent while attached (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_DETACH_TIME: u16 = 6;
/// u32 id of the binding providing the memory (include/uapi/linux/netdev.h).
const NETDEV_A_PAGE_POOL_DMABUF: u16 = 7;

/// A generic netlink socket with extended acks on, and its sequence numbers.
struct Conn {
    sock: Socket,
    seq: u32,
}

impl Conn {
    fn open() -> Result<Conn, Error> {
        let err = |what: &'static str| move |e| Error::sys(format!("{what} on a NETLINK_GENERIC socket"), e);
        let mut sock = Socket::new(NETLINK_GENERIC).map_err(err("socket"))?;
        sock.bind_auto().map_err(err("bind"))?;
        // The kernel's reason for a refusal comes only as extack TLVs; capped
        // acks leave out the echo of our request.
        sock.set_ext_ack(true).map_err(err("setsockopt(NETLINK_EXT_ACK)"))?;
        sock.set_cap_ack(true).map_err(err("setsockopt(NETLINK_CAP_ACK)"))?;
        Ok(Conn { sock, seq: 0 })
    }

    fn next_seq(&mut self) -> u32 {
        self.seq += 1;
        self.seq
    }

    /// Sends request `seq` and gathers the payloads of its replies up to
    /// the acknowledgement or the end of the dump.
    fn exchange(&mut self, what: &str, req: &[u8], seq: u32) -> Result<Result<Vec<Vec<u8>>, Refusal>, Error> {
        self.sock.send(req, 0).map_err(|e| Error::sys(format!("send {what}"), e))?;
        let mut buf = vec![0u8; 1 << 16];
        let mut out = Vec::new();
        loop {
            let n = match self.sock.recv(&mut &mut buf[..], libc::MSG_TRUNC) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => r.map_err(|e| Error::sys(format!("recv {what}"), e))?,
            };
            if n > buf.len() {
                let detail = format!("a {n}-byte datagram, more than the {}-byte buffer", buf.len());
                return Err(Error::Malformed { what: what.into(), detail });
            }
            match absorb(&buf[..n], seq, &mut out).map_err(|detail| Error::Malformed { what: what.into(), detail })? {
                Step::More => {}
                Step::Done => return Ok(Ok(out)),
                Step::Refused(r) => return Ok(Err(r)),
            }
        }
    }

    /// The id of generic netlink family `name`.
    fn family(&mut self, name: &str) -> Result<u16, Error> {
        let seq = self.next_seq();
        let mut req = Request::new(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, seq, CTRL_CMD_GETFAMILY, CTRL_VERSION);
        req.put_str(CTRL_ATTR_FAMILY_NAME, name);
        let what = format!("CTRL_CMD_GETFAMILY {name}");
        let replies = self.exchange(&what, &req.finish(), seq)?.map_err(|r| refused(&what, r))?;
        let bad = |detail: String| Error::Malformed { what: what.clone(), detail };
        for p in &replies {
            for (ty, v) in attrs(genl_attrs(p).map_err(bad)?).map_err(bad)? {
                if ty == CTRL_ATTR_FAMILY_ID {
                    return as_u16(v).map_err(bad);
                }
            }
        }
        Err(bad("no CTRL_ATTR_FAMILY_ID".into()))
    }
}

/// A refusal where none is expected, as an error naming the request.
fn refused(what: &str, refusal: Refusal) -> Error {
    Error::Refused { what: what.into(), refusal }
}

/// The attributes after a generic netlink payload's genlmsghdr.
fn genl_attrs(payload: &[u8]) -> Result<&[u8], String> {
    payload.get(GENL_HDRLEN..).ok_or_else(|| format!("{}-byte payload, no genlmsghdr", payload.len()))
}

/// A socket of the netdev family.
pub struct Netdev {
    conn: Conn,
    family: u16,
}

impl Netdev {
    pub fn open() -> Result<Netdev, Error> {
        let mut conn = Conn::open()?;
        let family = conn.family(NETDEV_FAMILY_NAME)?;
        Ok(Netdev { conn, family })
    }

    pub fn family_id(&self) -> u16 {
        self.family
    }

    /// Every page pool of the calling thread's namespace (NETDEV_CMD_PAGE_POOL_GET dump).
    pub fn page_pools(&mut self) -> Result<Vec<PagePool>, Error> {
        let seq = self.conn.next_seq();
        let req = Request::new(self.family, NLM_F_REQUEST | NLM_F_DUMP, seq, NETDEV_CMD_PAGE_POOL_GET, NETDEV_FAMILY_VERSION);
        let what = "NETDEV_CMD_PAGE_POOL_GET dump";
        let replies = self.conn.exchange(what, &req.finish(), seq)?.map_err(|r| refused(what, r))?;
        replies
            .iter()
            .map(|p| parse_page_pool(p).map_err(|detail| Error::Malformed { what: what.into(), detail }))
            .collect()
    }

    /// NETDEV_CMD_BIND_RX on this socket, which the binding then owns: the
    /// kernel unbinds when the socket closes.
    pub fn bind_rx(
        mut self,
        ifindex: u32,
        dmabuf_fd: RawFd,
        rx_queues: &[u32],
        autorelease: Option<u8>,
    ) -> Result<Binding, BindError> {
        let seq = self.conn.next_seq();
        let req = bind_rx_request(self.family, seq, ifindex, dmabuf_fd, rx_queues, autorelease);
        let what = "NETDEV_CMD_BIND_RX";
        let replies = self.conn.exchange(what, &req, seq)?.map_err(BindError::Refused)?;
        let bad = |detail: String| BindError::Setup(Error::Malformed { what: what.into(), detail });
        let id = replies.first().ok_or_else(|| bad("acknowledged without a reply".into()))?;
        let id = parse_bind_reply(id).map_err(bad)?;
        Ok(Binding { _sock: self.conn.sock, id, ifindex, rx_queues: rx_queues.to_vec() })
    }
}

/// `NETDEV_CMD_BIND_RX`: ifindex, fd, then one NETDEV_A_DMABUF_QUEUES nest
/// per queue (the kernel walks them at top level), and the autorelease u8
/// only when asked for: kernels without the series reject unknown attributes.
pub fn bind_rx_request(
    family: u16,
    seq: u32,
    ifindex: u32,
    dmabuf_fd: RawFd,
    rx_queues: &[u32],
    autorelease: Option<u8>,
) -> Vec<u8> {
    let mut req = Request::new(family, NLM_F_REQUEST | NLM_F_ACK, seq, NETDEV_CMD_BIND_RX, NETDEV_FAMILY_VERSION);
    req.put_u32(NETDEV_A_DMABUF_IFINDEX, ifindex).put_u32(NETDEV_A_DMABUF_FD, dmabuf_fd as u32);
    for &q in rx_queues {
        let nest = req.begin_nest(NETDEV_A_DMABUF_QUEUES);
        req.put_u32(NETDEV_A_QUEUE_ID, q).put_u32(NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
        req.end_nest(nest);
    }
    if let Some(a) = autorelease {
        req.put_u8(NETDEV_A_DMABUF_AUTORELEASE, a);
    }
    req.finish()
}

/// The binding id of a NETDEV_CMD_BIND_RX reply.
pub fn parse_bind_reply(payload: &[u8]) -> Result<u32, String> {
    for (ty, v) in attrs(genl_attrs(payload)?)? {
        if ty == NETDEV_A_DMABUF_ID {
            return as_u32(v);
        }
    }
    Err("no NETDEV_A_DMABUF_ID in the reply".into())
}

/// A dma-buf bound to RX queues. Dropping it closes the socket that made
/// the binding, and the kernel unbinds.
pub struct Binding {
    _sock: Socket,
    id: u32,
    ifindex: u32,
    rx_queues: Vec<u32>,
}

impl Binding {
    /// The kernel's id of the binding: `dmabuf_id` in SCM_DEVMEM_DMABUF
    /// and NETDEV_A_PAGE_POOL_DMABUF.
    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    pub fn rx_queues(&self) -> &[u32] {
        &self.rx_queues
    }
}

impl std::fmt::Debug for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binding").field("id", &self.id).field("ifindex", &self.ifindex).field("rx_queues", &self.rx_queues).finish()
    }
}

/// Why NETDEV_CMD_BIND_RX gave no binding: the kernel refused it (errno and
/// its extack message, shown word for word), or the socket could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("NETDEV_CMD_BIND_RX refused: {0}")]
    Refused(Refusal),
    #[error(transparent)]
    Setup(#[from] Error),
}

impl BindError {
    /// The kernel's errno (positive) when it refused.
    pub fn errno(&self) -> Option<i32> {
        match self {
            BindError::Refused(r) => Some(r.errno),
            BindError::Setup(_) => None,
        }
    }

    /// The kernel's extack message, if it gave one.
    pub fn extack(&self) -> Option<&str> {
        match self {
            BindError::Refused(r) => r.msg.as_deref(),
            BindError::Setup(_) => None,
        }
    }
}

/// `Netdev::open()?.bind_rx(..)`: a socket of its own for the binding.
pub fn bind_rx(ifindex: u32, dmabuf_fd: RawFd, rx_queues: &[u32], autorelease: Option<u8>) -> Result<Binding, BindError> {
    Netdev::open()?.bind_rx(ifindex, dmabuf_fd, rx_queues, autorelease)
}

/// `Netdev::open()?.page_pools()`.
pub fn page_pools() -> Result<Vec<PagePool>, Error> {
    Netdev::open()?.page_pools()
}

/// One page pool as 6.12's page_pool_nl_fill() reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PagePool {
    pub id: u32,
    /// Absent for pools of loopback.
    pub ifindex: Option<u32>,
    pub napi_id: Option<u32>,
    /// Pages out of the pool (in flight), and their bytes.
    pub inflight: Option<u64>,
    pub inflight_mem: Option<u64>,
    /// Set once the device is gone while pages were still in flight.
    pub detach_time: Option<u64>,
    /// The binding providing the pool's memory.
    pub dmabuf: Option<u32>,
}

/// One message of a NETDEV_CMD_PAGE_POOL_GET dump.
pub fn parse_page_pool(payload: &[u8]) -> Result<PagePool, String> {
    let mut id = None;
    let mut p = PagePool::default();
    let narrow = |what: &str, v: u64| u32::try_from(v).map_err(|_| format!("{what} {v} does not fit in a u32"));
    for (ty, v) in attrs(genl_attrs(payload)?)? {
        match ty {
            NETDEV_A_PAGE_POOL_ID => id = Some(narrow("page pool id", as_uint(v)?)?),
            NETDEV_A_PAGE_POOL_IFINDEX => p.ifindex = Some(as_u32(v)?),
            NETDEV_A_PAGE_POOL_NAPI_ID => p.napi_id = Some(narrow("napi id", as_uint(v)?)?),
            NETDEV_A_PAGE_POOL_INFLIGHT => p.inflight = Some(as_uint(v)?),
            NETDEV_A_PAGE_POOL_INFLIGHT_MEM => p.inflight_mem = Some(as_uint(v)?),
            NETDEV_A_PAGE_POOL_DETACH_TIME => p.detach_time = Some(as_uint(v)?),
            NETDEV_A_PAGE_POOL_DMABUF => p.dmabuf = Some(as_u32(v)?),
            // Newer kernels add attributes; older ones lack some.
            _ => {}
        }
    }
    p.id = id.ok_or("page pool without NETDEV_A_PAGE_POOL_ID")?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::super::netlink::tests::{attr, error, msg};
    use super::super::netlink::{messages, NLMSG_DONE, NLMSG_HDRLEN, NLM_F_MULTI, NLA_F_NESTED};
    use super::*;

    fn u32s(a: &[(u16, &[u8])]) -> Vec<(u16, u32)> {
        a.iter().map(|&(t, v)| (t, as_u32(v).unwrap())).collect()
    }

    #[test]
    fn bind_rx_request_has_one_nest_per_queue() {
        let b = bind_rx_request(0x1c, 3, 7, 11, &[2, 5], None);
        let m = messages(&b).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].ty, m[0].flags, m[0].seq), (0x1c, NLM_F_REQUEST | NLM_F_ACK, 3));
        assert_eq!(&m[0].payload[..2], &[NETDEV_CMD_BIND_RX, NETDEV_FAMILY_VERSION]);
        let top = attrs(&m[0].payload[GENL_HDRLEN..]).unwrap();
        let types: Vec<u16> = top.iter().map(|a| a.0).collect();
        assert_eq!(types, vec![NETDEV_A_DMABUF_IFINDEX, NETDEV_A_DMABUF_FD, NETDEV_A_DMABUF_QUEUES, NETDEV_A_DMABUF_QUEUES]);
        assert_eq!(u32s(&top[..2]), vec![(NETDEV_A_DMABUF_IFINDEX, 7), (NETDEV_A_DMABUF_FD, 11)]);
        for (nest, q) in top[2..].iter().zip([2, 5]) {
            let inner = attrs(nest.1).unwrap();
            assert_eq!(u32s(&inner), vec![(NETDEV_A_QUEUE_ID, q), (NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX)]);
        }
        // The nest flag is on the wire (strict validation wants it).
        let first_nest = NLMSG_HDRLEN + GENL_HDRLEN + 8 + 8;
        assert_eq!(u16::from_ne_bytes([b[first_nest + 2], b[first_nest + 3]]), NETDEV_A_DMABUF_QUEUES | NLA_F_NESTED);
    }

    #[test]
    fn autorelease_is_sent_only_when_asked_for() {
        let without = bind_rx_request(0x1c, 1, 7, 11, &[0], None);
        let with = bind_rx_request(0x1c, 1, 7, 11, &[0], Some(0));
        assert_eq!(with.len(), without.len() + 8);
        let m = messages(&with).unwrap();
        let top = attrs(&m[0].payload[GENL_HDRLEN..]).unwrap();
        assert_eq!(top.last(), Some(&(NETDEV_A_DMABUF_AUTORELEASE, &[0u8][..])));
        let m = messages(&without).unwrap();
        assert!(attrs(&m[0].payload[GENL_HDRLEN..]).unwrap().iter().all(|a| a.0 != NETDEV_A_DMABUF_AUTORELEASE));
    }

    #[test]
    fn bind_reply_and_refusal() {
        let reply = [&[NETDEV_CMD_BIND_RX, 1, 0, 0][..], &attr(NETDEV_A_DMABUF_ID, &9u32.to_ne_bytes())].concat();
        assert_eq!(parse_bind_reply(&reply), Ok(9));
        assert!(parse_bind_reply(&[NETDEV_CMD_BIND_RX, 1, 0, 0]).unwrap_err().contains("NETDEV_A_DMABUF_ID"));
        let req = bind_rx_request(0x1c, 4, 7, 11, &[0], Some(1));
        let tlv = attr(1, b"unable to bind dmabuf to device with XDP program attached\0");
        let Step::Refused(r) = absorb(&error(4, libc::EEXIST, &req, true, &tlv), 4, &mut Vec::new()).unwrap() else {
            panic!("not refused")
        };
        assert_eq!(
            BindError::Refused(r).to_string(),
            "NETDEV_CMD_BIND_RX refused: EEXIST (File exists), kernel says: \
             \"unable to bind dmabuf to device with XDP program attached\""
        );
    }

    /// The controller answers any socket, root or not.
    #[test]
    fn an_unknown_family_is_named() {
        let e = Conn::open().and_then(|mut c| c.family("ringlab-none")).unwrap_err().to_string();
        assert_eq!(
            e,
            "CTRL_CMD_GETFAMILY ringlab-none refused: ENOENT (No such file or directory), no extack message \
             (no such generic netlink family in this kernel)"
        );
    }

    #[test]
    fn page_pools_of_a_dump() {
        let pool = |id: u32, extra: &[Vec<u8>]| {
            let mut p = vec![NETDEV_CMD_PAGE_POOL_GET, 1, 0, 0];
            p.extend(attr(NETDEV_A_PAGE_POOL_ID, &id.to_ne_bytes()));
            for a in extra {
                p.extend_from_slice(a);
            }
            msg(0x1c, NLM_F_MULTI, 2, &p)
        };
        let full = [
            attr(NETDEV_A_PAGE_POOL_IFINDEX, &3u32.to_ne_bytes()),
            attr(NETDEV_A_PAGE_POOL_NAPI_ID, &8193u32.to_ne_bytes()),
            attr(NETDEV_A_PAGE_POOL_INFLIGHT, &5u32.to_ne_bytes()),
            attr(NETDEV_A_PAGE_POOL_INFLIGHT_MEM, &(5u64 << 32).to_ne_bytes()),
            attr(NETDEV_A_PAGE_POOL_DETACH_TIME, &77u32.to_ne_bytes()),
            attr(NETDEV_A_PAGE_POOL_DMABUF, &1u32.to_ne_bytes()),
            attr(99, &[1, 2, 3]),
        ];
        let d = [pool(4, &full), pool(5, &[]), msg(NLMSG_DONE, NLM_F_MULTI, 2, &0i32.to_ne_bytes())].concat();
        let mut out = Vec::new();
        assert_eq!(absorb(&d, 2, &mut out), Ok(Step::Done));
        let pools: Vec<PagePool> = out.iter().map(|p| parse_page_pool(p).unwrap()).collect();
        let want = PagePool {
            id: 4,
            ifindex: Some(3),
            napi_id: Some(8193),
            inflight: Some(5),
            inflight_mem: Some(5 << 32),
            detach_time: Some(77),
            dmabuf: Some(1),
        };
        assert_eq!(pools, vec![want, PagePool { id: 5, ..PagePool::default() }]);
        assert!(parse_page_pool(&[5, 1, 0, 0]).unwrap_err().contains("NETDEV_A_PAGE_POOL_ID"));
        let wide = [&[5u8, 1, 0, 0][..], &attr(NETDEV_A_PAGE_POOL_ID, &(1u64 << 33).to_ne_bytes())].concat();
        assert!(parse_page_pool(&wide).unwrap_err().contains("does not fit"));
    }
}
