//! tcp_recvmsg_dmabuf(): one recvmsg() reading one piece of the head skb's
//! devmem frag. The kernel takes a page-pool reference for the
//! application and writes the token in an SO_DEVMEM_DMABUF cmsg:
//!
//! - xarray mode (6.12.117): tcp_xa_pool_refill() reserves the lowest free
//!   id under xa_lock_bh, put_cmsg_notrunc() writes it, the reference is
//!   taken, tcp_xa_pool_commit() stores the net_iov under xa_lock_bh again;
//! - array mode (seed 004): the token is the net_iov's index; the
//!   reference and niov->uref are incremented, no lock, no allocation.
//!
//! An skb whose last piece is read is freed, dropping its own reference.

use std::fmt;

use ringlab_model::devmem::{Mode, Tok};

use super::cost::Cost;
use super::sock::TcpSock;

/// What one recvmsg() handed the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The net_iov's index in the binding.
    pub niov: usize,
    pub token: Tok,
    /// The application learnt the token (mutant dm-cmsg-trunc: maybe not).
    pub told: bool,
}

/// Why recvmsg() handed out nothing; nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvError {
    Closed,
    /// Nothing queued.
    Empty,
    /// Array mode, binding unbound: its cleanup has run and nothing would
    /// release a token handed out now.
    Unbound,
    /// put_cmsg_notrunc(): no room for the cmsg (-EMSGSIZE); the reserved
    /// id is given back.
    CmsgTrunc,
}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecvError::Closed => "the socket is closed",
            RecvError::Empty => "nothing is queued",
            RecvError::Unbound => "array mode and the binding is unbound",
            RecvError::CmsgTrunc => "no room for the cmsg: -EMSGSIZE, nothing changes",
        })
    }
}

impl TcpSock {
    /// put_cmsg_notrunc() of the token's cmsg into a control buffer with
    /// `room` or not. Mutant dm-cmsg-trunc: put_cmsg(), which truncates
    /// silently (MSG_CTRUNC) and lets the receive go on.
    fn put_cmsg(room: bool) -> Result<bool, RecvError> {
        if room {
            Ok(true)
        } else if ringlab_mutant::on("mutant-dm-cmsg-trunc") {
            Ok(false)
        } else {
            Err(RecvError::CmsgTrunc)
        }
    }

    /// One piece of the head skb's frag: its token, the application's
    /// reference, and the skb freed if that was its last piece. `room`:
    /// the application's control buffer has room for the cmsg.
    pub fn recvmsg_dmabuf(&self, room: bool, cost: &mut Cost) -> Result<Piece, RecvError> {
        let mut q = self.lock_queue();
        if !self.is_open() {
            return Err(RecvError::Closed);
        }
        let head = *q.front().ok_or(RecvError::Empty)?;
        let binding = &self.binding;
        let mode = binding.mode();
        if mode == Mode::Array && !binding.is_bound() {
            return Err(RecvError::Unbound);
        }
        let niov = &binding.niovs[head.niov];
        let take_ref = !ringlab_mutant::on("mutant-dm-recv-no-ref");
        let (token, told) = match mode {
            Mode::Xarray => {
                let id = {
                    let mut xa = self.lock_frags(cost);
                    cost.xa_alloc += 1;
                    xa.alloc()
                };
                let told = match Self::put_cmsg(room) {
                    Ok(told) => told,
                    Err(e) => {
                        self.lock_frags(cost).erase(id);
                        return Err(e);
                    }
                };
                if take_ref {
                    niov.get_ref(cost);
                }
                // The kernel ignores __xa_cmpxchg()'s result: an id that
                // SO_DEVMEM_DONTNEED erased in between (an application
                // returning a token it was never given) leaves this
                // reference without a token.
                self.lock_frags(cost).commit(id, head.niov);
                (id, told)
            }
            Mode::Array => {
                let told = Self::put_cmsg(room)?;
                if take_ref {
                    niov.get_ref(cost);
                }
                niov.uref_inc(cost);
                (head.niov as Tok, told)
            }
        };
        cost.tokens += 1;
        let h = q.front_mut().expect("the head is still queued");
        h.left -= 1;
        let last = h.left == 0;
        if last {
            q.pop_front();
        }
        drop(q);
        if last {
            binding.put(head.niov, 1, cost);
        }
        Ok(Piece {
            niov: head.niov,
            token,
            told,
        })
    }
}
