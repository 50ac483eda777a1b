//! The CONSTANTS of specs/DevmemTokens.tla, the ASSUMEs on them, and the
//! sets the spec builds from them (Socks, Niovs, Toks, SocksOf).

use serde::{Deserialize, Serialize};

use super::state::{Binding, Niov, Sock, Tok};

/// A binding's token mode (spec: an element of Modes).
///
/// The order is TLC's order of the two strings: TLC compares strings by
/// the order it first read them, and the spec names "xarray" first. It is
/// the order BindRx's `\E m \in Modes` tries them, and `CHOOSE m \in
/// Modes : TRUE` (the mode of a binding not yet bound) picks the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mode {
    /// "xarray" (linux 6.12.117, autorelease on): a token is an id in the
    /// socket's sk_user_frags xarray.
    Xarray,
    /// "array" (seed 004, autorelease off): a token is the net_iov's index
    /// in the binding; the kernel counts tokens per net_iov (niov->uref).
    Array,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Xarray, Mode::Array];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Xarray => "xarray",
            Mode::Array => "array",
        }
    }

    pub fn from_id(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == s)
    }
}

crate::mutant::spec_mutants! {
    spec "DevmemTokens.tla", named "devmem";
    None => "none",
    /// SO_DEVMEM_DONTNEED examines every token asked for.
    DontneedLoop => "dm-dontneed-loop",
    /// A truncated cmsg loses the token, the reference is
    /// taken anyway.
    CmsgTrunc => "dm-cmsg-trunc",
    /// A release reads uref > 0 and decrements it later.
    UrefRace => "zcrx-uref-race",
    /// Recvmsg takes no reference for the token.
    RecvNoRef => "dm-recv-no-ref",
    /// Close keeps the socket's tokens (xarray).
    CloseNoRelease => "dm-close-no-release",
    /// Unbind leaves the urefs (array).
    UnbindNoCleanup => "dm-unbind-no-cleanup",
    /// Bindings of both modes at once.
    ModeMix => "dm-mode-mix",
    /// Netlink close reads binding->dev after its put (42f342387841).
    NlCloseUaf => "dm-nl-close-uaf",
    /// Netlink close locks a device already gone (0afc44d8cdf6).
    NlCloseDevGone => "dm-nl-close-dev-gone",
    /// A socket becomes a user without a binding reference.
    SockNoBindingRef => "dm-sock-no-binding-ref",
    /// The system-wide mode resets at unbind, not at free.
    ModeResetEarly => "dm-mode-reset-early",
}

impl Mutant {
    /// The ringlab-mutant switch of a lifetime mutant: a mutants build
    /// told to put it back makes the model itself wrong, whatever the
    /// .cfg says (the chain check of devmem_bfs).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Mutant::NlCloseUaf => Some("mutant-dm-nl-close-uaf"),
            Mutant::NlCloseDevGone => Some("mutant-dm-nl-close-dev-gone"),
            Mutant::SockNoBindingRef => Some("mutant-dm-sock-no-binding-ref"),
            Mutant::ModeResetEarly => Some("mutant-dm-mode-reset-early"),
            _ => None,
        }
    }
}

/// The spec's CONSTANTS. Bindings are model values, named here and
/// numbered by their position in `bindings` (the order TLC gives them: the
/// order the .cfg lists them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub bindings: Vec<String>,
    /// SocksPer: TCP sockets steered to each binding's queues.
    pub socks_per: u8,
    /// NiovsPer: net_iovs in each binding.
    pub niovs_per: u8,
    /// Parts: recvmsg calls a frag may be split over.
    pub parts: u32,
    /// Modes, in TLC's order (Xarray before Array), without repeats.
    pub modes: Vec<Mode>,
    /// MaxCount: the largest token_count of one dmabuf_token.
    pub max_count: u32,
    /// DontneedLimit: MAX_DONTNEED_FRAGS.
    pub dontneed_limit: u32,
    /// Lifetime: the binding's refcount, device and system-wide mode.
    pub lifetime: bool,
    pub mutant: Mutant,
}

impl Config {
    /// MCDevmem_Xarray.cfg: one binding, two sockets, two net_iovs, frags
    /// read in two pieces, xarray mode.
    pub fn xarray() -> Config {
        Config {
            bindings: vec!["b1".into()],
            socks_per: 2,
            niovs_per: 2,
            parts: 2,
            modes: vec![Mode::Xarray],
            max_count: 3,
            dontneed_limit: 2,
            lifetime: false,
            mutant: Mutant::None,
        }
    }

    /// MCDevmem_Array.cfg: as xarray() in array mode.
    pub fn array() -> Config {
        Config {
            modes: vec![Mode::Array],
            ..Config::xarray()
        }
    }

    /// MCDevmem_Modes.cfg: two bindings of one socket and one net_iov
    /// each, either mode.
    pub fn modes() -> Config {
        Config {
            bindings: vec!["b1".into(), "b2".into()],
            socks_per: 1,
            niovs_per: 1,
            parts: 1,
            modes: Mode::ALL.to_vec(),
            max_count: 3,
            dontneed_limit: 2,
            lifetime: false,
            mutant: Mutant::None,
        }
    }

    /// MCDevmem_LifetimeXarray.cfg: xarray() with the binding's lifetime.
    pub fn lifetime_xarray() -> Config {
        Config {
            lifetime: true,
            ..Config::xarray()
        }
    }

    /// The same constants with another mutant.
    pub fn with_mutant(self, mutant: Mutant) -> Config {
        Config { mutant, ..self }
    }

    /// Whether the step puts mutant `m` back: the .cfg's Mutant says so,
    /// or (a lifetime mutant) a mutants build was told to by
    /// ringlab-mutant.
    pub fn bug(&self, m: Mutant) -> bool {
        self.mutant == m || m.feature().is_some_and(ringlab_mutant::on)
    }

    /// The spec's ASSUMEs, and what the model's types need.
    pub fn validate(&self) -> Result<(), String> {
        if self.socks_per == 0 {
            return Err("SocksPer = 0 is not in Nat \\ {0}".into());
        }
        if self.niovs_per == 0 {
            return Err("NiovsPer = 0 is not in Nat \\ {0}".into());
        }
        if self.parts == 0 {
            return Err("Parts = 0 is not in Nat \\ {0}".into());
        }
        if self.max_count == 0 {
            return Err("MaxCount = 0 is not in Nat \\ {0}".into());
        }
        if self.dontneed_limit == 0 {
            return Err("DontneedLimit = 0 is not in Nat \\ {0}".into());
        }
        if self.modes.is_empty() {
            return Err("Modes is empty".into());
        }
        if self.modes.windows(2).any(|w| w[0] >= w[1]) {
            return Err("Modes must be listed in TLC's order (xarray, array), once each".into());
        }
        if self.bindings.len() > usize::from(u8::MAX) {
            return Err("the model takes at most 255 bindings".into());
        }
        for (i, b) in self.bindings.iter().enumerate() {
            if self.bindings[..i].contains(b) {
                return Err(format!("binding {b} is listed twice"));
            }
        }
        Ok(())
    }

    /// The mode of a binding not yet bound: Init's `CHOOSE m \in Modes :
    /// TRUE`, the first of Modes in TLC's order ("xarray" when Modes has
    /// it; TLC's dump of MCDevmem_Modes.cfg shows it).
    pub fn init_mode(&self) -> Mode {
        self.modes[0]
    }

    /// The bindings, numbered.
    pub fn binding_ids(&self) -> impl Iterator<Item = Binding> {
        0..self.bindings.len() as Binding
    }

    /// Socks, in TLC's order: by binding, then index.
    pub fn socks(&self) -> Vec<Sock> {
        self.binding_ids().flat_map(|b| self.socks_of(b)).collect()
    }

    /// SocksOf(b).
    pub fn socks_of(&self, b: Binding) -> Vec<Sock> {
        (0..self.socks_per).map(|i| Sock { b, i }).collect()
    }

    /// Niovs, in TLC's order: by binding, then index.
    pub fn niovs(&self) -> Vec<Niov> {
        self.binding_ids().flat_map(|b| self.niovs_of(b)).collect()
    }

    /// The net_iovs of binding b.
    pub fn niovs_of(&self, b: Binding) -> Vec<Niov> {
        (0..self.niovs_per).map(|i| Niov { b, i }).collect()
    }

    /// |Toks| = NiovsPer * Parts: Toks is 0 .. toks() - 1.
    pub fn toks(&self) -> Tok {
        Tok::from(self.niovs_per) * self.parts
    }

    /// Where socket s sits in State's per-socket vectors.
    pub fn sock_index(&self, s: Sock) -> usize {
        usize::from(s.b) * usize::from(self.socks_per) + usize::from(s.i)
    }

    /// Where net_iov n sits in State's per-net_iov vectors.
    pub fn niov_index(&self, n: Niov) -> usize {
        usize::from(n.b) * usize::from(self.niovs_per) + usize::from(n.i)
    }

    pub fn has_binding(&self, b: Binding) -> bool {
        usize::from(b) < self.bindings.len()
    }

    /// s \in Socks
    pub fn has_sock(&self, s: Sock) -> bool {
        self.has_binding(s.b) && s.i < self.socks_per
    }

    /// n \in Niovs
    pub fn has_niov(&self, n: Niov) -> bool {
        self.has_binding(n.b) && n.i < self.niovs_per
    }
}
