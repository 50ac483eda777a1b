//! The whole devmem system in one place, each spec action a method of its
//! name returning whether it was enabled (Err: not enabled, nothing
//! changed): what the harness's scheduler and a comparison with the
//! model drive. The real-thread runner and loom call the kernel functions
//! underneath directly.

use ringlab_model::devmem::{Action, Binding as BindingId, Mode, Mutant, Niov, Sock, Tok};

use super::app::App;
use super::binding::Binding;
use super::config::DevmemConfig;
use super::cost::Cost;
use super::dontneed::{DmabufToken, Released};
use super::sock::TcpSock;
use super::{Disabled, Step};
use ringlab_ring::sync::Arc;

#[derive(Debug)]
pub struct Devmem {
    pub cfg: DevmemConfig,
    pub bindings: Vec<Arc<Binding>>,
    /// Every binding's sockets, in the model's order (Config::sock_index).
    pub socks: Vec<Arc<TcpSock>>,
    pub app: App,
    /// Tokens the last SO_DEVMEM_DONTNEED examined (the spec's work).
    pub work: u32,
    /// mutant-zcrx-uref-race: per socket, the token of a release that read
    /// uref > 0 and has not decremented it yet (the spec's pend).
    pub pend: Vec<Option<Tok>>,
    pub cost: Cost,
    /// Steps taken through the harness.
    pub taken: u64,
    /// The step at which OwnTokensOnly first broke, if it did.
    pub own_tokens_broken_at: Option<u64>,
}

impl Devmem {
    pub fn new(cfg: DevmemConfig) -> Result<Devmem, String> {
        cfg.validate()?;
        let spec = &cfg.spec;
        let bindings: Vec<Arc<Binding>> = spec
            .binding_ids()
            .map(|b| {
                Arc::new(Binding::new(
                    b,
                    usize::from(spec.niovs_per),
                    spec.init_mode(),
                ))
            })
            .collect();
        let socks = spec
            .socks()
            .into_iter()
            .map(|s| {
                Arc::new(TcpSock::new(
                    s,
                    bindings[usize::from(s.b)].clone(),
                    spec.parts,
                ))
            })
            .collect();
        Ok(Devmem {
            app: App::new(spec),
            pend: vec![None; cfg.sockets()],
            cfg,
            bindings,
            socks,
            work: 0,
            cost: Cost::default(),
            taken: 0,
            own_tokens_broken_at: None,
        })
    }

    /// Socket s, if the config has it.
    pub fn sock(&self, action: &'static str, s: Sock) -> Result<&Arc<TcpSock>, Disabled> {
        if !self.cfg.spec.has_sock(s) {
            return Err(Disabled::new(action, format!("no socket {s:?}")));
        }
        Ok(&self.socks[self.cfg.spec.sock_index(s)])
    }

    fn binding(&self, action: &'static str, b: BindingId) -> Result<&Arc<Binding>, Disabled> {
        self.bindings
            .get(usize::from(b))
            .ok_or_else(|| Disabled::new(action, format!("no binding {b}")))
    }

    /// The sockets of binding b.
    pub fn socks_of(&self, b: BindingId) -> Vec<Arc<TcpSock>> {
        self.socks.iter().filter(|s| s.id.b == b).cloned().collect()
    }

    fn pend_of(&mut self, s: Sock) -> &mut Option<Tok> {
        let k = self.cfg.spec.sock_index(s);
        &mut self.pend[k]
    }

    /// BindRx(b, m): NETDEV_CMD_BIND_RX. The single-mode rule (seed 004's
    /// static branch): no binding of the other mode may be bound (mutant
    /// dm-mode-mix: it may).
    pub fn bind_rx(&mut self, b: BindingId, m: Mode) -> Step {
        let binding = self.binding("BindRx", b)?;
        if !self.cfg.spec.modes.contains(&m) {
            return Err(Disabled::new(
                "BindRx",
                format!("mode {} is not asked for", m.id()),
            ));
        }
        let other = self.bindings.iter().find(|c| c.is_bound() && c.mode() != m);
        if let (Some(c), false) = (other, ringlab_mutant::on("mutant-dm-mode-mix")) {
            return Err(Disabled::new(
                "BindRx",
                format!("binding {} is bound in {} mode", c.id, c.mode().id()),
            ));
        }
        binding.bind(m)
    }

    /// RxFrag(s, n): the page pool hands net_iov n to the NIC and TCP
    /// queues the frag on s.
    pub fn rx_frag(&mut self, s: Sock, n: Niov) -> Step {
        let sock = self.sock("RxFrag", s)?.clone();
        let b = &sock.binding;
        if n.b != s.b || usize::from(n.i) >= b.niovs.len() {
            return Err(Disabled::new(
                "RxFrag",
                format!("{n:?} is not of {s:?}'s binding"),
            ));
        }
        if !b.is_bound() || !sock.is_open() {
            return Err(Disabled::new(
                "RxFrag",
                "binding not bound or socket closed",
            ));
        }
        let k = b
            .alloc(Some(usize::from(n.i)))
            .ok_or_else(|| Disabled::new("RxFrag", format!("{n:?} is not in the pool")))?;
        if sock.queue_frag(k).is_err() {
            unreachable!("socket {s:?} was open, and only this thread closes it");
        }
        self.cost.frags += 1;
        Ok(())
    }

    /// RecvMsg(s) with the application's choice: `told` false is a control
    /// buffer without room for the cmsg (enabled only under
    /// dm-cmsg-trunc: without it the kernel fails the call).
    pub fn recv_msg(&mut self, s: Sock, told: bool) -> Step {
        let sock = self.sock("RecvMsg", s)?.clone();
        let p = sock
            .recvmsg_dmabuf(told, &mut self.cost)
            .map_err(|e| Disabled::new("RecvMsg", e.to_string()))?;
        self.app.received(s, p.token, p.told);
        Ok(())
    }

    /// Dontneed(s, t, c): SO_DEVMEM_DONTNEED through s with one
    /// dmabuf_token {t, c}. Under zcrx-uref-race an array-mode release is
    /// DontneedRead then DontneedPut instead.
    pub fn dontneed(&mut self, s: Sock, t: Tok, c: u32) -> Step {
        let mode = self.sock("Dontneed", s)?.binding.mode();
        if ringlab_mutant::on("mutant-zcrx-uref-race") && mode == Mode::Array {
            return Err(Disabled::new(
                "Dontneed",
                "zcrx-uref-race: DontneedRead, DontneedPut",
            ));
        }
        let token = DmabufToken {
            token_start: t,
            token_count: c,
        };
        self.dontneed_tokens(s, &[token]).map(|_| ())
    }

    /// SO_DEVMEM_DONTNEED through s with a list of dmabuf_tokens (the
    /// spec's Dontneed passes one); the application forgets what it
    /// released.
    pub fn dontneed_tokens(
        &mut self,
        s: Sock,
        tokens: &[DmabufToken],
    ) -> Result<Released, Disabled> {
        let sock = self.sock("Dontneed", s)?.clone();
        let r = sock
            .devmem_dontneed(tokens, self.cfg.spec.dontneed_limit, &mut self.cost)
            .map_err(|e| Disabled::new("Dontneed", e.to_string()))?;
        self.work = r.examined;
        self.app.released(s, sock.binding.mode(), &r.freed);
        Ok(r)
    }

    /// DontneedRead(s, t): mutant zcrx-uref-race, array mode: the release
    /// through s of token t reads its uref > 0.
    pub fn dontneed_read(&mut self, s: Sock, t: Tok) -> Step {
        let sock = self.sock("DontneedRead", s)?.clone();
        let b = &sock.binding;
        let ok = ringlab_mutant::on("mutant-zcrx-uref-race")
            && b.mode() == Mode::Array
            && sock.is_open()
            && self.pend_of(s).is_none()
            && b.niovs.get(t as usize).is_some_and(|n| n.uref_positive());
        if !ok {
            return Err(Disabled::new(
                "DontneedRead",
                "no uref > 0 to read, or a release pending",
            ));
        }
        *self.pend_of(s) = Some(t);
        self.work = 1;
        Ok(())
    }

    /// DontneedPut(s): mutant zcrx-uref-race: the pending release
    /// decrements uref, whatever it is now, and drops the reference.
    pub fn dontneed_put(&mut self, s: Sock) -> Step {
        let sock = self.sock("DontneedPut", s)?.clone();
        let t = self
            .pend_of(s)
            .take()
            .ok_or_else(|| Disabled::new("DontneedPut", "no release pending"))?;
        let b = &sock.binding;
        b.niovs[t as usize].uref_dec(&mut self.cost);
        b.put(t as usize, 1, &mut self.cost);
        self.app.released(s, Mode::Array, &[t]);
        Ok(())
    }

    /// Close(s): close() (not while a release through s is pending).
    pub fn close(&mut self, s: Sock) -> Step {
        let sock = self.sock("Close", s)?.clone();
        if self.pend_of(s).is_some() {
            return Err(Disabled::new("Close", "a release is pending"));
        }
        sock.close(&mut self.cost)?;
        self.app.closed(s, sock.binding.mode());
        Ok(())
    }

    /// Unbind(b): net_devmem_unbind_dmabuf().
    pub fn unbind(&mut self, b: BindingId) -> Step {
        let binding = self.binding("Unbind", b)?.clone();
        let socks = self.socks_of(b);
        binding.unbind(&socks, &mut self.cost)?;
        if binding.mode() == Mode::Array && !ringlab_mutant::on("mutant-dm-unbind-no-cleanup") {
            self.app.unbound(b);
        }
        Ok(())
    }

    /// Done: every socket closed and no binding bound (changes nothing).
    pub fn done(&mut self) -> Step {
        if self.is_done() {
            Ok(())
        } else {
            Err(Disabled::new("Done", "a socket is open or a binding bound"))
        }
    }

    /// Every socket closed and no binding bound: nothing left to do.
    pub fn is_done(&self) -> bool {
        self.socks.iter().all(|s| !s.is_open()) && self.bindings.iter().all(|b| !b.is_bound())
    }

    /// One spec action with the model's choices.
    pub fn step(&mut self, a: &Action) -> Step {
        match *a {
            Action::BindRx { b, m } => self.bind_rx(b, m),
            Action::RxFrag { s, n } => self.rx_frag(s, n),
            Action::RecvMsg { s, told } => self.recv_msg(s, told),
            Action::Dontneed { s, t, c } => self.dontneed(s, t, c),
            Action::DontneedRead { s, t } => self.dontneed_read(s, t),
            Action::DontneedPut { s } => self.dontneed_put(s),
            Action::Close { s } => self.close(s),
            Action::Unbind { b } => self.unbind(b),
            // The binding's lifetime is the model's (Lifetime = TRUE); the
            // simulator runs Lifetime = FALSE only.
            Action::NlSockClose { .. }
            | Action::NetdevUnregister { .. }
            | Action::MpDmabufDevmemDestroy { .. } => Err(Disabled::new(
                a.name(),
                "the simulator has no binding lifetime",
            )),
            Action::Done => self.done(),
        }
    }

    /// The mutant this run puts back.
    pub fn mutant(&self) -> Mutant {
        self.cfg.spec.mutant
    }
}
