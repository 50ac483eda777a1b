//! The application's side of the tokens: which tokens it holds, by the
//! socket it received each one through (the spec's history variable
//! `user`), and the releases through one socket of a token another
//! received (`stolen`).

use std::collections::BTreeSet;

use ringlab_model::devmem::{Binding, Config, Mode, Sock, Stolen, Tok};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    /// user[sock_index(s)][t]: tokens t held from s (xarray mode: 0 or 1).
    pub user: Vec<Vec<u32>>,
    pub stolen: BTreeSet<Stolen>,
    socks: Vec<Sock>,
}

impl App {
    pub fn new(cfg: &Config) -> App {
        let socks = cfg.socks();
        App {
            user: vec![vec![0; cfg.toks() as usize]; socks.len()],
            stolen: BTreeSet::new(),
            socks,
        }
    }

    fn index(&self, s: Sock) -> usize {
        self.socks
            .iter()
            .position(|&o| o == s)
            .expect("a socket of the config")
    }

    fn slot(&mut self, s: Sock, t: Tok) -> &mut u32 {
        let k = self.index(s);
        let row = &mut self.user[k];
        if row.len() <= t as usize {
            // Only after a broken invariant (more tokens than the spec's
            // Toks): keep the count, the projection reports it.
            row.resize(t as usize + 1, 0);
        }
        &mut row[t as usize]
    }

    /// Tokens held from s, with their counts.
    pub fn held(&self, s: Sock) -> Vec<(Tok, u32)> {
        self.user[self.index(s)]
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(t, &c)| (t as Tok, c))
            .collect()
    }

    /// recvmsg() handed token t through s; the application knows it if
    /// told.
    pub fn received(&mut self, s: Sock, t: Tok, told: bool) {
        if told {
            *self.slot(s, t) += 1;
        }
    }

    /// Holder(s, i): s if it holds i, else the first socket of its
    /// binding that does, else s.
    pub fn holder(&self, s: Sock, i: Tok) -> Sock {
        let holds = |o: Sock| {
            self.user[self.index(o)]
                .get(i as usize)
                .is_some_and(|&c| c > 0)
        };
        if holds(s) {
            return s;
        }
        self.socks
            .iter()
            .copied()
            .find(|&o| o.b == s.b && holds(o))
            .unwrap_or(s)
    }

    /// SO_DEVMEM_DONTNEED through s released `freed`. Xarray mode: s's
    /// ids. Array mode (ReleaseUser): each index from whoever holds it,
    /// recorded as stolen if that is another socket.
    pub fn released(&mut self, s: Sock, mode: Mode, freed: &[Tok]) {
        match mode {
            Mode::Xarray => {
                for &t in freed {
                    *self.slot(s, t) = 0;
                }
            }
            Mode::Array => {
                for &tok in freed {
                    let from = self.holder(s, tok);
                    let c = self.slot(from, tok);
                    *c = c.saturating_sub(1);
                    if from != s {
                        self.stolen.insert(Stolen { tok, by: s, from });
                    }
                }
            }
        }
    }

    /// close(s): in xarray mode its tokens are void.
    pub fn closed(&mut self, s: Sock, mode: Mode) {
        if mode == Mode::Xarray {
            let k = self.index(s);
            self.user[k].fill(0);
        }
    }

    /// Unbind of b with array mode's cleanup: every token of its sockets
    /// is void.
    pub fn unbound(&mut self, b: Binding) {
        for k in 0..self.socks.len() {
            if self.socks[k].b == b {
                self.user[k].fill(0);
            }
        }
    }
}
