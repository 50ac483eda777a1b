//! What `ringlab devmem` found, as JSON: one run per token mode, its
//! counts, and every divergence from the model.

use serde::{Deserialize, Serialize};

/// The whole document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DevmemDoc {
    /// uname -r of the kernel it ran on.
    pub kernel: String,
    pub seed: u64,
    pub runs: Vec<ModeRun>,
    /// The one-mode rule: a binding of the other mode while one is
    /// alive is refused (EBUSY), and allowed again once none is.
    pub mode_rule: Option<ModeRule>,
}

/// The rounds of one token mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModeRun {
    /// "xarray" or "array".
    pub mode: String,
    /// NETDEV_A_DMABUF_AUTORELEASE as sent (None: not sent; the kernel
    /// does not know it).
    pub autorelease: Option<u8>,
    /// Why the mode was not run (the kernel refused its binding).
    pub skipped: Option<String>,
    pub rounds: u32,
    /// Operations: sends (each received in full), frags received,
    /// payload bytes, SO_DEVMEM_DONTNEED calls and the frags they freed.
    pub sends: u64,
    pub frags: u64,
    pub bytes: u64,
    pub dontneeds: u64,
    pub freed: u64,
    /// Frags whose bytes in the dma-buf were not what was sent.
    pub corrupt: u64,
    /// The percentage of recvmsg and SO_DEVMEM_DONTNEED calls made with
    /// an allocation fault armed (fail-nth), and the faults that fired.
    pub fault_pct: u32,
    pub faults: u64,
    /// Bindings the kernel freed (every page pool of theirs gone) after
    /// every socket closed and the netlink socket closed.
    pub released: u32,
    pub divergences: Vec<String>,
    /// Xarray mode: the token of the frag received after
    /// SO_DEVMEM_DONTNEED of id 0 on a socket holding token 1 (2 if id 0
    /// stayed reserved; 6.12.117 gives 0). Reported, not judged.
    pub zero_token: Option<u32>,
    /// The first round's model states, for TLC on the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<LiveTrace>,
    pub seconds: f64,
}

/// One round as the model lived it: the constants and every state from
/// Init. The host has TLC check it against specs/DevmemTokens.tla (the
/// guest has no Java) and writes the verdict in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveTrace {
    pub config: ringlab_model::devmem::Config,
    pub states: Vec<ringlab_model::devmem::State>,
    /// TLC's verdict: None until the host checked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<TraceVerdict>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceVerdict {
    pub accepted: bool,
    /// "N steps accepted", or the step TLC rejected and why.
    pub words: String,
}

/// The one-mode rule checked on a second device while a binding lives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModeRule {
    /// What the second binding of the other mode got (an errno name, or
    /// "bound").
    pub other_mode_while_bound: String,
    pub same_mode_while_bound: String,
    pub other_mode_after_unbind: String,
}

impl ModeRule {
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        let want = [
            ("a binding of the other mode while one is alive", &self.other_mode_while_bound, "EBUSY"),
            ("a binding of the same mode while one is alive", &self.same_mode_while_bound, "bound"),
            ("a binding of the other mode once none is alive", &self.other_mode_after_unbind, "bound"),
        ];
        for (what, got, want) in want {
            if got != want {
                p.push(format!("mode rule: {what} got {got}, not {want}"));
            }
        }
        p
    }
}

impl DevmemDoc {
    /// Every divergence and failed check, each on one line.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        for r in &self.runs {
            p.extend(r.divergences.iter().map(|d| format!("{}: {d}", r.mode)));
            if r.corrupt > 0 {
                p.push(format!("{}: {} frags held other bytes than were sent", r.mode, r.corrupt));
            }
            if r.skipped.is_none() && r.fault_pct > 0 && r.faults == 0 {
                p.push(format!("{}: no allocation fault fired, so the fault runs could not fail", r.mode));
            }
            if let Some(v) = r.trace.as_ref().and_then(|t| t.chain.as_ref()).filter(|v| !v.accepted) {
                p.push(format!("{}: the first round's trace is not one of DevmemTokens: {}", r.mode, v.words));
            }
            if r.skipped.is_none() && r.released != r.rounds {
                p.push(format!("{}: {} of {} bindings were never freed", r.mode, r.rounds - r.released, r.rounds));
            }
        }
        if let Some(m) = &self.mode_rule {
            p.extend(m.problems());
        }
        p
    }

    /// The mode's run, if it ran.
    pub fn ran(&self, mode: &str) -> Option<&ModeRun> {
        self.runs.iter().find(|r| r.mode == mode && r.skipped.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binding_never_freed_or_a_corrupt_frag_is_a_problem() {
        let ok = ModeRun { mode: "array".into(), rounds: 2, released: 2, ..Default::default() };
        let mut d = DevmemDoc { runs: vec![ok.clone()], ..Default::default() };
        assert!(d.problems().is_empty());
        d.runs[0].released = 1;
        assert_eq!(d.problems(), ["array: 1 of 2 bindings were never freed"]);
        d.runs[0] = ModeRun { fault_pct: 10, ..ok.clone() };
        assert_eq!(d.problems(), ["array: no allocation fault fired, so the fault runs could not fail"]);
        d.runs[0] = ModeRun { fault_pct: 10, faults: 4, ..ok.clone() };
        assert!(d.problems().is_empty());
        d.runs[0] = ModeRun { corrupt: 3, ..ok.clone() };
        assert_eq!(d.problems(), ["array: 3 frags held other bytes than were sent"]);
        d.runs[0] = ModeRun { divergences: vec!["x".into()], ..ok };
        assert_eq!(d.problems(), ["array: x"]);
        // a skipped mode freed nothing and is not a problem here
        d.runs[0] = ModeRun { mode: "array".into(), rounds: 0, skipped: Some("refused".into()), ..Default::default() };
        assert!(d.problems().is_empty());
        assert!(d.ran("array").is_none());
    }

    #[test]
    fn the_mode_rule_wants_ebusy_only_for_the_other_mode_while_bound() {
        let good = ModeRule {
            other_mode_while_bound: "EBUSY".into(),
            same_mode_while_bound: "bound".into(),
            other_mode_after_unbind: "bound".into(),
        };
        assert!(good.problems().is_empty());
        let mixed = ModeRule { other_mode_while_bound: "bound".into(), ..good.clone() };
        assert_eq!(mixed.problems().len(), 1);
        let stuck = ModeRule { other_mode_after_unbind: "EBUSY".into(), ..good };
        assert_eq!(stuck.problems().len(), 1);
    }
}
