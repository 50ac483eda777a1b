//! sock_devmem_dontneed(): setsockopt(SO_DEVMEM_DONTNEED) with a list of
//! dmabuf_tokens {token_start, token_count}. The list is copied into a
//! kvmalloc_array(); at most MAX_DONTNEED_FRAGS tokens are examined in all
//! (mutant dm-dontneed-loop: every one asked for).
//!
//! - xarray mode (6.12.117): under xa_lock_bh each id is erased from the
//!   socket's own xarray; the net_iovs found are put in batches of 16,
//!   each batch with the lock dropped;
//! - array mode (seed 004): each index names a net_iov of the socket's
//!   binding, whichever socket received it; its uref is decremented if
//!   positive in one atomic step (atomic_dec_if_positive) and then its
//!   reference dropped. Mutant zcrx-uref-race: uref is read, and
//!   decremented later.

use std::fmt;

use ringlab_model::devmem::{Mode, Tok};

use super::cost::Cost;
use super::sock::TcpSock;

/// MAX_DONTNEED_TOKENS: dmabuf_tokens one call may pass.
pub const MAX_DONTNEED_TOKENS: usize = 128;

/// Net_iovs put per batch with the xarray's lock dropped (netmems[16]).
const PUT_BATCH: usize = 16;

/// struct dmabuf_token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmabufToken {
    pub token_start: Tok,
    pub token_count: u32,
}

/// What one call did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// Tokens examined (the spec's work).
    pub examined: u32,
    /// The tokens released, in the order examined; the call returns how
    /// many.
    pub freed: Vec<Tok>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DontneedError {
    /// The socket is closed (-EBADF).
    Closed,
    /// More than MAX_DONTNEED_TOKENS dmabuf_tokens (-EINVAL).
    TooMany,
}

impl fmt::Display for DontneedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DontneedError::Closed => "the socket is closed",
            DontneedError::TooMany => "more than MAX_DONTNEED_TOKENS dmabuf_tokens",
        })
    }
}

/// The token values of `tokens`, in order, at most `limit` of them
/// (token_start + j wraps as the kernel's unsigned int does).
fn examined(tokens: &[DmabufToken], limit: u32) -> impl Iterator<Item = Tok> + '_ {
    let unbounded = ringlab_mutant::on("mutant-dm-dontneed-loop");
    tokens
        .iter()
        .flat_map(|t| (0..t.token_count).map(move |j| t.token_start.wrapping_add(j)))
        .take(if unbounded {
            usize::MAX
        } else {
            limit as usize
        })
}

impl TcpSock {
    /// One SO_DEVMEM_DONTNEED call through this socket.
    pub fn devmem_dontneed(
        &self,
        tokens: &[DmabufToken],
        limit: u32,
        cost: &mut Cost,
    ) -> Result<Released, DontneedError> {
        if !self.is_open() {
            return Err(DontneedError::Closed);
        }
        if tokens.len() > MAX_DONTNEED_TOKENS {
            return Err(DontneedError::TooMany);
        }
        cost.kvmalloc += 1;
        cost.calls += 1;
        let r = match self.binding.mode() {
            Mode::Xarray => self.dontneed_xarray(tokens, limit, cost),
            Mode::Array => self.dontneed_array(tokens, limit, cost),
        };
        cost.released += r.freed.len() as u64;
        Ok(r)
    }

    fn dontneed_xarray(&self, tokens: &[DmabufToken], limit: u32, cost: &mut Cost) -> Released {
        let mut r = Released::default();
        let mut batch = Vec::with_capacity(PUT_BATCH);
        let mut xa = self.lock_frags(cost);
        for id in examined(tokens, limit) {
            r.examined += 1;
            let Some(n) = xa.erase(id) else { continue };
            batch.push(n);
            r.freed.push(id);
            if batch.len() == PUT_BATCH {
                drop(xa);
                for n in batch.drain(..) {
                    self.binding.put(n, 1, cost);
                }
                xa = self.lock_frags(cost);
            }
        }
        drop(xa);
        for n in batch {
            self.binding.put(n, 1, cost);
        }
        r
    }

    fn dontneed_array(&self, tokens: &[DmabufToken], limit: u32, cost: &mut Cost) -> Released {
        let mut r = Released::default();
        let niovs = self.binding.niovs.len();
        for t in examined(tokens, limit) {
            r.examined += 1;
            if (t as usize) < niovs && self.release_uref(t as usize, cost) {
                r.freed.push(t);
            }
        }
        r
    }

    /// The release of one array-mode token on net_iov `n`: its uref, then
    /// its reference. False if no token was outstanding.
    pub(super) fn release_uref(&self, n: usize, cost: &mut Cost) -> bool {
        let niov = &self.binding.niovs[n];
        if ringlab_mutant::on("mutant-zcrx-uref-race") {
            if !niov.uref_positive() {
                return false;
            }
            niov.uref_dec(cost);
        } else if !niov.uref_dec_if_positive(cost) {
            return false;
        }
        self.binding.put(n, 1, cost);
        true
    }
}
