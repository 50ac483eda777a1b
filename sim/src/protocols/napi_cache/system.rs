//! The whole system in one place, each action of specs/NapiSkbCache.tla
//! a method of its name returning whether it was enabled (Err: its guard
//! is false, nothing changed): what the harness's scheduler and the
//! comparison with the model drive. The real-thread runner and loom call
//! the kernel functions of [`Net`] underneath directly.

use ringlab_ring::sync::Arc;

use super::config::NapiCacheConfig;
use super::cpu::{IDLE, NAPI, TUN};
use super::net::{Net, TunPath};
use super::{Action, Disabled, Mutant, Step, XdpVerdict};

#[derive(Debug)]
pub struct NapiSkbCache {
    pub cfg: NapiCacheConfig,
    pub net: Arc<Net>,
    /// Steps of the drain so far (its bound).
    pub drained: u64,
}

impl NapiSkbCache {
    pub fn new(cfg: NapiCacheConfig) -> Result<NapiSkbCache, String> {
        cfg.validate()?;
        Ok(NapiSkbCache { net: Arc::new(Net::new(cfg.shape())), cfg, drained: 0 })
    }

    fn cpu_known(&self, action: &'static str, c: u8) -> Result<(), Disabled> {
        if (1..=self.net.shape.n_cpu).contains(&c) {
            Ok(())
        } else {
            Err(Disabled::new(action, format!("no CPU {c}")))
        }
    }

    fn skb_known(&self, action: &'static str, s: u8) -> Result<(), Disabled> {
        if (1..=self.net.shape.n_skb).contains(&s) {
            Ok(())
        } else {
            Err(Disabled::new(action, format!("no skb {s}")))
        }
    }

    fn ctx_is(&self, action: &'static str, c: u8, want: u8) -> Result<(), Disabled> {
        self.cpu_known(action, c)?;
        let now = self.net.cpu(c).ctx();
        if now == want {
            return Ok(());
        }
        let name = |x| ["idle", "napi", "tun"][usize::from(x)];
        Err(Disabled::new(action, format!("CPU {c} is {}, not {}", name(now), name(want))))
    }

    /// A slab call told to fail where the run does not fail them.
    fn may_fail(&self, action: &'static str, fail: bool) -> Result<(), Disabled> {
        if fail && !self.cfg.slab_fail() {
            return Err(Disabled::new(action, "the slab does not fail in this run"));
        }
        Ok(())
    }

    fn frames_left(&self, action: &'static str) -> Result<(), Disabled> {
        if self.net.frames.left() == 0 {
            return Err(Disabled::new(action, "no frame is left to arrive"));
        }
        Ok(())
    }

    /// NetRxAction(c): net_rx_action() on an idle CPU.
    pub fn net_rx_action(&mut self, c: u8) -> Step {
        self.ctx_is("NetRxAction", c, IDLE)?;
        self.net.net_rx_action(c);
        Ok(())
    }

    /// NapiComplete(c): napi_complete_done() and net_rx_action()'s end.
    pub fn napi_complete(&mut self, c: u8) -> Step {
        self.ctx_is("NapiComplete", c, NAPI)?;
        self.net.napi_complete(c);
        Ok(())
    }

    /// NapiBuildSkb(c, fail): napi_build_skb() in c's poll.
    pub fn napi_build_skb(&mut self, c: u8, fail: bool) -> Step {
        self.ctx_is("NapiBuildSkb", c, NAPI)?;
        self.frames_left("NapiBuildSkb")?;
        self.may_fail("NapiBuildSkb", fail)?;
        self.net.frames.take(1);
        self.net.napi_build_skb(c, fail);
        Ok(())
    }

    /// NapiConsumeSkb(c, s): napi_consume_skb(s, budget) in c's poll.
    pub fn napi_consume_skb(&mut self, c: u8, s: u8) -> Step {
        self.cpu_known("NapiConsumeSkb", c)?;
        self.skb_known("NapiConsumeSkb", s)?;
        let ctx = self.net.cpu(c).ctx();
        // virtio_net's netpoll path frees with a budget from task context.
        let virtio = ringlab_mutant::on("mutant-napi-virtio-cache") && ctx == IDLE;
        if ctx != NAPI && !virtio {
            return Err(Disabled::new("NapiConsumeSkb", format!("CPU {c} is not in a NAPI poll")));
        }
        if self.net.skbs.get(s).held() <= 0 {
            return Err(Disabled::new("NapiConsumeSkb", format!("skb {s} is not held")));
        }
        let cpu = self.net.cpu(c);
        self.net.napi_consume_skb(cpu.here(), c, s);
        Ok(())
    }

    /// SkbAttemptDeferFree(c, s): skb_attempt_defer_free() by a task on
    /// c holding s's last reference.
    pub fn skb_attempt_defer_free(&mut self, c: u8, s: u8) -> Step {
        self.ctx_is("SkbAttemptDeferFree", c, IDLE)?;
        self.skb_known("SkbAttemptDeferFree", s)?;
        let skb = self.net.skbs.get(s);
        if skb.held() <= 0 || skb.users() != 1 {
            return Err(Disabled::new(
                "SkbAttemptDeferFree",
                format!("skb {s}: held {}, users {}, not the last reference held", skb.held(), skb.users()),
            ));
        }
        self.net.skb_attempt_defer_free(c, s);
        Ok(())
    }

    /// KfreeSkb(s): kfree_skb() from any context.
    pub fn kfree_skb(&mut self, s: u8) -> Step {
        self.skb_known("KfreeSkb", s)?;
        if self.net.skbs.get(s).held() <= 0 {
            return Err(Disabled::new("KfreeSkb", format!("skb {s} is not held")));
        }
        self.net.kfree_skb(s);
        Ok(())
    }

    /// TunSendmsg(c, fail): tun_sendmsg(TUN_MSG_PTR) on an idle CPU.
    pub fn tun_sendmsg(&mut self, c: u8, fail: bool) -> Step {
        self.ctx_is("TunSendmsg", c, IDLE)?;
        self.frames_left("TunSendmsg")?;
        self.may_fail("TunSendmsg", fail)?;
        if fail && self.net.shape.path == TunPath::Slab {
            return Err(Disabled::new("TunSendmsg", "with Path slab the batch takes no heads"));
        }
        self.net.tun_sendmsg(c, fail);
        Ok(())
    }

    /// TunXdpOne(c) with the model's verdict: tun_xdp_one() for the
    /// batch's next frame, XDP_DROP or XDP_PASS on the head it names.
    pub fn tun_xdp_one(&mut self, c: u8, verdict: XdpVerdict) -> Step {
        self.ctx_is("TunXdpOne", c, TUN)?;
        if self.net.cpu(c).tun.pending() == 0 {
            return Err(Disabled::new("TunXdpOne", format!("CPU {c}'s batch has no frame left")));
        }
        let slab_path = self.net.shape.path == TunPath::Slab;
        let no_head = self.net.cpu(c).tun.heads().is_empty();
        let (pass, fail) = match verdict {
            XdpVerdict::Drop => (false, false),
            XdpVerdict::PassHead if !no_head => (true, false),
            XdpVerdict::PassCache { fail } if no_head && !slab_path => (true, fail),
            XdpVerdict::PassSlab { fail } if no_head && slab_path => (true, fail),
            _ => {
                return Err(Disabled::new(
                    "TunXdpOne",
                    format!("{verdict:?} on CPU {c} (Path {:?}, heads left: {})", self.net.shape.path, !no_head),
                ))
            }
        };
        self.may_fail("TunXdpOne", fail)?;
        self.net.tun_xdp_one(c, pass, fail);
        Ok(())
    }

    /// TunSendmsgEnd(c): the end of tun_sendmsg().
    pub fn tun_sendmsg_end(&mut self, c: u8) -> Step {
        self.ctx_is("TunSendmsgEnd", c, TUN)?;
        if self.net.cpu(c).tun.pending() != 0 {
            return Err(Disabled::new("TunSendmsgEnd", format!("CPU {c}'s batch has frames left")));
        }
        self.net.tun_sendmsg_end(c);
        Ok(())
    }

    fn cloning(&self, action: &'static str) -> Result<(), Disabled> {
        if self.cfg.clone_on() {
            Ok(())
        } else {
            Err(Disabled::new(action, "skbs gain no references in this run (Clone FALSE)"))
        }
    }

    /// SkbGet(s): skb_get() by a second holder.
    pub fn skb_get(&mut self, s: u8) -> Step {
        self.cloning("SkbGet")?;
        self.skb_known("SkbGet", s)?;
        let skb = self.net.skbs.get(s);
        if skb.held() != 1 || skb.users() != 1 {
            return Err(Disabled::new("SkbGet", format!("skb {s}: held {}, users {}", skb.held(), skb.users())));
        }
        self.net.skb_get(s);
        Ok(())
    }

    /// SkbGroReceiveList(c, p, t): skb_gro_receive_list() in c's poll.
    pub fn skb_gro_receive_list(&mut self, c: u8, p: u8, t: u8) -> Step {
        const A: &str = "SkbGroReceiveList";
        self.cloning(A)?;
        self.ctx_is(A, c, NAPI)?;
        self.skb_known(A, p)?;
        self.skb_known(A, t)?;
        let skbs = &self.net.skbs;
        let (sp, st) = (skbs.get(p), skbs.get(t));
        // napi-gro-self: an skb joins its own list.
        let why = if p == t && !ringlab_mutant::on("mutant-napi-gro-self") {
            Some("an skb onto its own list".to_string())
        } else if sp.held() <= 0 {
            Some(format!("skb {p} is not held"))
        } else if st.held() != 1 || st.users() != 1 || st.frag() != 0 {
            Some(format!("skb {t}: held {}, users {}, frag {}", st.held(), st.users(), st.frag()))
        } else if skbs.member(t) || skbs.member(p) {
            Some(format!("skb {p} or {t} is on a frag list"))
        } else if sp.frag() != 0 && skbs.live().any(|q| q != p && skbs.get(q).frag() == sp.frag()) {
            Some(format!("skb {p}'s frag list is shared"))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Disabled::new(A, why));
        }
        self.net.skb_gro_receive_list(p, t);
        Ok(())
    }

    /// PskbCopy(c, p): pskb_copy() of an skb with a frag list.
    pub fn pskb_copy(&mut self, c: u8, p: u8) -> Step {
        const A: &str = "PskbCopy";
        self.cloning(A)?;
        self.cpu_known(A, c)?;
        self.skb_known(A, p)?;
        let sp = self.net.skbs.get(p);
        if sp.frag() == 0 || sp.held() <= 0 {
            return Err(Disabled::new(A, format!("skb {p}: held {}, frag {}", sp.held(), sp.frag())));
        }
        if self.net.slab.is_empty() {
            return Err(Disabled::new(A, "the slab is empty"));
        }
        self.net.pskb_copy(c, p);
        Ok(())
    }

    /// One spec action with the model's choices.
    pub fn step(&mut self, a: &Action) -> Step {
        match *a {
            Action::NetRxAction { c } => self.net_rx_action(c),
            Action::NapiComplete { c } => self.napi_complete(c),
            Action::NapiBuildSkb { c, fail } => self.napi_build_skb(c, fail),
            Action::TunSendmsg { c, fail } => self.tun_sendmsg(c, fail),
            Action::TunXdpOne { c, verdict } => self.tun_xdp_one(c, verdict),
            Action::TunSendmsgEnd { c } => self.tun_sendmsg_end(c),
            Action::NapiConsumeSkb { c, s } => self.napi_consume_skb(c, s),
            Action::SkbAttemptDeferFree { c, s } => self.skb_attempt_defer_free(c, s),
            Action::PskbCopy { c, p } => self.pskb_copy(c, p),
            Action::SkbGroReceiveList { c, p, t } => self.skb_gro_receive_list(c, p, t),
            Action::KfreeSkb { s } => self.kfree_skb(s),
            Action::SkbGet { s } => self.skb_get(s),
        }
    }

    /// The mutant this run puts back.
    pub fn mutant(&self) -> Mutant {
        self.cfg.spec.mutant
    }

    /// Nothing left: every frame arrived, no skb in use, every CPU idle
    /// and every defer list empty.
    pub fn is_done(&self) -> bool {
        let net = &self.net;
        net.frames.left() == 0
            && net.skbs.live().next().is_none()
            && net.cpus.iter().all(|c| c.ctx() == IDLE && c.defer.skbs().is_empty())
    }
}
