//! The receiving side of devmem TCP: recvmsg(MSG_SOCK_DEVMEM) copies what
//! arrived in the skb's linear part into our buffer and describes every
//! payload frag left in the dma-buf with an SCM_DEVMEM_DMABUF cmsg whose
//! token we must give back (SO_DEVMEM_DONTNEED) before the memory is reused.

use std::io;
use std::os::fd::RawFd;

/// recvmsg flag: accept devmem skbs, described as cmsgs (include/linux/socket.h, 6.12).
pub const MSG_SOCK_DEVMEM: libc::c_int = 0x0200_0000;
/// cmsg type, SOL_SOCKET: bytes copied to the buffer, in a struct dmabuf_cmsg's frag_size (include/uapi/asm-generic/socket.h).
pub const SCM_DEVMEM_LINEAR: libc::c_int = 78;
/// cmsg type, SOL_SOCKET: one frag in the dma-buf, a struct dmabuf_cmsg (include/uapi/asm-generic/socket.h).
pub const SCM_DEVMEM_DMABUF: libc::c_int = 79;
/// setsockopt, SOL_SOCKET: give back token ranges, struct dmabuf_token[] (include/uapi/asm-generic/socket.h).
pub const SO_DEVMEM_DONTNEED: libc::c_int = 80;
/// Kernel-internal errno put_cmsg_notrunc() returns when a cmsg does not fit (include/linux/errno.h).
const ETOOSMALL: i32 = 525;
/// Token ranges SO_DEVMEM_DONTNEED takes per call, more is EINVAL (net/core/sock.c MAX_DONTNEED_TOKENS).
pub const MAX_DONTNEED_TOKENS: usize = 128;
/// sizeof(struct dmabuf_cmsg) (include/uapi/linux/uio.h).
const DMABUF_CMSG_LEN: usize = 24;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const _: () = {
    assert!(SCM_DEVMEM_LINEAR == libc::SCM_DEVMEM_LINEAR);
    assert!(SCM_DEVMEM_DMABUF == libc::SCM_DEVMEM_DMABUF);
    assert!(SO_DEVMEM_DONTNEED == libc::SO_DEVMEM_DONTNEED);
};

/// cmsghdr is a size_t length and two ints; cmsgs start size_t-aligned (CMSG_ALIGN).
const CMSG_HDR: usize = std::mem::size_of::<libc::cmsghdr>();
const _: () = assert!(CMSG_HDR == 2 * std::mem::size_of::<usize>());

fn cmsg_align(n: usize) -> usize {
    n.next_multiple_of(std::mem::size_of::<usize>())
}

/// Room for this many SCM_DEVMEM_DMABUF cmsgs per call (ncdevmem's buffer holds about as many).
const CTRL_CMSGS: usize = 2048;
const CTRL_LEN: usize = CTRL_CMSGS * (CMSG_HDR + DMABUF_CMSG_LEN);

/// One frag in the dma-buf (struct dmabuf_cmsg, include/uapi/linux/uio.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmabufFrag {
    /// Where the frag starts in the dma-buf.
    pub offset: u64,
    pub size: u32,
    /// To give back with SO_DEVMEM_DONTNEED.
    pub token: u32,
    pub dmabuf_id: u32,
    /// Reserved, 0 in 6.12.
    pub flags: u32,
}

/// What one recvmsg(MSG_SOCK_DEVMEM) got.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    /// Bytes placed in the caller's buffer: the SCM_DEVMEM_LINEAR parts and
    /// any skb that was not devmem (those come without a cmsg).
    pub linear: usize,
    pub frags: Vec<DmabufFrag>,
    /// The peer closed: recvmsg returned 0.
    pub eof: bool,
    /// Other cmsgs, as (level, type), passed over.
    pub other: Vec<(i32, i32)>,
}

/// The cmsgs of one call.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cmsgs {
    /// Sum of the SCM_DEVMEM_LINEAR lengths.
    pub linear: u64,
    pub frags: Vec<DmabufFrag>,
    pub other: Vec<(i32, i32)>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// A struct dmabuf_cmsg payload.
fn dmabuf_cmsg(what: &str, p: &[u8]) -> Result<DmabufFrag, String> {
    if p.len() < DMABUF_CMSG_LEN {
        return Err(format!("{what} payload of {} bytes, less than struct dmabuf_cmsg ({DMABUF_CMSG_LEN})", p.len()));
    }
    Ok(DmabufFrag {
        offset: u64::from_ne_bytes(p[..8].try_into().expect("8 bytes")),
        size: u32_at(p, 8),
        token: u32_at(p, 12),
        dmabuf_id: u32_at(p, 16),
        flags: u32_at(p, 20),
    })
}

/// The cmsgs of `ctrl` (msg_controllen bytes). SCM_DEVMEM_LINEAR carries
/// its length in a struct dmabuf_cmsg's frag_size, the rest zero.
pub fn parse_cmsgs(ctrl: &[u8]) -> Result<Cmsgs, String> {
    let mut out = Cmsgs::default();
    let mut at = 0;
    while at < ctrl.len() {
        let rest = &ctrl[at..];
        if rest.len() < CMSG_HDR {
            return Err(format!("truncated cmsg header at offset {at}: {} bytes", rest.len()));
        }
        let len = usize::from_ne_bytes(rest[..std::mem::size_of::<usize>()].try_into().expect("size_t"));
        let level = u32_at(rest, CMSG_HDR - 8) as i32;
        let ty = u32_at(rest, CMSG_HDR - 4) as i32;
        if len < CMSG_HDR || len > rest.len() {
            return Err(format!("truncated cmsg at offset {at}: cmsg_len {len}, {} bytes left", rest.len()));
        }
        let data = &rest[CMSG_HDR..len];
        match (level, ty) {
            (libc::SOL_SOCKET, SCM_DEVMEM_LINEAR) => out.linear += dmabuf_cmsg("SCM_DEVMEM_LINEAR", data)?.size as u64,
            (libc::SOL_SOCKET, SCM_DEVMEM_DMABUF) => out.frags.push(dmabuf_cmsg("SCM_DEVMEM_DMABUF", data)?),
            other => out.other.push(other),
        }
        at += cmsg_align(len).min(rest.len());
    }
    Ok(out)
}

/// One recvmsg(MSG_SOCK_DEVMEM) on TCP socket `fd`. `linear_buf`'s length
/// bounds all the bytes of the call, the frags' included, as recv's length
/// does.
pub fn recv_devmem(fd: RawFd, linear_buf: &mut [u8]) -> io::Result<Received> {
    if linear_buf.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "recv_devmem: an empty buffer receives nothing"));
    }
    // u64s: the control buffer must be aligned for cmsghdr.
    let mut ctrl = vec![0u64; CTRL_LEN / 8];
    let mut iov = libc::iovec { iov_base: linear_buf.as_mut_ptr().cast(), iov_len: linear_buf.len() };
    // Safety: all zeroes is an empty msghdr.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctrl.as_mut_ptr().cast();
    msg.msg_controllen = CTRL_LEN as _;
    // Safety: msg points at live buffers of the lengths given.
    let n = unsafe { libc::recvmsg(fd, &mut msg, MSG_SOCK_DEVMEM) };
    if n < 0 {
        let e = io::Error::last_os_error();
        let why = match e.raw_os_error() {
            Some(ETOOSMALL) => "the control buffer has no room for the next cmsg (ETOOSMALL)".to_string(),
            Some(libc::EFAULT) => format!("{e} (devmem data on a socket not receiving with MSG_SOCK_DEVMEM?)"),
            _ => e.to_string(),
        };
        return Err(io::Error::new(e.kind(), format!("recvmsg(MSG_SOCK_DEVMEM) on fd {fd}: {why}")));
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(io::Error::other(format!(
            "recvmsg(MSG_SOCK_DEVMEM) on fd {fd}: MSG_CTRUNC, cmsgs lost past the {CTRL_LEN}-byte control buffer \
             (their tokens stay taken until the socket closes)"
        )));
    }
    // Safety: the kernel wrote msg_controllen bytes of ctrl.
    let bytes = unsafe { std::slice::from_raw_parts(ctrl.as_ptr().cast::<u8>(), msg.msg_controllen as usize) };
    let c = parse_cmsgs(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("recvmsg(MSG_SOCK_DEVMEM) on fd {fd}: {e}")))?;
    received(n as usize, c).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("recvmsg(MSG_SOCK_DEVMEM) on fd {fd}: {e}")))
}

/// recvmsg's return `n` counts the frags' bytes too: the rest went to the buffer.
fn received(n: usize, c: Cmsgs) -> Result<Received, String> {
    let frag_bytes: u64 = c.frags.iter().map(|f| f.size as u64).sum();
    let linear = (n as u64)
        .checked_sub(frag_bytes)
        .ok_or_else(|| format!("returned {n} but its frags hold {frag_bytes} bytes"))?;
    if c.linear > linear {
        return Err(format!("SCM_DEVMEM_LINEAR says {} bytes, but only {linear} reached the buffer", c.linear));
    }
    Ok(Received { linear: linear as usize, frags: c.frags, eof: n == 0, other: c.other })
}

/// struct dmabuf_token (include/uapi/linux/uio.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct DmabufToken {
    token_start: u32,
    token_count: u32,
}

/// setsockopt(SO_DEVMEM_DONTNEED) with the ranges (first token, count):
/// the frags freed, as the kernel counts them.
pub fn dontneed(fd: RawFd, tokens: &[(u32, u32)]) -> io::Result<u32> {
    let v: Vec<DmabufToken> = tokens.iter().map(|&(token_start, token_count)| DmabufToken { token_start, token_count }).collect();
    let len = std::mem::size_of_val(v.as_slice()) as libc::socklen_t;
    // Safety: v holds len bytes of struct dmabuf_token.
    let r = unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, SO_DEVMEM_DONTNEED, v.as_ptr().cast(), len) };
    if r < 0 {
        let e = io::Error::last_os_error();
        let hint = match e.raw_os_error() {
            Some(libc::EINVAL) if tokens.len() > MAX_DONTNEED_TOKENS => " (more than 128 ranges per call)",
            Some(libc::ENOPROTOOPT) => " (kernel without devmem TCP: CONFIG_NET_DEVMEM)",
            Some(libc::EBADF) => " (not a TCP socket)",
            _ => "",
        };
        return Err(io::Error::new(e.kind(), format!("setsockopt(SO_DEVMEM_DONTNEED, {} ranges) on fd {fd}: {e}{hint}", tokens.len())));
    }
    Ok(r as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmsg(level: i32, ty: i32, data: &[u8]) -> Vec<u8> {
        let mut v = (CMSG_HDR + data.len()).to_ne_bytes().to_vec();
        v.extend_from_slice(&level.to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(data);
        v.resize(cmsg_align(v.len()), 0);
        v
    }

    fn dmabuf(offset: u64, size: u32, token: u32, id: u32) -> Vec<u8> {
        [&offset.to_ne_bytes()[..], &size.to_ne_bytes(), &token.to_ne_bytes(), &id.to_ne_bytes(), &0u32.to_ne_bytes()].concat()
    }

    #[test]
    fn linear_then_frags() {
        let ctrl = [
            cmsg(libc::SOL_SOCKET, SCM_DEVMEM_LINEAR, &dmabuf(0, 66, 0, 0)),
            cmsg(libc::SOL_SOCKET, SCM_DEVMEM_DMABUF, &dmabuf(8192, 4096, 3, 1)),
            cmsg(libc::SOL_SOCKET, SCM_DEVMEM_DMABUF, &dmabuf(1 << 33, 1000, 4, 1)),
        ]
        .concat();
        let c = parse_cmsgs(&ctrl).unwrap();
        assert_eq!(c.linear, 66);
        assert_eq!(
            c.frags,
            vec![
                DmabufFrag { offset: 8192, size: 4096, token: 3, dmabuf_id: 1, flags: 0 },
                DmabufFrag { offset: 1 << 33, size: 1000, token: 4, dmabuf_id: 1, flags: 0 },
            ]
        );
        let r = received(66 + 5096, c).unwrap();
        assert_eq!((r.linear, r.frags.len(), r.eof), (66, 2, false));
    }

    #[test]
    fn payloads_are_padded_to_size_t() {
        // A 4-byte payload pads to 8: the next cmsg starts aligned.
        let ctrl = [cmsg(libc::SOL_IP, libc::IP_TTL, &64i32.to_ne_bytes()), cmsg(libc::SOL_SOCKET, SCM_DEVMEM_DMABUF, &dmabuf(0, 1, 2, 3))]
            .concat();
        assert_eq!(ctrl.len(), 24 + 40);
        let c = parse_cmsgs(&ctrl).unwrap();
        assert_eq!(c.other, vec![(libc::SOL_IP, libc::IP_TTL)]);
        assert_eq!(c.frags[0].token, 2);
        // The last cmsg's padding may be left out of msg_controllen.
        let ttl = cmsg(libc::SOL_IP, libc::IP_TTL, &64i32.to_ne_bytes());
        assert_eq!(parse_cmsgs(&ttl[..CMSG_HDR + 4]).unwrap().other.len(), 1);
    }

    #[test]
    fn unknown_types_at_our_level_are_passed_over() {
        let ctrl = cmsg(libc::SOL_SOCKET, 4242, &[1, 2, 3]);
        assert_eq!(parse_cmsgs(&ctrl).unwrap().other, vec![(libc::SOL_SOCKET, 4242)]);
    }

    #[test]
    fn truncation_is_an_error() {
        let full = cmsg(libc::SOL_SOCKET, SCM_DEVMEM_DMABUF, &dmabuf(0, 1, 2, 3));
        assert!(parse_cmsgs(&full[..30]).unwrap_err().contains("cmsg_len 40, 30 bytes left"));
        assert!(parse_cmsgs(&full[..10]).unwrap_err().contains("truncated cmsg header"));
        let short = cmsg(libc::SOL_SOCKET, SCM_DEVMEM_DMABUF, &[0; 12]);
        assert!(parse_cmsgs(&short).unwrap_err().contains("12 bytes, less than struct dmabuf_cmsg"));
        let mut bad = full.clone();
        bad[0] = 3;
        assert!(parse_cmsgs(&bad).unwrap_err().contains("cmsg_len 3"));
        assert_eq!(parse_cmsgs(&[]), Ok(Cmsgs::default()));
    }

    #[test]
    fn counts_must_agree() {
        assert!(received(10, Cmsgs { frags: vec![DmabufFrag { offset: 0, size: 11, token: 0, dmabuf_id: 0, flags: 0 }], ..Cmsgs::default() })
            .unwrap_err()
            .contains("hold 11 bytes"));
        assert!(received(10, Cmsgs { linear: 11, ..Cmsgs::default() }).unwrap_err().contains("says 11 bytes"));
        assert_eq!(received(0, Cmsgs::default()).unwrap(), Received { eof: true, ..Received::default() });
        // A plain (not devmem) skb: bytes in the buffer, no cmsg.
        assert_eq!(received(100, Cmsgs::default()).unwrap().linear, 100);
    }

    #[test]
    fn on_a_plain_socket_the_calls_fail_with_their_names() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        use std::os::fd::AsRawFd;
        let e = dontneed(a.as_raw_fd(), &[(0, 1)]).unwrap_err().to_string();
        assert!(e.contains("SO_DEVMEM_DONTNEED"), "{e}");
        drop(b);
        // recvmsg on a unix socket ignores MSG_SOCK_DEVMEM: the peer is gone.
        assert!(recv_devmem(a.as_raw_fd(), &mut [0; 16]).unwrap().eof);
        assert!(recv_devmem(a.as_raw_fd(), &mut []).is_err());
    }
}
