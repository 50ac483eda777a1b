//! The failure classes one at a time: for each, the smallest scenario
//! that provokes it, run on the kernel and through the model, and what
//! each posts (docs/src/iouring-failures.md is this table).

use std::io;

use serde::Serialize;

use crate::failnth;

use super::campaign::{check, in_net};
use super::class::{classes, Class};
use super::obs::CqeObs;
use super::scenario::{Fault, Request, Scenario, Step, Transport};

/// One class settled.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub class: Class,
    pub transport: Transport,
    pub fixed: bool,
    /// Why it was not run, if it was not.
    pub skip: Option<String>,
    /// The request CQE the kernel posted, and its notification if one came.
    pub cqe: Option<CqeObs>,
    pub notif: Option<CqeObs>,
    /// Where the model disagreed (None: it agreed).
    pub divergence: Option<String>,
}

fn zc(len: u32, fault: Fault) -> Request {
    Request { zc: true, len, fault }
}

fn one(transport: Transport, fixed: bool, steps: Vec<Step>) -> Scenario {
    Scenario { transport, fixed, report_usage: true, sq: 2, cq: 4, steps }
}

/// The scenario that provokes `c` (its last request is the one of class
/// `c`), or why it cannot be run here.
pub fn scenario(c: Class, fixed: bool) -> Result<Scenario, String> {
    let t = Transport::UdpLo;
    Ok(match c {
        Class::Sent => one(t, fixed, vec![Step::Batch(vec![zc(1500, Fault::None)])]),
        Class::CqeSkip => one(t, fixed, vec![Step::Batch(vec![zc(64, Fault::CqeSkip)])]),
        Class::Nomem => {
            let why = failnth::unavailable().unwrap_or_else(|| {
                "io_alloc_notif() takes its request from the ring's cache, refilled eight at a time, so no n of fail-nth singles it out".into()
            });
            return Err(why);
        }
        Class::BadFlags => one(t, fixed, vec![Step::Batch(vec![zc(64, Fault::BadFlags)])]),
        Class::Unregistered => one(t, true, vec![Step::Unregister, Step::Batch(vec![zc(64, Fault::None)])]),
        Class::NotSock => one(t, fixed, vec![Step::Batch(vec![zc(64, Fault::NotSock)])]),
        Class::Unmapped => one(t, fixed, vec![Step::Batch(vec![zc(64, Fault::Unmapped)])]),
        Class::TooLong => one(t, fixed, vec![Step::Batch(vec![zc(70000, Fault::TooLong)])]),
        Class::PeerReset => one(Transport::TcpLo, fixed, vec![Step::PeerReset, Step::Batch(vec![zc(64, Fault::None)])]),
        Class::Closed => one(Transport::TcpLo, fixed, vec![Step::PeerReset, Step::Batch(vec![zc(64, Fault::None), zc(64, Fault::None)])]),
    })
}

/// Every class, with plain and with fixed buffers (Unregistered: fixed
/// only), each settled on the kernel.
pub fn settle() -> io::Result<Vec<Row>> {
    in_net(|net| {
        let mut rows = Vec::new();
        for c in Class::ALL {
            for fixed in [false, true] {
                if c == Class::Unregistered && !fixed {
                    continue;
                }
                let s = match scenario(c, fixed) {
                    Ok(s) => s,
                    Err(why) => {
                        rows.push(Row { class: c, transport: Transport::UdpLo, fixed, skip: Some(why), cqe: None, notif: None, divergence: None });
                        continue;
                    }
                };
                assert_eq!(classes(&s).last(), Some(&c), "the scenario of {c:?} provokes another class");
                let (live, p) = check(net, &s)?;
                let ud = s.requests().count() as u64;
                let seen = live.batches.iter().flat_map(|b| &b.cqes).filter(|x| x.user_data == ud);
                let (notifs, reqs): (Vec<&CqeObs>, Vec<&CqeObs>) = seen.partition(|x| x.notif());
                rows.push(Row {
                    class: c,
                    transport: s.transport,
                    fixed: s.fixed,
                    skip: None,
                    cqe: reqs.first().copied().copied(),
                    notif: notifs.first().copied().copied(),
                    divergence: p.err().map(|d| d.why),
                });
            }
        }
        Ok(rows)
    })
}

/// A row for people: the class, the kernel's CQE and notification, the
/// model's verdict.
pub fn line(r: &Row) -> String {
    let buf = if r.fixed { "fixed" } else { "plain" };
    if let Some(why) = &r.skip {
        return format!("{:?} ({buf} buffer): SKIP: {why}", r.class);
    }
    let cqe = r.cqe.map_or("no CQE".into(), |c| format!("res {} flags {:#x}", c.res, c.flags));
    let notif = r.notif.map_or("no notification".into(), |c| format!("notification flags {:#x} res {:#x}", c.flags, c.res));
    let verdict = r.divergence.as_ref().map_or("model agrees".into(), |d| format!("MODEL DISAGREES: {d}"));
    format!("{:?} ({:?}, {buf} buffer): {cqe}, {notif}: {verdict}", r.class, r.transport)
}
