//! The AF_XDP side of the live benchmark: a copy-mode socket (ringlab-kernel's
//! `Xsk`, whose user side is the simulator's ring code over the kernel's
//! mmap'd rings) sending 64-byte frames as fast as it can: take the
//! completions, submit up to a batch of descriptors, kick with sendto.

use std::io;
use std::time::{Duration, Instant};

use ringlab_kernel::xsk::{Xsk, XskConfig};
use ringlab_ring::XdpDesc;

/// The frame sent: broadcast, a local source address, ringlab's EtherType
/// (the XDP program's), zero padding to 64 bytes.
pub fn frame() -> [u8; 64] {
    let mut f = [0u8; 64];
    f[..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    f[12..14].copy_from_slice(&[0x88, 0xb5]);
    f
}

pub const FRAMES: u32 = 4096;
pub const FRAME_SIZE: u32 = 2048;
pub const TX_SIZE: u32 = 2048;

pub struct XdpSender {
    xsk: Xsk,
    free: Vec<u64>,
    batch: u32,
}

impl XdpSender {
    /// A copy-mode socket on queue 0 of `ifindex` with a 2048-entry tx ring,
    /// 4096 frames (each holding the frame) and a completion ring for all.
    pub fn new(ifindex: u32, batch: u32) -> io::Result<XdpSender> {
        let cfg = XskConfig {
            ifindex,
            queue: 0,
            frames: FRAMES,
            frame_size: FRAME_SIZE,
            headroom: 0,
            fill_size: 2048,
            comp_size: FRAMES,
            rx_size: 0,
            tx_size: TX_SIZE,
            need_wakeup: false,
            sg: false,
        };
        let xsk = Xsk::create(&cfg)?;
        let f = frame();
        let free: Vec<u64> = (0..FRAMES as u64).map(|i| i * FRAME_SIZE as u64).collect();
        for &a in &free {
            xsk.umem.write(a, &f);
        }
        Ok(XdpSender { xsk, free, batch })
    }

    pub fn set_budget(&self, budget: u32) -> io::Result<()> {
        self.xsk.set_tx_budget(budget)
    }

    /// Sends for `dur`: packets completed per second, and per sendto.
    pub fn run(&mut self, dur: Duration) -> io::Result<(f64, f64)> {
        let t0 = Instant::now();
        let (mut done, mut kicks) = (0u64, 0u64);
        while t0.elapsed() < dur {
            let (n, idx) = self.xsk.comp.peek(FRAMES);
            for i in 0..n {
                self.free.push(self.xsk.comp.read(idx.wrapping_add(i)));
            }
            if n > 0 {
                self.xsk.comp.release(n);
                done += n as u64;
            }
            let k = self.batch.min(self.free.len() as u32);
            self.submit(k);
            kicks += 1;
            match self.xsk.kick() {
                Ok(_) => {}
                Err(e) if [libc::EAGAIN, libc::EBUSY, libc::ENOBUFS].contains(&e) => {}
                Err(e) => return Err(io::Error::from_raw_os_error(e)),
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        let stats = self.xsk.stats()?;
        if stats.tx_invalid_descs != 0 {
            return Err(io::Error::other(format!("{} invalid tx descriptors", stats.tx_invalid_descs)));
        }
        Ok((done as f64 / secs, done as f64 / kicks.max(1) as f64))
    }
}

impl XdpSender {
    /// `k` free frames of 64 bytes onto the tx ring, all or none (the
    /// ring full): how many went.
    fn submit(&mut self, k: u32) -> u32 {
        if k == 0 {
            return 0;
        }
        let Some(idx) = self.xsk.tx.as_mut().expect("a tx ring").reserve(k) else { return 0 };
        let tx = self.xsk.tx.as_ref().expect("a tx ring");
        for i in 0..k {
            let addr = self.free.pop().expect("k <= free");
            tx.write(idx.wrapping_add(i), XdpDesc { addr, len: 64, options: 0 });
        }
        tx.submit(k);
        k
    }

    /// XDP_GENERIC_XMIT_BATCH on this socket: the errno when refused
    /// (ENOPROTOOPT: a kernel without the batch series).
    pub fn set_xmit_batch(&self, batch: u32) -> Result<(), i32> {
        ringlab_kernel::txopts::set(self.xsk.fd, ringlab_kernel::sys::XDP_GENERIC_XMIT_BATCH, batch)
    }

    /// Sends exactly `n` frames, up to a batch a sendto, until all `n` are
    /// completed: the time taken and the sendto calls made.
    pub fn send_exact(&mut self, n: u64) -> io::Result<(Duration, u64)> {
        let t0 = Instant::now();
        let (mut sent, mut done, mut kicks) = (0u64, 0u64, 0u64);
        while done < n {
            let (c, idx) = self.xsk.comp.peek(FRAMES);
            for i in 0..c {
                self.free.push(self.xsk.comp.read(idx.wrapping_add(i)));
            }
            if c > 0 {
                self.xsk.comp.release(c);
                done += c as u64;
            }
            let k = (self.batch as u64).min(self.free.len() as u64).min(n - sent) as u32;
            sent += self.submit(k) as u64;
            kicks += 1;
            match self.xsk.kick() {
                Ok(_) => {}
                Err(e) if [libc::EAGAIN, libc::EBUSY, libc::ENOBUFS].contains(&e) => {}
                Err(e) => return Err(io::Error::from_raw_os_error(e)),
            }
        }
        let stats = self.xsk.stats()?;
        if stats.tx_invalid_descs != 0 {
            return Err(io::Error::other(format!("{} invalid tx descriptors", stats.tx_invalid_descs)));
        }
        Ok((t0.elapsed(), kicks))
    }
}

/// The largest budget XDP_MAX_TX_SKB_BUDGET accepts on `s`'s socket, and
/// the error of the next larger: doubling from 32, then bisecting. Err:
/// the option itself is refused (a kernel before 6.17).
pub fn largest_budget(s: &XdpSender) -> io::Result<(u32, String)> {
    s.set_budget(32)?;
    let (mut ok, mut bad) = (32u32, None);
    let mut err = String::new();
    let mut b = 64u32;
    while b <= 1 << 24 {
        match s.set_budget(b) {
            Ok(()) => ok = b,
            Err(e) => {
                bad = Some(b);
                err = e.to_string();
                break;
            }
        }
        b *= 2;
    }
    if let Some(mut hi) = bad {
        while hi - ok > 1 {
            let mid = ok + (hi - ok) / 2;
            match s.set_budget(mid) {
                Ok(()) => ok = mid,
                Err(e) => {
                    hi = mid;
                    err = e.to_string();
                }
            }
        }
    }
    s.set_budget(32)?;
    Ok((ok, err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_is_64_bytes_of_ringlabs_ethertype() {
        let f = frame();
        assert_eq!(f.len(), 64);
        assert_eq!(&f[12..14], &[0x88, 0xb5]);
    }
}
