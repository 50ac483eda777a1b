//! The driver frees skbs, in any order.

use super::config::Config;
use super::state::{Frame, Sock, State};

impl State {
    /// DriverFree(f): the driver frees the skb of socket `sock` holding
    /// frame f (consume_skb()); its destructor xsk_destruct_skb() publishes
    /// its completions (CqSubmit).
    pub fn driver_free(&self, cfg: &Config, f: Frame, sock: Sock) -> Option<State> {
        let k = self
            .flight
            .iter()
            .find(|k| k.sock == sock && k.addrs.contains(&f))?;
        let mut t = self.clone();
        t.cq_submit(cfg, &k.addrs);
        t.flight.remove(k);
        Some(t)
    }
}
