//! The spec's VARIABLES and Init, and the operators the invariants share
//! (Chain, Live, Members, Place, Refs).

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use super::config::Config;

/// A CPU, 1..NCpu (0: none, as owner's "no CPU").
pub type Cpu = u8;

/// An skb head, 1..NSkb (0: none, as frag's and next's "no skb").
pub type Skb = u8;

/// `ctx[c]`: what CPU c runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ctx {
    /// "idle": task context, BH on.
    Idle,
    /// "napi": inside net_rx_action().
    Napi,
    /// "tun": tun_sendmsg() between local_bh_disable() and _enable().
    Tun,
}

impl Ctx {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Ctx::Idle => "idle",
            Ctx::Napi => "napi",
            Ctx::Tun => "tun",
        }
    }
}

/// The context half of `touch[c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Access {
    /// "bh": with BH off.
    Bh,
    /// "task": with BH on.
    Task,
}

impl Access {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Access::Bh => "bh",
            Access::Task => "task",
        }
    }
}

/// `touch[c]`: `<<CPU, context>>` of the last access to cache[c].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Touch {
    pub cpu: Cpu,
    pub ctx: Access,
}

/// A state of the spec: its seventeen variables, named as the spec names
/// them. Per-CPU vectors are indexed by `c - 1` ([`ci`]), per-skb vectors
/// by `s - 1` ([`si`]). users is signed: mutants may drop a reference
/// the skb does not have.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct State {
    /// Heads free in the slab (net_hotdata.skbuff_cache).
    pub slab: BTreeSet<Skb>,
    /// `cache[c]`: CPU c's skb_cache, oldest first (the top is last).
    pub cache: Vec<Vec<Skb>>,
    /// `touch[c]`: the last access to cache[c].
    pub touch: Vec<Touch>,
    /// `defer[c]`: softnet_data.defer_list, newest first.
    pub defer: Vec<Vec<Skb>>,
    /// `dcount[c]`: softnet_data.defer_count.
    pub dcount: Vec<u32>,
    /// `kick[c]`: an IPI asked CPU c to run NET_RX.
    pub kick: Vec<bool>,
    /// `ctx[c]`
    pub ctx: Vec<Ctx>,
    /// `users[s]`: skb->users (0: not in use).
    pub users: Vec<i64>,
    /// `held[s]`: references held outside frag and defer lists.
    pub held: Vec<u32>,
    /// `frag[s]`: first skb of s's frag_list (0: none).
    pub frag: Vec<Skb>,
    /// `next[s]`: the skb after s on its frag list (0: the last).
    pub next: Vec<Skb>,
    /// `owner[s]`: skb->alloc_cpu of an skb in use (0: none).
    pub owner: Vec<Cpu>,
    /// `heads[c]`: heads of tun's batch not yet built on.
    pub heads: Vec<Vec<Skb>>,
    /// `pending[c]`: frames of tun's batch not yet handled.
    pub pending: Vec<u32>,
    /// Frames still to arrive.
    pub left: u32,
    /// Frames delivered to the stack as skbs.
    pub rcvd: u32,
    /// Frames dropped.
    pub dropped: u32,
}

/// Where CPU c sits in State's per-CPU vectors.
pub fn ci(c: Cpu) -> usize {
    usize::from(c) - 1
}

/// Where skb s sits in State's per-skb vectors.
pub fn si(s: Skb) -> usize {
    usize::from(s) - 1
}

impl State {
    /// The spec's Init (its only initial state).
    pub fn init(cfg: &Config) -> State {
        let nc = usize::from(cfg.ncpu);
        let ns = usize::from(cfg.nskb);
        State {
            slab: cfg.skbs().collect(),
            cache: vec![Vec::new(); nc],
            touch: cfg.cpus().map(|c| Touch { cpu: c, ctx: Access::Bh }).collect(),
            defer: vec![Vec::new(); nc],
            dcount: vec![0; nc],
            kick: vec![false; nc],
            ctx: vec![Ctx::Idle; nc],
            users: vec![0; ns],
            held: vec![0; ns],
            frag: vec![0; ns],
            next: vec![0; ns],
            owner: vec![0; ns],
            heads: vec![Vec::new(); nc],
            pending: vec![0; nc],
            left: cfg.nframes,
            rcvd: 0,
            dropped: 0,
        }
    }

    /// ChainFrom(next, x, NSkb): the skbs on the list starting at x, at
    /// most NSkb of them, each once (the spec's is a set), in list order.
    pub fn chain_from(&self, mut x: Skb) -> Vec<Skb> {
        let mut out = Vec::new();
        while x != 0 && out.len() < self.next.len() && !out.contains(&x) {
            out.push(x);
            x = self.next[si(x)];
        }
        out
    }

    /// Chain(s): the skbs on s's frag list.
    pub fn chain(&self, s: Skb) -> Vec<Skb> {
        self.chain_from(self.frag[si(s)])
    }

    /// Live: skbs in use (users > 0).
    pub fn live(&self) -> impl Iterator<Item = Skb> + '_ {
        (1..=self.users.len() as Skb).filter(|&s| self.users[si(s)] > 0)
    }

    /// s \in Members: on the frag list of an skb in use.
    pub fn is_member(&self, s: Skb) -> bool {
        self.live().any(|p| self.chain(p).contains(&s))
    }

    /// Place(s): the places head s is in.
    pub fn place(&self, s: Skb) -> usize {
        let count = |q: &Vec<Skb>| q.iter().filter(|&&x| x == s).count();
        usize::from(self.slab.contains(&s))
            + usize::from(self.users[si(s)] > 0)
            + self.cache.iter().map(count).sum::<usize>()
            + self.heads.iter().map(count).sum::<usize>()
    }

    /// Refs(s): the references s should have.
    pub fn refs(&self, s: Skb) -> i64 {
        let lists = self.live().filter(|&p| self.chain(p).contains(&s)).count();
        let deferred: usize = self
            .defer
            .iter()
            .map(|q| q.iter().filter(|&&x| x == s).count())
            .sum();
        i64::from(self.held[si(s)]) + lists as i64 + deferred as i64
    }
}
