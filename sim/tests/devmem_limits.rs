//! SO_DEVMEM_DONTNEED's per-call limits at the kernel's values
//! (net/core/sock.c, listed in specs/thresholds.json), each reached and
//! crossed: MAX_DONTNEED_TOKENS dmabuf_tokens, MAX_DONTNEED_FRAGS tokens
//! examined, and the batch of 16 net_iovs put with the xarray's lock
//! dropped. The spec's models scale the second down and leave the others
//! out; here they run as the simulator has them.
#![cfg(not(loom))]

use ringlab_sim::devmem::config::KERNEL_DONTNEED_LIMIT;
use ringlab_sim::devmem::{
    Action, Devmem, DevmemConfig, DmabufToken, DontneedError, Mode, Niov, Sock, MAX_DONTNEED_TOKENS,
};

const S: Sock = Sock { b: 0, i: 0 };

/// One binding of `mode` with `n` net_iovs and one socket, which has
/// received a token for each (ids 0 .. n - 1 in xarray mode).
fn holding(mode: Mode, n: u8) -> Devmem {
    let mut sys = Devmem::new(DevmemConfig::new(&[mode], 1, 1, n, 1)).unwrap();
    sys.step(&Action::BindRx { b: 0, m: mode }).unwrap();
    for i in 0..n {
        sys.step(&Action::RxFrag { s: S, n: Niov { b: 0, i } }).unwrap();
        sys.step(&Action::RecvMsg { s: S, told: true }).unwrap();
    }
    sys
}

fn token(start: u32, count: u32) -> DmabufToken {
    DmabufToken { token_start: start, token_count: count }
}

/// netmems[16]: xarray mode puts the net_iovs it erased 16 at a time with
/// the lock dropped, then takes the lock again; the rest are put after the
/// loop. 15 tokens: one lock. 16 and 17: the lock dropped and taken again
/// once. 33: twice.
#[test]
fn dontneed_puts_in_batches_of_16() {
    for (n, locks) in [(15u8, 1u64), (16, 2), (17, 2), (33, 3)] {
        let mut sys = holding(Mode::Xarray, n);
        let before = sys.cost.xa_lock;
        let r = sys.dontneed_tokens(S, &[token(0, u32::from(n))]).unwrap();
        assert_eq!(r.freed.len(), usize::from(n), "{n} tokens");
        assert_eq!(sys.cost.xa_lock - before, locks, "{n} tokens");
    }
}

/// MAX_DONTNEED_TOKENS: 128 dmabuf_tokens are taken, 129 are -EINVAL with
/// nothing released.
#[test]
fn dontneed_takes_at_most_128_dmabuf_tokens() {
    assert_eq!(MAX_DONTNEED_TOKENS, 128);
    let mut sys = holding(Mode::Xarray, 2);
    let mut cost = sys.cost;
    let many = |k: usize| (0..k).map(|j| token(j as u32 % 2, 1)).collect::<Vec<_>>();
    let e = sys.socks[0].devmem_dontneed(&many(129), KERNEL_DONTNEED_LIMIT, &mut cost).unwrap_err();
    assert_eq!(e, DontneedError::TooMany);
    let r = sys.dontneed_tokens(S, &many(128)).unwrap();
    assert_eq!((r.examined, r.freed.len()), (128, 2));
}

/// MAX_DONTNEED_FRAGS: one call examines at most 1024 tokens, whatever the
/// dmabuf_tokens ask for; a token past the 1024th stays the application's.
#[test]
fn dontneed_examines_at_most_max_dontneed_frags() {
    assert_eq!(KERNEL_DONTNEED_LIMIT, 1024);
    // 1020 empty ids, then the 4 held: exactly 1024 examined, all freed.
    let mut sys = holding(Mode::Xarray, 4);
    let r = sys.dontneed_tokens(S, &[token(100, 1020), token(0, 4)]).unwrap();
    assert_eq!((r.examined, r.freed), (1024, vec![0, 1, 2, 3]));
    // One more empty id in front: the 1025th token, id 3, is not examined.
    let mut sys = holding(Mode::Xarray, 4);
    let r = sys.dontneed_tokens(S, &[token(100, 1021), token(0, 4)]).unwrap();
    assert_eq!((r.examined, r.freed), (1024, vec![0, 1, 2]));
    let r = sys.dontneed_tokens(S, &[token(3, 1)]).unwrap();
    assert_eq!(r.freed, vec![3], "id 3 was still held");
    // Array mode counts the same way.
    let mut sys = holding(Mode::Array, 4);
    let r = sys.dontneed_tokens(S, &[token(100, 1021), token(0, 4)]).unwrap();
    assert_eq!((r.examined, r.freed.len()), (1024, 3));
}
