//! Generic netlink messages as bytes, built and read by hand: the netdev
//! family's attributes (nested queue lists, NLA_UINT counters, extack) are
//! simple enough that a typed crate would add more than it saves. Pure
//! functions only, so every format rule is tested on byte buffers.

use std::fmt;

/// Header of every netlink message (include/uapi/linux/netlink.h, struct nlmsghdr).
pub const NLMSG_HDRLEN: usize = 16;
/// Error or acknowledgement (include/uapi/linux/netlink.h).
pub const NLMSG_ERROR: u16 = 2;
/// End of a dump (include/uapi/linux/netlink.h).
pub const NLMSG_DONE: u16 = 3;
/// First type that is not a control message (include/uapi/linux/netlink.h).
pub const NLMSG_MIN_TYPE: u16 = 0x10;
/// A request (include/uapi/linux/netlink.h).
pub const NLM_F_REQUEST: u16 = 0x1;
/// Part of a multi-part reply (include/uapi/linux/netlink.h).
pub const NLM_F_MULTI: u16 = 0x2;
/// Asks for an acknowledgement (include/uapi/linux/netlink.h).
pub const NLM_F_ACK: u16 = 0x4;
/// NLM_F_ROOT | NLM_F_MATCH: a dump (include/uapi/linux/netlink.h).
pub const NLM_F_DUMP: u16 = 0x300;
/// NLMSG_ERROR: the request's payload was not echoed (include/uapi/linux/netlink.h).
pub const NLM_F_CAPPED: u16 = 0x100;
/// NLMSG_ERROR/NLMSG_DONE: extack TLVs follow (include/uapi/linux/netlink.h).
pub const NLM_F_ACK_TLVS: u16 = 0x200;
/// Attribute type flag: a nest (include/uapi/linux/netlink.h).
pub const NLA_F_NESTED: u16 = 1 << 15;
/// Attribute type flag: big-endian payload (include/uapi/linux/netlink.h).
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
/// The type bits of nla_type (include/uapi/linux/netlink.h).
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);
/// Extack: the kernel's error message, a string (include/uapi/linux/netlink.h).
pub const NLMSGERR_ATTR_MSG: u16 = 1;
/// Extack: offset of the offending attribute in the request (include/uapi/linux/netlink.h).
pub const NLMSGERR_ATTR_OFFS: u16 = 2;
/// Extack: type of a missing required attribute (include/uapi/linux/netlink.h).
pub const NLMSGERR_ATTR_MISS_TYPE: u16 = 5;
/// Header of a generic netlink payload, struct genlmsghdr (include/uapi/linux/genetlink.h).
pub const GENL_HDRLEN: usize = 4;

/// Netlink aligns messages and attributes to 4 bytes (NLMSG_ALIGN, NLA_ALIGN).
pub fn align(n: usize) -> usize {
    n.next_multiple_of(4)
}

/// One generic netlink request: nlmsghdr, genlmsghdr, attributes.
pub struct Request {
    buf: Vec<u8>,
}

impl Request {
    pub fn new(family: u16, flags: u16, seq: u32, cmd: u8, version: u8) -> Request {
        let mut buf = Vec::with_capacity(64);
        buf.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_len, set by finish
        buf.extend_from_slice(&family.to_ne_bytes());
        buf.extend_from_slice(&flags.to_ne_bytes());
        buf.extend_from_slice(&seq.to_ne_bytes());
        buf.extend_from_slice(&0u32.to_ne_bytes()); // nlmsg_pid: the kernel fills it
        buf.extend_from_slice(&[cmd, version, 0, 0]);
        Request { buf }
    }

    /// An attribute: nla_len counts the header and the payload, not the
    /// padding that follows.
    pub fn put(&mut self, ty: u16, payload: &[u8]) -> &mut Request {
        self.buf.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
        self.buf.extend_from_slice(&ty.to_ne_bytes());
        self.buf.extend_from_slice(payload);
        self.buf.resize(align(self.buf.len()), 0);
        self
    }

    pub fn put_u8(&mut self, ty: u16, v: u8) -> &mut Request {
        self.put(ty, &[v])
    }

    pub fn put_u32(&mut self, ty: u16, v: u32) -> &mut Request {
        self.put(ty, &v.to_ne_bytes())
    }

    /// A NUL-terminated string (NLA_NUL_STRING and NLA_STRING accept it).
    pub fn put_str(&mut self, ty: u16, s: &str) -> &mut Request {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        self.put(ty, &v)
    }

    /// Opens a nest; its attributes follow until [`Request::end_nest`].
    /// Strictly validated families want NLA_F_NESTED on it.
    pub fn begin_nest(&mut self, ty: u16) -> usize {
        let at = self.buf.len();
        self.buf.extend_from_slice(&0u16.to_ne_bytes());
        self.buf.extend_from_slice(&(ty | NLA_F_NESTED).to_ne_bytes());
        at
    }

    pub fn end_nest(&mut self, at: usize) -> &mut Request {
        let len = (self.buf.len() - at) as u16;
        self.buf[at..at + 2].copy_from_slice(&len.to_ne_bytes());
        self
    }

    pub fn finish(mut self) -> Vec<u8> {
        let len = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&len.to_ne_bytes());
        self.buf
    }
}

/// One message of a datagram; `payload` follows the nlmsghdr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Msg<'a> {
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    pub payload: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The messages of one received datagram, in order.
pub fn messages(buf: &[u8]) -> Result<Vec<Msg<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let rest = &buf[at..];
        if rest.len() < NLMSG_HDRLEN {
            return Err(format!("{} stray bytes after the last message at offset {at}", rest.len()));
        }
        let len = u32_at(rest, 0) as usize;
        if len < NLMSG_HDRLEN || len > rest.len() {
            return Err(format!("message at offset {at} says nlmsg_len {len}, {} bytes left", rest.len()));
        }
        out.push(Msg { ty: u16_at(rest, 4), flags: u16_at(rest, 6), seq: u32_at(rest, 8), payload: &rest[NLMSG_HDRLEN..len] });
        at += align(len);
    }
    Ok(out)
}

/// The attributes in `buf` as (type without the flag bits, payload).
pub fn attrs(buf: &[u8]) -> Result<Vec<(u16, &[u8])>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let rest = &buf[at..];
        if rest.len() < 4 {
            return Err(format!("{} stray bytes after the last attribute at offset {at}", rest.len()));
        }
        let len = u16_at(rest, 0) as usize;
        if len < 4 || len > rest.len() {
            return Err(format!("attribute at offset {at} says nla_len {len}, {} bytes left", rest.len()));
        }
        out.push((u16_at(rest, 2) & NLA_TYPE_MASK, &rest[4..len]));
        at += align(len);
    }
    Ok(out)
}

pub fn as_u16(p: &[u8]) -> Result<u16, String> {
    let b: [u8; 2] = p.try_into().map_err(|_| format!("{}-byte payload for a u16", p.len()))?;
    Ok(u16::from_ne_bytes(b))
}

pub fn as_u32(p: &[u8]) -> Result<u32, String> {
    let b: [u8; 4] = p.try_into().map_err(|_| format!("{}-byte payload for a u32", p.len()))?;
    Ok(u32::from_ne_bytes(b))
}

/// NLA_UINT: the kernel sends 4 bytes when the value fits, 8 otherwise.
pub fn as_uint(p: &[u8]) -> Result<u64, String> {
    match p.len() {
        4 => Ok(as_u32(p)? as u64),
        8 => Ok(u64::from_ne_bytes(p.try_into().expect("8 bytes"))),
        n => Err(format!("{n}-byte payload for an NLA_UINT")),
    }
}

/// A string attribute, up to its NUL.
pub fn as_str(p: &[u8]) -> String {
    let end = p.iter().position(|&b| b == 0).unwrap_or(p.len());
    String::from_utf8_lossy(&p[..end]).into_owned()
}

/// A refusal: the errno and what the extended ack said about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusal {
    /// Positive errno.
    pub errno: i32,
    /// NLMSGERR_ATTR_MSG.
    pub msg: Option<String>,
    /// NLMSGERR_ATTR_OFFS: where in the request the offending attribute starts.
    pub bad_offset: Option<u32>,
    /// NLMSGERR_ATTR_MISS_TYPE: a required attribute that was not there.
    pub missing: Option<u32>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The C library's wording (strerror), without std's "(os error N)".
        let text = std::io::Error::from_raw_os_error(self.errno).to_string();
        let text = text.strip_suffix(&format!(" (os error {})", self.errno)).unwrap_or(&text);
        match nix::errno::Errno::from_raw(self.errno) {
            nix::errno::Errno::UnknownErrno => write!(f, "errno {} ({text})", self.errno)?,
            e => write!(f, "{e:?} ({text})")?,
        }
        match &self.msg {
            Some(m) => write!(f, ", kernel says: {m:?}")?,
            None => write!(f, ", no extack message")?,
        }
        if let Some(t) = self.missing {
            write!(f, ", missing attribute type {t}")?;
        }
        if let Some(o) = self.bad_offset {
            write!(f, ", offending attribute at byte {o} of the request")?;
        }
        Ok(())
    }
}

/// The extack TLVs (NLMSGERR_ATTR_*) of an error or done message.
fn extack(errno: i32, tlvs: &[u8]) -> Result<Refusal, String> {
    let mut r = Refusal { errno, ..Refusal::default() };
    for (ty, p) in attrs(tlvs)? {
        match ty {
            NLMSGERR_ATTR_MSG => r.msg = Some(as_str(p)),
            NLMSGERR_ATTR_OFFS => r.bad_offset = Some(as_u32(p)?),
            NLMSGERR_ATTR_MISS_TYPE => r.missing = Some(as_u32(p)?),
            _ => {}
        }
    }
    Ok(r)
}

/// An NLMSG_ERROR payload: `None` for an acknowledgement (error 0),
/// else the refusal. After the errno comes the request's header, its
/// payload too unless NLM_F_CAPPED, then the TLVs if NLM_F_ACK_TLVS.
pub fn parse_error(flags: u16, payload: &[u8]) -> Result<Option<Refusal>, String> {
    if payload.len() < 4 + NLMSG_HDRLEN {
        return Err(format!("NLMSG_ERROR of {} bytes, less than struct nlmsgerr", payload.len()));
    }
    let error = u32_at(payload, 0) as i32;
    if error == 0 {
        return Ok(None);
    }
    let mut refusal = Refusal { errno: -error, ..Refusal::default() };
    if flags & NLM_F_ACK_TLVS != 0 {
        let echoed = if flags & NLM_F_CAPPED != 0 { NLMSG_HDRLEN } else { u32_at(payload, 4) as usize };
        let at = align(4 + echoed);
        if at > payload.len() {
            return Err(format!("NLMSG_ERROR echoes a {echoed}-byte request but has {} bytes", payload.len()));
        }
        refusal = extack(-error, &payload[at..])?;
    }
    Ok(Some(refusal))
}

/// An NLMSG_DONE payload: `None` when the dump completed, else why not.
pub fn parse_done(flags: u16, payload: &[u8]) -> Result<Option<Refusal>, String> {
    // Old kernels may send an empty NLMSG_DONE: a completed dump.
    if payload.len() < 4 {
        return Ok(None);
    }
    let error = u32_at(payload, 0) as i32;
    if error == 0 {
        return Ok(None);
    }
    let tlvs = if flags & NLM_F_ACK_TLVS != 0 { &payload[4..] } else { &[][..] };
    extack(-error, tlvs).map(Some)
}

/// Where an exchange stands after a datagram.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// More datagrams to come.
    More,
    /// Acknowledged, or the dump is complete.
    Done,
    Refused(Refusal),
}

/// Reads one datagram of the replies to request `seq`: each data message's
/// payload (genlmsghdr and attributes) goes to `out`; messages of other
/// requests are skipped.
pub fn absorb(datagram: &[u8], seq: u32, out: &mut Vec<Vec<u8>>) -> Result<Step, String> {
    for m in messages(datagram)? {
        if m.seq != seq {
            continue;
        }
        match m.ty {
            NLMSG_ERROR => {
                return Ok(match parse_error(m.flags, m.payload)? {
                    None => Step::Done,
                    Some(r) => Step::Refused(r),
                })
            }
            NLMSG_DONE => {
                return Ok(match parse_done(m.flags, m.payload)? {
                    None => Step::Done,
                    Some(r) => Step::Refused(r),
                })
            }
            t if t >= NLMSG_MIN_TYPE => out.push(m.payload.to_vec()),
            // NLMSG_NOOP, NLMSG_OVERRUN: nothing to keep.
            _ => {}
        }
    }
    Ok(Step::More)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A message as the kernel would send it.
    pub fn msg(ty: u16, flags: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((NLMSG_HDRLEN + payload.len()) as u32).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(&flags.to_ne_bytes());
        v.extend_from_slice(&seq.to_ne_bytes());
        v.extend_from_slice(&0u32.to_ne_bytes());
        v.extend_from_slice(payload);
        v.resize(align(v.len()), 0);
        v
    }

    pub fn attr(ty: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(payload);
        v.resize(align(v.len()), 0);
        v
    }

    /// NLMSG_ERROR for `request` with `errno`, echoing it unless `capped`.
    pub fn error(seq: u32, errno: i32, request: &[u8], capped: bool, tlvs: &[u8]) -> Vec<u8> {
        let mut p = (-errno).to_ne_bytes().to_vec();
        p.extend_from_slice(if capped { &request[..NLMSG_HDRLEN] } else { request });
        p.resize(align(p.len()), 0);
        p.extend_from_slice(tlvs);
        let mut flags = if capped { NLM_F_CAPPED } else { 0 };
        if !tlvs.is_empty() {
            flags |= NLM_F_ACK_TLVS;
        }
        msg(NLMSG_ERROR, flags, seq, &p)
    }

    #[test]
    fn attributes_are_padded_but_their_length_is_not() {
        let mut r = Request::new(0x20, NLM_F_REQUEST, 7, 13, 1);
        r.put_u8(9, 1).put_str(2, "netdev").put_u32(3, 0xdead_beef);
        let b = r.finish();
        assert_eq!(b.len(), 16 + 4 + 8 + 12 + 8);
        assert_eq!(u32_at(&b, 0) as usize, b.len());
        assert_eq!(&b[16..20], &[13, 1, 0, 0]);
        // u8: nla_len 5, three bytes of padding.
        assert_eq!(&b[20..28], &[5, 0, 9, 0, 1, 0, 0, 0]);
        // "netdev\0": nla_len 11, one byte of padding.
        assert_eq!(u16_at(&b, 28), 11);
        assert_eq!(&b[32..40], b"netdev\0\0");
        let a = attrs(&b[20..]).unwrap();
        assert_eq!(a, vec![(9, &[1u8][..]), (2, &b"netdev\0"[..]), (3, &0xdead_beefu32.to_ne_bytes()[..])]);
        assert_eq!(as_str(a[1].1), "netdev");
    }

    #[test]
    fn nests_carry_the_flag_and_cover_their_contents() {
        let mut r = Request::new(0x20, NLM_F_REQUEST, 1, 13, 1);
        let n = r.begin_nest(2);
        r.put_u32(1, 5).put_u32(3, 0);
        r.end_nest(n);
        let b = r.finish();
        let top = attrs(&b[20..]).unwrap();
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].0, 2, "NLA_F_NESTED masked off");
        assert_eq!(u16_at(&b, 22), 2 | NLA_F_NESTED);
        assert_eq!(u16_at(&b, 20), 4 + 8 + 8);
        let inner = attrs(top[0].1).unwrap();
        assert_eq!(inner, vec![(1, &5u32.to_ne_bytes()[..]), (3, &0u32.to_ne_bytes()[..])]);
    }

    #[test]
    fn bad_lengths_are_errors_not_panics() {
        assert!(attrs(&[8, 0, 1, 0, 0, 0]).unwrap_err().contains("nla_len 8"));
        assert!(attrs(&[3, 0, 1, 0]).unwrap_err().contains("nla_len 3"));
        assert!(attrs(&[1, 2]).unwrap_err().contains("stray"));
        let mut m = msg(0x20, 0, 1, &[0; 8]);
        m[0] = 200;
        assert!(messages(&m).unwrap_err().contains("nlmsg_len 200"));
        assert!(as_u32(&[1, 2]).is_err());
        assert_eq!(as_uint(&7u32.to_ne_bytes()), Ok(7));
        assert_eq!(as_uint(&(1u64 << 40).to_ne_bytes()), Ok(1 << 40));
        assert!(as_uint(&[0; 2]).is_err());
    }

    #[test]
    fn an_ack_ends_a_request() {
        let req = Request::new(0x20, NLM_F_REQUEST | NLM_F_ACK, 4, 1, 1).finish();
        let mut d = msg(0x20, 0, 4, &[1, 1, 0, 0, 8, 0, 4, 0, 42, 0, 0, 0]);
        d.extend(error(4, 0, &req, true, &[]));
        let mut out = Vec::new();
        assert_eq!(absorb(&d, 4, &mut out), Ok(Step::Done));
        assert_eq!(out.len(), 1);
        assert_eq!(attrs(&out[0][GENL_HDRLEN..]).unwrap(), vec![(4, &42u32.to_ne_bytes()[..])]);
    }

    #[test]
    fn errors_with_and_without_extack() {
        let mut r = Request::new(0x20, NLM_F_REQUEST | NLM_F_ACK, 9, 13, 1);
        r.put_u32(1, 3).put_u32(3, 7);
        let req = r.finish();
        let tlvs = [attr(NLMSGERR_ATTR_MSG, b"rxq 5 is not a valid queue\0"), attr(NLMSGERR_ATTR_OFFS, &24u32.to_ne_bytes())]
            .concat();
        for capped in [true, false] {
            let mut out = Vec::new();
            let Step::Refused(r) = absorb(&error(9, libc::EINVAL, &req, capped, &tlvs), 9, &mut out).unwrap() else {
                panic!("not refused");
            };
            assert_eq!(r.errno, libc::EINVAL);
            assert_eq!(r.msg.as_deref(), Some("rxq 5 is not a valid queue"));
            assert_eq!(r.bad_offset, Some(24));
            assert_eq!(
                r.to_string(),
                "EINVAL (Invalid argument), kernel says: \"rxq 5 is not a valid queue\", \
                 offending attribute at byte 24 of the request"
            );
        }
        let plain = error(9, libc::EOPNOTSUPP, &req, false, &[]);
        let Step::Refused(r) = absorb(&plain, 9, &mut Vec::new()).unwrap() else { panic!("not refused") };
        assert_eq!(r, Refusal { errno: libc::EOPNOTSUPP, ..Refusal::default() });
        assert_eq!(r.to_string(), "EOPNOTSUPP (Operation not supported), no extack message");
        let missing = error(9, libc::EINVAL, &req, true, &attr(NLMSGERR_ATTR_MISS_TYPE, &3u32.to_ne_bytes()));
        let Step::Refused(r) = absorb(&missing, 9, &mut Vec::new()).unwrap() else { panic!("not refused") };
        assert_eq!(r.to_string(), "EINVAL (Invalid argument), no extack message, missing attribute type 3");
        // put_cmsg_notrunc()'s ETOOSMALL is kernel-internal: no name in libc.
        let odd = Refusal { errno: 525, ..Refusal::default() };
        assert_eq!(odd.to_string(), "errno 525 (Unknown error 525), no extack message");
    }

    #[test]
    fn a_dump_spans_datagrams_until_done() {
        let item = |id: u32| msg(0x20, NLM_F_MULTI, 5, &[&[1, 1, 0, 0][..], &attr(1, &id.to_ne_bytes())].concat());
        let first = [item(1), item(2)].concat();
        let second = [item(3), msg(NLMSG_DONE, NLM_F_MULTI, 5, &0i32.to_ne_bytes())].concat();
        let mut out = Vec::new();
        assert_eq!(absorb(&first, 5, &mut out), Ok(Step::More));
        // A stray reply to an earlier request is not ours.
        assert_eq!(absorb(&msg(0x20, 0, 4, &[1, 1, 0, 0]), 5, &mut out), Ok(Step::More));
        assert_eq!(absorb(&second, 5, &mut out), Ok(Step::Done));
        let ids: Vec<u32> = out.iter().map(|p| as_u32(attrs(&p[GENL_HDRLEN..]).unwrap()[0].1).unwrap()).collect();
        assert_eq!(ids, vec![1, 2, 3]);
    }

    #[test]
    fn a_failed_dump_reports_its_errno_and_message() {
        let p = [&(-libc::ENODEV).to_ne_bytes()[..], &attr(NLMSGERR_ATTR_MSG, b"gone\0")].concat();
        let done = msg(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS, 5, &p);
        let Step::Refused(r) = absorb(&done, 5, &mut Vec::new()).unwrap() else { panic!("not refused") };
        assert_eq!((r.errno, r.msg.as_deref()), (libc::ENODEV, Some("gone")));
        assert_eq!(absorb(&msg(NLMSG_DONE, NLM_F_MULTI, 5, &[]), 5, &mut Vec::new()), Ok(Step::Done));
    }
}
