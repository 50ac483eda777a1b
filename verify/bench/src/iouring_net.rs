//! The path the datagrams take, set up inside the bench's own namespace
//! (ringlab-kernel's sandbox): veth end `a` holds 10.77.0.1/24, the
//! destination 10.77.0.2 has a permanent neighbour entry, and the peer `b`
//! drops every frame (iouring_drop.rs). Both ends get veth's largest MTU,
//! as the seed gave dummy0 `mtu 65536`: a 4096-byte datagram is one skb,
//! not IP fragments. Plain ioctls: no iproute2 needed.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;

use super::iouring_drop::{self, PeerDrop};

pub const SRC: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
pub const DST: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 77, 0, 2), 9);
/// veth's max_mtu (ETH_MAX_MTU).
const MTU: i32 = 65535;
/// The neighbour's address: locally administered and not `b`'s, so that
/// without the tcx drop `b` still drops the frames, as PACKET_OTHERHOST in
/// ip_rcv_core(), without a route lookup or an ICMP error.
const NEIGH_MAC: [u8; 6] = [0x02, 0x72, 0x6c, 0x00, 0x00, 0x02];
const ATF_COM: i32 = 0x02;
const ATF_PERM: i32 = 0x04;

/// How the peer drops what it receives.
pub enum Drop {
    /// tcx ingress, TC_ACT_SHOT (the one meant).
    Tcx(PeerDrop),
    /// PACKET_OTHERHOST in ip_rcv_core(), where tcx cannot attach; the
    /// peer's skb_orphan_frags_rx() copies zero-copy frags first.
    OtherHost(String),
}

impl Drop {
    pub fn describe(&self) -> String {
        match self {
            Drop::Tcx(_) => "the peer drops each frame at tcx ingress (a BPF TC_ACT_SHOT), before IP, so zero-copy frags are never copied (the nearest to the seed's dummy_xmit)".into(),
            Drop::OtherHost(why) => format!(
                "the peer drops each frame in ip_rcv_core() as PACKET_OTHERHOST (tcx drop unavailable: {why}); zero-copy frags are copied by skb_orphan_frags_rx() first"
            ),
        }
    }
}

fn ifreq(name: &str) -> io::Result<libc::ifreq> {
    // Safety: ifreq is plain data; all zero is a valid value.
    let mut r: libc::ifreq = unsafe { zeroed() };
    if name.len() >= r.ifr_name.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("interface name {name} too long")));
    }
    for (d, s) in r.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    Ok(r)
}

fn ioctl<T>(fd: i32, req: libc::c_ulong, arg: &mut T, what: &str) -> Result<(), String> {
    // Safety: arg is the structure `req` reads or writes.
    if unsafe { libc::ioctl(fd, req as _, arg as *mut T) } < 0 {
        return Err(format!("{what}: {}", io::Error::last_os_error()));
    }
    Ok(())
}

fn sockaddr(ip: Ipv4Addr) -> libc::sockaddr {
    let sin = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr { s_addr: u32::from(ip).to_be() },
        sin_zero: [0; 8],
    };
    // Safety: sockaddr_in and sockaddr are both 16 bytes of plain data.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(sin) }
}

/// Sets up the path on the calling thread's namespace: MTUs, the address,
/// the neighbour, the peer's drop.
pub fn setup(a: &str, b: &str, b_ifindex: u32) -> Result<Drop, String> {
    let sock = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).map_err(|e| format!("a socket for the interface ioctls: {e}"))?;
    let fd = sock.as_raw_fd();
    let err = |e: io::Error| e.to_string();
    for dev in [a, b] {
        let mut r = ifreq(dev).map_err(err)?;
        r.ifr_ifru.ifru_mtu = MTU;
        ioctl(fd, libc::SIOCSIFMTU, &mut r, &format!("SIOCSIFMTU {MTU} on {dev}"))?;
    }
    let mut r = ifreq(a).map_err(err)?;
    r.ifr_ifru.ifru_addr = sockaddr(SRC);
    ioctl(fd, libc::SIOCSIFADDR, &mut r, &format!("SIOCSIFADDR {SRC} on {a}"))?;
    let mut r = ifreq(a).map_err(err)?;
    r.ifr_ifru.ifru_netmask = sockaddr(Ipv4Addr::new(255, 255, 255, 0));
    ioctl(fd, libc::SIOCSIFNETMASK, &mut r, &format!("SIOCSIFNETMASK /24 on {a}"))?;
    let mut r = ifreq(b).map_err(err)?;
    ioctl(fd, libc::SIOCGIFHWADDR, &mut r, &format!("SIOCGIFHWADDR of {b}"))?;
    // Safety: SIOCGIFHWADDR filled ifru_hwaddr.
    let b_mac: Vec<u8> = unsafe { r.ifr_ifru.ifru_hwaddr.sa_data[..6].iter().map(|c| *c as u8).collect() };
    let mut mac = NEIGH_MAC;
    if b_mac == mac {
        mac[5] ^= 1;
    }
    // Safety: arpreq is plain data; all zero is valid.
    let mut arp: libc::arpreq = unsafe { zeroed() };
    arp.arp_pa = sockaddr(*DST.ip());
    arp.arp_ha.sa_family = libc::ARPHRD_ETHER;
    for (d, s) in arp.arp_ha.sa_data.iter_mut().zip(mac) {
        *d = s as libc::c_char;
    }
    arp.arp_flags = ATF_PERM | ATF_COM;
    for (d, s) in arp.arp_dev.iter_mut().zip(a.bytes()) {
        *d = s as libc::c_char;
    }
    ioctl(fd, libc::SIOCSARP, &mut arp, &format!("SIOCSARP {} on {a}", DST.ip()))?;
    Ok(match iouring_drop::attach(b_ifindex) {
        Ok(d) => Drop::Tcx(d),
        Err(e) => Drop::OtherHost(e),
    })
}

/// A UDP socket connected to the destination: the route and neighbour are
/// looked up once, as the seed's sender did.
pub fn connected() -> Result<UdpSocket, String> {
    let s = UdpSocket::bind((SRC, 0)).map_err(|e| format!("UDP socket on {SRC}: {e}"))?;
    s.connect(DST).map_err(|e| format!("connect to {DST}: {e}"))?;
    Ok(s)
}

/// SO_ZEROCOPY (asm-generic/socket.h), which libc does not name.
pub const SO_ZEROCOPY: i32 = 60;

/// setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, 1).
pub fn set_zerocopy(s: &UdpSocket) -> Result<(), String> {
    let one: i32 = 1;
    // Safety: an int option of the right size.
    let r = unsafe {
        libc::setsockopt(s.as_raw_fd(), libc::SOL_SOCKET, SO_ZEROCOPY, &one as *const i32 as *const _, size_of::<i32>() as u32)
    };
    if r < 0 {
        return Err(format!("setsockopt SO_ZEROCOPY: {}", io::Error::last_os_error()));
    }
    Ok(())
}
