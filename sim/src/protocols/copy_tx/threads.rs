//! The real-thread runner's threads: each socket's kernel side on its
//! own thread making whole sendto calls, a driver thread freeing skbs out
//! of order, an application thread taking completions and submitting
//! their frames again. What it checks is the ring code's assertions as it
//! runs; then the harness checks every invariant where the threads
//! stopped, drains, and checks that every frame came back.

use ringlab_model::copy_tx::{Action, DropFrags, PublishFrags, Stage};

use super::config::CopyTxConfig;
use super::pick::socket_choices_into;
use super::pool::Pool;
use super::protocol::Report;
use super::sock::XskSock;
use super::system::CopyTx;
use crate::harness::{settle, Crew, Failure};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::thread;

/// Rounds of the application's loop without a completion before the run
/// is declared stuck.
const STUCK: u64 = 20_000_000;

/// A socket thread's choice lists, kept from step to step so that a
/// step allocates nothing.
#[derive(Default)]
struct Choices {
    actions: Vec<(Action, u32)>,
    weights: Vec<u32>,
}

/// One whole sendto: steps of the socket's own choosing until it returns.
/// Returns how many descriptors it sent.
fn sendto(k: &mut XskSock, pool: &Pool, cfg: &CopyTxConfig, rng: &mut Rng, c: &mut Choices) -> u32 {
    let mut sent = 0;
    loop {
        socket_choices_into(k, cfg, &mut c.actions);
        c.weights.clear();
        c.weights.extend(c.actions.iter().map(|(_, w)| *w));
        let a = c.actions[rng.weighted(&c.weights)].0;
        k.step(pool, &a)
            .unwrap_or_else(|d| panic!("socket {}: {d}", k.id));
        sent = sent.max(k.call.done);
        if k.call.stage == Stage::Idle {
            return sent;
        }
    }
}

/// Run until the application has taken `packets` completions, then drain
/// and check. The seed seeds each thread's choices (not the interleaving).
pub fn run(cfg: CopyTxConfig, packets: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    let fail = |m: String| Failure::at_start(seed, m);
    if cfg.spec.multi_buf
        && (cfg.spec.drop_frags, cfg.spec.publish_frags)
            != (DropFrags::Complete, PublishFrags::Packet)
    {
        // A cancelled fragment's frame never comes back, and a rollback
        // over a published consumer breaks the ring under the other
        // threads: the deterministic scheduler stops at either.
        return Err(fail(
            "threads run multi-buffer packets with drop-frags complete and publish-frags packet only".into(),
        ));
    }
    let CopyTx {
        cfg,
        pool,
        socks,
        driver,
        mut app,
        ..
    } = CopyTx::new(cfg).map_err(fail)?;
    let mut crew = Crew::new();
    let mut kernel = Vec::new();
    for mut k in socks {
        let (pool, stop, cfg) = (pool.clone(), crew.stop(), cfg.clone());
        kernel.push(crew.spawn(format!("socket {}", k.id), move || {
            let mut rng = Rng::new(seed ^ (0x5e7d << 8) ^ k.id as u64);
            let mut choices = Choices::default();
            while !stop.is_set() {
                if sendto(&mut k, &pool, &cfg, &mut rng, &mut choices) == 0 {
                    thread::yield_now();
                }
            }
            Ok(k)
        }));
    }
    let d = {
        let (pool, stop, mut driver) = (pool.clone(), crew.stop(), driver);
        crew.spawn("driver", move || {
            let mut rng = Rng::new(seed ^ 0xd71e);
            loop {
                if driver.free_drawn(&pool, &mut rng) {
                    continue;
                }
                if stop.is_set() {
                    return Ok(driver);
                } else {
                    thread::yield_now();
                }
            }
        })
    };
    let user = {
        let stop = crew.stop();
        let sockets = cfg.sockets() as u32;
        crew.spawn("application", move || {
            let mut rng = Rng::new(seed ^ 0x05e7);
            let mut idle = 0u64;
            let mut free = Vec::new();
            while app.reaped < packets {
                let mut did = false;
                // Asking first spares an empty ring's refusal message.
                while app.cq_avail() > 0 && app.user_reap().is_ok() {
                    did = true;
                }
                free.clear();
                free.extend(app.free.iter().copied());
                for &f in &free {
                    let s = rng.below(sockets) as usize;
                    // A full ring refuses the submit anyway: asking first
                    // spares the frame's other draws and the refusal's
                    // message.
                    if app.tx_room(s) == 0 {
                        continue;
                    }
                    let contd = rng.chance(1, 3) && app.may_submit(s, true);
                    if contd || app.may_submit(s, false) {
                        did |= app.user_submit(s, f, !rng.chance(1, 32), contd).is_ok();
                    }
                }
                if did {
                    idle = 0;
                } else {
                    idle += 1;
                    if idle > STUCK {
                        break;
                    }
                    thread::yield_now();
                }
            }
            stop.set();
            Ok(app)
        })
    };
    let app = crew.join(user);
    let socks: Vec<Option<XskSock>> = kernel.into_iter().map(|h| crew.join(h)).collect();
    let driver = crew.join(d);
    crew.finish(seed)?;
    let (Some(app), Some(socks), Some(driver)) = (app, socks.into_iter().collect(), driver) else {
        return Err(fail("a thread handed nothing back".into()));
    };
    if app.reaped < packets {
        return Err(fail(format!(
            "stuck: {} of {packets} completions after {STUCK} idle rounds",
            app.reaped
        )));
    }
    let sys = CopyTx {
        cfg,
        pool,
        socks,
        driver,
        app,
        drain: Default::default(),
    };
    Ok(settle(sys)?.report())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_tx::Design;

    /// Rings of 8 and a budget of 8, seeded.
    fn eights(mut cfg: CopyTxConfig, seed: u64) -> CopyTxConfig {
        cfg.spec.tx_size = 8;
        cfg.spec.cq_size = 8;
        cfg.spec.budget = 8;
        cfg.seed = seed;
        cfg
    }

    #[test]
    fn threads_complete_every_frame_and_drain() {
        for (design, batch) in [(Design::B, 0), (Design::B, 4)] {
            let cfg = eights(CopyTxConfig::new(design, batch, 3, 16), 9);
            let r = run(cfg, 5_000).unwrap_or_else(|f| panic!("design b batch {batch}: {f}"));
            assert!(r.completed >= 5_000);
            assert!(r.cost.descs > 0);
        }
    }

    #[test]
    fn threads_send_multi_buffer_packets_whole() {
        let mb = CopyTxConfig::new(Design::B, 0, 3, 16).multi_buf(
            3,
            DropFrags::Complete,
            PublishFrags::Packet,
        );
        let cfg = eights(mb, 11);
        let r = run(cfg, 5_000).unwrap_or_else(|f| panic!("multi-buffer: {f}"));
        assert!(r.completed >= 5_000);
        assert!(r.invalid_descs > 0);
    }
}
