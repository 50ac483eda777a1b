//! Whole receives, as one CPU runs them without stopping between the
//! spec's steps: what loom's threads call. The stepped system (system.rs) takes the same objects through
//! the same kernel functions one spec action at a time.

use ringlab_model::xsk_rx::{Buf, Cpu, Fate, Pkt};

use super::cost::Cost;
use super::cpu::PerCpu;
use super::lock::SpinLock;
use super::pool::Pool;
use super::sock::XdpSock;

/// __xsk_rcv() of packet p of `len` chunks into `sock`: the whole-packet
/// checks of a packet of several chunks, xsk_buff_alloc() of each chunk,
/// the copy, xskq_prod_reserve_desc() of each descriptor. The caller
/// runs the queue's poll or holds the socket's rx lock. Returns the
/// packet's fate and whether anything went on the ring.
pub fn xsk_rcv(pool: &Pool, sock: &XdpSock, p: Pkt, len: u8) -> Fate {
    let n = u32::from(len);
    if len > 1 {
        if !pool.xp_can_alloc(n) {
            sock.bump_dropped();
            return Fate::RxDropped;
        }
        if sock.rx_nb_free(n) < n {
            sock.bump_queue_full();
            return Fate::RxQueueFull;
        }
    }
    let mut bufs: Vec<Buf> = Vec::with_capacity(usize::from(len));
    for _ in 0..len {
        match pool.xsk_buff_alloc() {
            Some(b) => bufs.push(b),
            None => {
                // Only a single chunk gets here: the check above saw
                // every chunk of a longer packet.
                pool.xsk_buff_free(&bufs);
                sock.bump_dropped();
                return Fate::RxDropped;
            }
        }
    }
    for &b in &bufs {
        pool.copy(b, p);
    }
    let k = sock.reserve_descs(&bufs);
    pool.xsk_buff_free(&bufs[k..]);
    if k == 0 {
        sock.bump_queue_full();
        Fate::RxQueueFull
    } else {
        Fate::Rx
    }
}

/// xsk_rcv() then __xsk_map_redirect()'s list_add(): the driver path, in
/// the poll of CPU `cpu`.
pub fn xsk_map_redirect(
    pool: &Pool,
    sock: &XdpSock,
    cpu: &PerCpu,
    p: Pkt,
    len: u8,
    cost: &mut Cost,
) -> Fate {
    let f = xsk_rcv(pool, sock, p, len);
    if f == Fate::Rx {
        cpu.list(sock.id, cost);
    }
    f
}

/// The lock xsk_generic_rcv() takes for `sock`: pool->rx_lock
/// (mutant-xsk-gen-rx-race: the socket's own xs->rx_lock, as before
/// CVE-2025-37920's fix).
pub fn rx_lock<'a>(pool: &'a Pool, sock: &'a XdpSock) -> &'a SpinLock {
    if ringlab_mutant::on("mutant-xsk-gen-rx-race") {
        &sock.rx_lock
    } else {
        &pool.rx_lock
    }
}

/// xsk_generic_rcv() on CPU c: under `lock` (pool->rx_lock; the socket's
/// own under xsk-gen-rx-race), __xsk_rcv() then xsk_flush(): the rx
/// producer and the fill ring's consumer published.
pub fn xsk_generic_rcv(
    pool: &Pool,
    sock: &XdpSock,
    lock: &SpinLock,
    c: Cpu,
    p: Pkt,
    len: u8,
) -> Fate {
    lock.lock(c);
    let f = xsk_rcv(pool, sock, p, len);
    sock.rx_submit();
    pool.fq_release();
    lock.unlock(c);
    f
}

/// xdp_do_flush() at the end of CPU `cpu`'s poll: __xsk_map_flush() of
/// every listed socket (`sock(s)`), then the fill ring's consumer.
pub fn xdp_do_flush<'a>(
    pool: &Pool,
    cpu: &PerCpu,
    sock: impl Fn(u8) -> &'a XdpSock,
    cost: &mut Cost,
) {
    if ringlab_mutant::on("mutant-xdp-missing-flush") {
        return;
    }
    let todo = cpu.take_list(cost);
    for &s in &todo {
        sock(s).rx_submit();
    }
    if !todo.is_empty() {
        pool.fq_release();
    }
}
