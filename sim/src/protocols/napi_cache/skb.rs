//! struct sk_buff as the cache sees it: skb->users (an atomic count),
//! skb->alloc_cpu, the frag list (skb_shinfo(skb)->frag_list) and the
//! next link of a frag list's members. `held` counts the references held
//! outside frag and defer lists (sockets, the stack): the spec's `held`,
//! kept beside the skb so that the references can be accounted for.

use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};
use ringlab_ring::sync::{AtomicI32, AtomicU8};

#[derive(Debug, Default)]
pub struct Skb {
    users: AtomicI32,
    held: AtomicI32,
    /// alloc_cpu of an skb in use; 0 none.
    owner: AtomicU8,
    /// The first skb of its frag list; 0 none.
    frag: AtomicU8,
    /// The skb after it on its frag list; 0 the last.
    next: AtomicU8,
}

impl Skb {
    pub fn users(&self) -> i32 {
        self.users.load(Acquire)
    }
    pub fn held(&self) -> i32 {
        self.held.load(Acquire)
    }
    pub fn owner(&self) -> u8 {
        self.owner.load(Acquire)
    }
    pub fn frag(&self) -> u8 {
        self.frag.load(Acquire)
    }
    pub fn next(&self) -> u8 {
        self.next.load(Acquire)
    }
    pub fn set_users(&self, n: i32) {
        self.users.store(n, Release)
    }
    pub fn set_held(&self, n: i32) {
        self.held.store(n, Release)
    }
    pub fn set_owner(&self, c: u8) {
        self.owner.store(c, Release)
    }
    pub fn set_frag(&self, s: u8) {
        self.frag.store(s, Release)
    }
    pub fn set_next(&self, s: u8) {
        self.next.store(s, Release)
    }

    /// skb_get(): one more reference.
    pub fn get(&self) {
        self.users.fetch_add(1, AcqRel);
    }

    /// A reference dropped (refcount_dec_and_test): true if it was the
    /// last.
    pub fn unref(&self) -> bool {
        self.users.fetch_sub(1, AcqRel) == 1
    }

    /// A holder's reference taken over (or given back).
    pub fn hold(&self) {
        self.held.fetch_add(1, AcqRel);
    }
    pub fn unhold(&self) {
        self.held.fetch_sub(1, AcqRel);
    }

    /// __build_skb_around() on a head: one user, its holder, this CPU.
    pub fn build(&self, cpu: u8) {
        self.set_users(1);
        self.set_held(1);
        self.set_owner(cpu);
    }
}

/// Every skb head, by id (1..=NSkb).
#[derive(Debug)]
pub struct Skbs(Vec<Skb>);

impl Skbs {
    pub fn new(n: u8) -> Skbs {
        Skbs((0..n).map(|_| Skb::default()).collect())
    }

    pub fn get(&self, s: u8) -> &Skb {
        &self.0[usize::from(s) - 1]
    }

    pub fn ids(&self) -> impl Iterator<Item = u8> {
        1..=self.0.len() as u8
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The skbs on p's frag list, in order (at most NSkb of them, as the
    /// spec's Chain bounds its walk).
    pub fn chain(&self, p: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut x = self.get(p).frag();
        while x != 0 && out.len() < self.len() {
            out.push(x);
            x = self.get(x).next();
        }
        out
    }

    /// The skbs in use (users > 0).
    pub fn live(&self) -> impl Iterator<Item = u8> + '_ {
        self.ids().filter(|&s| self.get(s).users() > 0)
    }

    /// Whether s is on the frag list of an skb in use.
    pub fn member(&self, s: u8) -> bool {
        self.live().any(|p| self.chain(p).contains(&s))
    }
}
