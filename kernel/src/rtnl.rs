//! rtnetlink requests, as `ip link` makes them, on a socket of the calling
//! thread's namespace: the veth pair and its links up; moving a link to
//! another namespace and giving it an address.

use std::fs::File;
use std::io;
use std::net::IpAddr;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use netlink_packet_core::{NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REQUEST};
use netlink_packet_route::link::{InfoData, InfoKind, InfoVeth, LinkAttribute, LinkFlags, LinkInfo, LinkMessage, State};
use netlink_packet_route::address::{AddressAttribute, AddressHeaderFlags, AddressMessage};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};
use netlink_sys::{protocols::NETLINK_ROUTE, Socket};

use crate::sandbox::Error;

pub struct Rtnl {
    sock: Socket,
    seq: u32,
}

fn named(name: &str) -> LinkMessage {
    let mut m = LinkMessage::default();
    m.attributes.push(LinkAttribute::IfName(name.into()));
    m
}

impl Rtnl {
    pub fn open() -> Result<Rtnl, Error> {
        let err = |source| Error::Netlink { what: "socket(NETLINK_ROUTE)".into(), source };
        let mut sock = Socket::new(NETLINK_ROUTE).map_err(err)?;
        sock.bind_auto().map_err(err)?;
        Ok(Rtnl { sock, seq: 0 })
    }

    /// `ip link add A type veth peer name B`.
    pub fn add_veth(&mut self, a: &str, b: &str) -> Result<(), Error> {
        let mut m = named(a);
        let peer = InfoData::Veth(InfoVeth::Peer(named(b)));
        m.attributes.push(LinkAttribute::LinkInfo(vec![LinkInfo::Kind(InfoKind::Veth), LinkInfo::Data(peer)]));
        self.request(RouteNetlinkMessage::NewLink(m), NLM_F_CREATE | NLM_F_EXCL)
            .map_err(|source| Error::Netlink { what: format!("RTM_NEWLINK veth {a} peer {b}"), source })?;
        Ok(())
    }

    /// `ip link set NAME up`.
    pub fn set_up(&mut self, name: &str) -> Result<(), Error> {
        let mut m = named(name);
        m.header.flags = LinkFlags::Up;
        m.header.change_mask = LinkFlags::Up;
        self.request(RouteNetlinkMessage::SetLink(m), 0)
            .map_err(|source| Error::Netlink { what: format!("RTM_SETLINK {name} up"), source })?;
        Ok(())
    }

    /// `ip link set NAME netns NS`, NS an open namespace file
    /// (/run/netns/NS, /proc/PID/ns/net).
    pub fn set_netns(&mut self, name: &str, netns: &File) -> Result<(), Error> {
        let mut m = named(name);
        m.attributes.push(LinkAttribute::NetNsFd(netns.as_raw_fd()));
        self.request(RouteNetlinkMessage::SetLink(m), 0)
            .map_err(|source| Error::Netlink { what: format!("RTM_SETLINK {name} netns"), source })?;
        Ok(())
    }

    /// `ip addr add ADDR/PREFIX dev NAME`, IPv6 with `nodad` so that the
    /// address is usable at once.
    pub fn add_addr(&mut self, name: &str, addr: IpAddr, prefix: u8) -> Result<(), Error> {
        let mut m = AddressMessage::default();
        m.header.index = crate::sandbox::Sandbox::ifindex(name)?;
        m.header.prefix_len = prefix;
        m.header.family = if addr.is_ipv4() { AddressFamily::Inet } else { AddressFamily::Inet6 };
        if addr.is_ipv6() {
            m.header.flags = AddressHeaderFlags::Nodad;
        }
        m.attributes.push(AddressAttribute::Local(addr));
        m.attributes.push(AddressAttribute::Address(addr));
        self.request(RouteNetlinkMessage::NewAddress(m), NLM_F_CREATE | NLM_F_EXCL).map_err(|source| {
            // The kernel's EACCES for a link whose IPv6 is switched off.
            let why = if addr.is_ipv6() && source.raw_os_error() == Some(libc::EACCES) { " (disable_ipv6 set?)" } else { "" };
            Error::Netlink { what: format!("RTM_NEWADDR {addr}/{prefix} dev {name}{why}"), source }
        })?;
        Ok(())
    }

    /// Waits until the operational state of `name` is up: the kernel's link
    /// watch has seen the carrier and given the device its qdisc, so that
    /// frames sent from now on are not dropped.
    pub fn wait_up(&mut self, name: &str, timeout: Duration) -> Result<(), Error> {
        self.wait_for(name, timeout, |m| m.attributes.contains(&LinkAttribute::OperState(State::Up)))
    }

    /// Waits until `name` has its carrier (IFF_LOWER_UP), for a driver
    /// that leaves the operational state "unknown" (netdevsim).
    pub fn wait_carrier(&mut self, name: &str, timeout: Duration) -> Result<(), Error> {
        self.wait_for(name, timeout, |m| m.header.flags.contains(LinkFlags::LowerUp))
    }

    fn wait_for(&mut self, name: &str, timeout: Duration, up: impl Fn(&LinkMessage) -> bool) -> Result<(), Error> {
        let start = Instant::now();
        loop {
            let reply = self
                .request(RouteNetlinkMessage::GetLink(named(name)), 0)
                .map_err(|source| Error::Netlink { what: format!("RTM_GETLINK {name}"), source })?;
            if matches!(&reply, Some(RouteNetlinkMessage::NewLink(m)) if up(m)) {
                return Ok(());
            }
            if start.elapsed() > timeout {
                return Err(Error::NotUp(name.into(), timeout));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Sends `msg` and waits for its acknowledgement: the reply to it, if
    /// any, or the errno.
    fn request(&mut self, msg: RouteNetlinkMessage, flags: u16) -> io::Result<Option<RouteNetlinkMessage>> {
        self.seq += 1;
        let mut header = NetlinkHeader::default();
        header.flags = NLM_F_REQUEST | NLM_F_ACK | flags;
        header.sequence_number = self.seq;
        let mut req = NetlinkMessage::new(header, NetlinkPayload::from(msg));
        req.finalize();
        let mut buf = vec![0u8; req.buffer_len()];
        req.serialize(&mut buf);
        self.sock.send(&buf, 0)?;
        let mut buf = vec![0u8; 32768];
        let mut reply = None;
        loop {
            let n = self.sock.recv(&mut &mut buf[..], 0)?;
            let mut at = 0;
            while at < n {
                let msg = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&buf[at..n]).map_err(io::Error::other)?;
                // Messages start 4-byte aligned (NLMSG_ALIGN).
                at += (msg.header.length as usize).max(1).next_multiple_of(4);
                if msg.header.sequence_number != self.seq {
                    continue;
                }
                match msg.payload {
                    NetlinkPayload::InnerMessage(m) => reply = Some(m),
                    NetlinkPayload::Error(e) if e.code.is_none() => return Ok(reply),
                    NetlinkPayload::Error(e) => return Err(e.to_io()),
                    _ => {}
                }
            }
        }
    }
}
