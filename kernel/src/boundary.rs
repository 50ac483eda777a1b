//! `ringlab diff --boundary`: every descriptor of the model's boundary
//! grids sent alone to the running kernel, on aligned and unaligned umems,
//! and each accept/refuse held to the model's validator (ringlab_model::desc)
//! for the pool the same registration makes. The kernel's side is
//! boundary_live.rs; this file holds the cases, the verdicts and their
//! comparison.

use serde::{Deserialize, Serialize};

use ringlab_model::desc::{
    boundary_grid, boundary_grid_unaligned, xp_validate_desc, Boundary, Desc, Pages, Pool, UmemReg, XDP_PKT_CONTD, XDP_TX_METADATA,
};

/// How the umem's chunks are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    Aligned,
    /// XDP_UMEM_UNALIGNED_CHUNK_FLAG.
    Unaligned,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Aligned => "aligned",
            Mode::Unaligned => "unaligned",
        }
    }
}

/// One umem: its mode, chunk size and number of chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub mode: Mode,
    pub chunk: u32,
    pub frames: u32,
}

impl Case {
    pub fn umem_len(&self) -> u64 {
        self.frames as u64 * self.chunk as u64
    }

    /// What XDP_UMEM_REG is given, as the model reads it (no tx metadata;
    /// x86-64 pages). Copy mode maps no DMA pages, so a packet may cross
    /// pages (Pages::Contiguous).
    pub fn reg(&self) -> UmemReg {
        UmemReg {
            size: self.umem_len(),
            chunk_size: self.chunk,
            unaligned: self.mode == Mode::Unaligned,
            tx_metadata_len: None,
            page_size: ringlab_model::desc::PAGE_SIZE,
        }
    }

    pub fn model_pool(&self) -> Result<Pool<u64>, String> {
        self.reg().xdp_umem_reg(Pages::Contiguous).map_err(|e| e.to_string())
    }

    /// The grid of the case's mode.
    pub fn grid(&self) -> Vec<Boundary> {
        match self.mode {
            Mode::Aligned => boundary_grid(self.chunk as u64, self.umem_len()),
            Mode::Unaligned => boundary_grid_unaligned(self.chunk as u64, self.umem_len()),
        }
    }

    /// A descriptor valid in either mode, without XDP_PKT_CONTD: sent after
    /// each descriptor with XDP_PKT_CONTD so that the packet it may have
    /// opened is closed before the next descriptor.
    pub fn closer(&self) -> Boundary {
        Boundary { addr: 2 * self.chunk as u64, len: 60, options: 0, what: "closes the packet".into() }
    }

    /// A valid descriptor with XDP_PKT_CONTD, sent before each descriptor
    /// with XDP_TX_METADATA: xsk_build_skb() reads metadata from a packet's
    /// first descriptor only, and on a pool without tx_metadata_len fails
    /// that one with EINVAL and leaves it on the ring, whatever the check
    /// said. Second in a packet, only the check judges it.
    pub fn opener(&self) -> Boundary {
        Boundary { addr: 3 * self.chunk as u64, len: 60, options: XDP_PKT_CONTD, what: "opens a packet".into() }
    }
}

/// The umems tried: both modes at 2048 (XDP_UMEM_MIN_CHUNK_SIZE), aligned
/// at a page, unaligned at a size that is not a power of two; 16 chunks
/// each, at least two pages (the unaligned grid crosses a page).
pub const CASES: [Case; 4] = [
    Case { mode: Mode::Aligned, chunk: 2048, frames: 16 },
    Case { mode: Mode::Aligned, chunk: 4096, frames: 16 },
    Case { mode: Mode::Unaligned, chunk: 2048, frames: 16 },
    Case { mode: Mode::Unaligned, chunk: 3000, frames: 16 },
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Accepted,
    Refused,
}

impl Verdict {
    pub fn of(ok: bool) -> Verdict {
        if ok {
            Verdict::Accepted
        } else {
            Verdict::Refused
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Refused => "refused",
        }
    }
}

/// What the kernel showed for one descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// tx_invalid_descs gained over the descriptor's own sendto.
    pub invalid: u64,
    /// Completions after it (and after its closer, for XDP_PKT_CONTD).
    pub completions: u32,
    /// Completions an accepted descriptor makes: its own, its opener's
    /// and its closer's.
    pub expected: u32,
    /// Sent second in a packet, after the case's opener: refused, it drops
    /// the opener with it (xsk_drop_skb), which counts invalid too.
    pub in_packet: bool,
    /// The sendto's errno, 0 if it succeeded.
    pub errno: i32,
}

impl Seen {
    /// Refused: the invalid count went up by one (two in a packet: the
    /// opener is dropped with it). Accepted: it did not, and the packet
    /// completed. Anything else has no verdict, and says what was seen.
    pub fn verdict(&self) -> Result<Verdict, String> {
        let refused = self.invalid_if_refused();
        match self.invalid {
            n if n == refused => Ok(Verdict::Refused),
            0 if self.completions == self.expected => Ok(Verdict::Accepted),
            _ => Err(format!(
                "no verdict: tx_invalid_descs +{} (refused makes +{refused}), {} completions (accepted makes {}), sendto errno {}",
                self.invalid, self.completions, self.expected, self.errno
            )),
        }
    }

    /// What tx_invalid_descs gains if the descriptor is refused.
    pub fn invalid_if_refused(&self) -> u64 {
        1 + self.in_packet as u64
    }
}

/// How a descriptor is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// XDP_TX_METADATA: second in a packet, after [`Case::opener`].
    pub opener: bool,
    /// XDP_PKT_CONTD: it may open a packet, so [`Case::closer`] follows.
    pub closer: bool,
}

impl Plan {
    pub fn of(d: &Boundary) -> Plan {
        Plan { opener: d.options & XDP_TX_METADATA != 0, closer: d.options & XDP_PKT_CONTD != 0 }
    }

    /// The completions an accepted descriptor makes: its own, its
    /// opener's and its closer's.
    pub fn completions(self) -> u32 {
        1 + self.opener as u32 + self.closer as u32
    }
}

/// A descriptor the kernel and the model judged differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disagreement {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
    pub what: String,
    /// The kernel's verdict, or why it has none.
    pub kernel: Result<Verdict, String>,
    pub model: Verdict,
}

/// One umem's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseResult {
    pub mode: Mode,
    pub chunk: u32,
    pub umem_len: u64,
    /// XDP_UMEM_REG: the kernel's answer (Err: its error) and the model's.
    pub kernel_reg: Result<(), String>,
    pub model_reg: Result<(), String>,
    pub tried: u32,
    pub accepted: u32,
    pub refused: u32,
    pub disagreements: Vec<Disagreement>,
    /// Every descriptor's verdict, in grid order (Err: none).
    pub verdicts: Vec<Result<Verdict, String>>,
}

impl CaseResult {
    /// Both registrations agree and every descriptor too.
    pub fn ok(&self) -> bool {
        self.kernel_reg.is_ok() == self.model_reg.is_ok() && self.disagreements.is_empty()
    }
}

/// `ringlab diff --boundary`'s document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundaryDoc {
    /// `uname -r`.
    pub kernel: String,
    pub cases: Vec<CaseResult>,
    pub ok: bool,
}

impl BoundaryDoc {
    pub fn of(kernel: String, cases: Vec<CaseResult>) -> BoundaryDoc {
        let ok = !cases.is_empty() && cases.iter().all(CaseResult::ok);
        BoundaryDoc { kernel, cases, ok }
    }

    /// The result for `case`'s umem, if it was run.
    pub fn case(&self, case: &Case) -> Option<&CaseResult> {
        self.cases.iter().find(|c| c.mode == case.mode && c.chunk == case.chunk)
    }
}

/// The model's verdict on `d` for `pool`.
pub fn model_verdict(pool: &Pool<u64>, d: &Boundary) -> Verdict {
    Verdict::of(xp_validate_desc(pool, &Desc::new(d.addr, d.len, d.options)))
}

/// Holds the kernel's answers for `case` to the model's: `kernel_reg` is
/// XDP_UMEM_REG's result, `seen` one entry per grid descriptor (empty when
/// the registration failed), `model` the validator to hold them to.
pub fn compare(case: &Case, kernel_reg: Result<(), String>, seen: &[Seen], model: impl Fn(&Pool<u64>, &Boundary) -> Verdict) -> CaseResult {
    let grid = case.grid();
    let pool = case.model_pool();
    let mut r = CaseResult {
        mode: case.mode,
        chunk: case.chunk,
        umem_len: case.umem_len(),
        kernel_reg,
        model_reg: pool.as_ref().map(|_| ()).map_err(Clone::clone),
        tried: seen.len() as u32,
        accepted: 0,
        refused: 0,
        disagreements: Vec::new(),
        verdicts: Vec::new(),
    };
    let Ok(pool) = pool else { return r };
    for (d, s) in grid.iter().zip(seen) {
        let kernel = s.verdict();
        match kernel {
            Ok(Verdict::Accepted) => r.accepted += 1,
            Ok(Verdict::Refused) => r.refused += 1,
            Err(_) => {}
        }
        let want = model(&pool, d);
        if kernel.as_ref() != Ok(&want) {
            r.disagreements.push(Disagreement { addr: d.addr, len: d.len, options: d.options, what: d.what.clone(), kernel: kernel.clone(), model: want });
        }
        r.verdicts.push(kernel);
    }
    r
}

/// What a kernel that judges every grid descriptor of `case` as the
/// model does would show (for checking what reads the results); Err if
/// the model refuses the umem.
pub fn seen_as_modelled(case: &Case) -> Result<Vec<Seen>, String> {
    let pool = case.model_pool()?;
    let seen = |d: &Boundary| {
        let plan = Plan::of(d);
        let s = Seen { invalid: 0, completions: 0, expected: plan.completions(), errno: 0, in_packet: plan.opener };
        match model_verdict(&pool, d) {
            Verdict::Accepted => Seen { completions: s.expected, ..s },
            Verdict::Refused => Seen { invalid: s.invalid_if_refused(), ..s },
        }
    };
    Ok(case.grid().iter().map(seen).collect())
}

/// The table `ringlab diff --boundary` prints, one row a umem, then each
/// disagreement.
pub fn table(doc: &BoundaryDoc) -> String {
    let mut t = format!("boundary descriptors on {} (each sent alone; refused: tx_invalid_descs +1, +2 second in a packet)\n", doc.kernel);
    t += &format!("  {:<10} {:>5} {:>9} {:>6} {:>9} {:>8} {:>13}\n", "umem", "chunk", "umem len", "tried", "accepted", "refused", "disagreements");
    for c in &doc.cases {
        let reg = match (&c.kernel_reg, &c.model_reg) {
            (Ok(()), Ok(())) => String::new(),
            (k, m) => format!("  XDP_UMEM_REG: kernel {}, model {}", reg_word(k), reg_word(m)),
        };
        t += &format!(
            "  {:<10} {:>5} {:>9} {:>6} {:>9} {:>8} {:>13}{reg}\n",
            c.mode.name(),
            c.chunk,
            c.umem_len,
            c.tried,
            c.accepted,
            c.refused,
            c.disagreements.len()
        );
    }
    for c in &doc.cases {
        for d in &c.disagreements {
            t += &format!("  DISAGREE {} {}: {}\n", c.mode.name(), c.chunk, disagreement_line(d));
        }
    }
    t += &format!("boundary: {}\n", if doc.ok { "kernel and model agree on every descriptor" } else { "FAILED" });
    t
}

fn reg_word(r: &Result<(), String>) -> String {
    match r {
        Ok(()) => "registers".into(),
        Err(e) => format!("refuses ({e})"),
    }
}

/// A kernel's verdict, or why it has none, for people.
fn kernel_word(v: &Result<Verdict, String>) -> String {
    match v {
        Ok(v) => v.word().to_string(),
        Err(e) => e.clone(),
    }
}

/// One disagreement, for people.
pub fn disagreement_line(d: &Disagreement) -> String {
    format!("addr {:#x} len {} options {:#x} ({}): kernel {}, model {}", d.addr, d.len, d.options, d.what, kernel_word(&d.kernel), d.model.word())
}

/// A descriptor two kernels judged differently, with the model's verdict
/// (the validator is the same under every profile: no rule of
/// afxdp::rules touches the descriptor check).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelDifference {
    pub mode: Mode,
    pub chunk: u32,
    pub addr: u64,
    pub len: u32,
    pub options: u32,
    pub what: String,
    pub a: Result<Verdict, String>,
    pub b: Result<Verdict, String>,
    pub model: Verdict,
}

/// Where kernels `a` and `b` judged a descriptor (or a registration)
/// differently, case by case of [`CASES`].
pub fn kernel_differences(a: &BoundaryDoc, b: &BoundaryDoc) -> Vec<KernelDifference> {
    let mut out = Vec::new();
    for case in &CASES {
        let (Some(ca), Some(cb)) = (a.case(case), b.case(case)) else { continue };
        let pool = case.model_pool();
        let grid = case.grid();
        let reg = |c: &CaseResult| c.kernel_reg.as_ref().map(|_| Verdict::Accepted).map_err(Clone::clone);
        if ca.kernel_reg.is_ok() != cb.kernel_reg.is_ok() {
            out.push(KernelDifference {
                mode: case.mode,
                chunk: case.chunk,
                addr: 0,
                len: 0,
                options: 0,
                what: "XDP_UMEM_REG".into(),
                a: reg(ca),
                b: reg(cb),
                model: Verdict::of(pool.is_ok()),
            });
        }
        let Ok(pool) = pool else { continue };
        for ((d, va), vb) in grid.iter().zip(&ca.verdicts).zip(&cb.verdicts) {
            if va != vb {
                out.push(KernelDifference {
                    mode: case.mode,
                    chunk: case.chunk,
                    addr: d.addr,
                    len: d.len,
                    options: d.options,
                    what: d.what.clone(),
                    a: va.clone(),
                    b: vb.clone(),
                    model: model_verdict(&pool, d),
                });
            }
        }
    }
    out
}

/// Two kernels' tables side by side (`name_a`, `name_b` head the
/// columns), then every descriptor they judged differently.
pub fn side_by_side(a: &BoundaryDoc, b: &BoundaryDoc, name_a: &str, name_b: &str) -> String {
    let cols = |c: Option<&CaseResult>| match c {
        Some(c) => format!("{:>5} {:>8} {:>7} {:>8}", c.tried, c.accepted, c.refused, c.disagreements.len()),
        None => format!("{:>31}", "(not run)"),
    };
    let mut t = format!("boundary descriptors: {name_a} {} | {name_b} {}\n", a.kernel, b.kernel);
    t += &format!("  {:<10} {:>5} | {name_a:<31} | {name_b}\n", "", "");
    t += &format!("  {:<10} {:>5} | {h} | {h}\n", "umem", "chunk", h = "tried accepted refused disagree");
    for case in &CASES {
        t += &format!("  {:<10} {:>5} | {} | {}\n", case.mode.name(), case.chunk, cols(a.case(case)), cols(b.case(case)));
    }
    let diffs = kernel_differences(a, b);
    for d in &diffs {
        t += &format!(
            "  KERNELS DIFFER {} {}: addr {:#x} len {} options {:#x} ({}): {name_a} {}, {name_b} {}, model {}\n",
            d.mode.name(),
            d.chunk,
            d.addr,
            d.len,
            d.options,
            d.what,
            kernel_word(&d.a),
            kernel_word(&d.b),
            d.model.word()
        );
    }
    for (name, doc) in [(name_a, a), (name_b, b)] {
        for c in &doc.cases {
            for d in &c.disagreements {
                t += &format!("  DISAGREE {name} {} {}: {}\n", c.mode.name(), c.chunk, disagreement_line(d));
            }
        }
    }
    t += &format!("  the two kernels judged {} descriptors differently\n", diffs.len());
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agreeing(case: &Case) -> Vec<Seen> {
        seen_as_modelled(case).unwrap()
    }

    #[test]
    fn a_flipped_model_verdict_is_a_disagreement() {
        for case in &CASES {
            let seen = agreeing(case);
            let r = compare(case, Ok(()), &seen, model_verdict);
            assert!(r.ok() && r.tried as usize == case.grid().len(), "{r:?}");
            assert!(r.accepted > 0 && r.refused > 0);
            // The model wrong on the third descriptor only.
            let third = case.grid()[2].clone();
            let flipped = |p: &Pool<u64>, d: &Boundary| {
                let v = model_verdict(p, d);
                if *d == third {
                    Verdict::of(v == Verdict::Refused)
                } else {
                    v
                }
            };
            let r = compare(case, Ok(()), &seen, flipped);
            assert!(!r.ok());
            assert_eq!(r.disagreements.len(), 1, "{r:?}");
            assert_eq!(r.disagreements[0].what, third.what);
            let doc = BoundaryDoc::of("test".into(), vec![r]);
            assert!(!doc.ok && table(&doc).contains("DISAGREE"));
        }
    }

    #[test]
    fn no_verdict_and_a_refused_registration_are_disagreements() {
        let case = &CASES[0];
        let mut seen = agreeing(case);
        seen[0] = Seen { invalid: 0, completions: 0, expected: 1, errno: libc::EAGAIN, in_packet: false };
        let r = compare(case, Ok(()), &seen, model_verdict);
        assert_eq!(r.disagreements.len(), 1);
        assert!(r.disagreements[0].kernel.as_ref().unwrap_err().contains("no verdict"));
        let r = compare(case, Err("XDP_UMEM_REG: EINVAL".into()), &[], model_verdict);
        assert!(!r.ok(), "the model registers what the kernel refused");
    }

    #[test]
    fn every_case_registers_in_the_model_and_has_a_valid_closer() {
        for case in &CASES {
            let pool = case.model_pool().unwrap();
            assert_eq!(model_verdict(&pool, &case.closer()), Verdict::Accepted, "{case:?}");
            assert_eq!(model_verdict(&pool, &case.opener()), Verdict::Accepted, "{case:?}");
        }
    }

    #[test]
    fn kernels_that_differ_on_one_descriptor_are_shown_it() {
        let docs: Vec<BoundaryDoc> = (0..2)
            .map(|_| BoundaryDoc::of("k".into(), CASES.iter().map(|c| compare(c, Ok(()), &agreeing(c), model_verdict)).collect()))
            .collect();
        assert!(kernel_differences(&docs[0], &docs[1]).is_empty());
        let mut b = docs[1].clone();
        b.cases[2].verdicts[0] = Ok(Verdict::Accepted); // len 0
        let d = kernel_differences(&docs[0], &b);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].mode, d[0].chunk, d[0].len, d[0].model), (Mode::Unaligned, 2048, 0, Verdict::Refused));
        assert!(side_by_side(&docs[0], &b, "host", "vm").contains("KERNELS DIFFER unaligned 2048"));
    }

    #[test]
    fn a_registration_only_one_kernel_refuses_is_a_difference() {
        let agree = |c: &Case| compare(c, Ok(()), &agreeing(c), model_verdict);
        let a = BoundaryDoc::of("a".into(), CASES.iter().map(agree).collect());
        let mut b = a.clone();
        b.cases[1] = compare(&CASES[1], Err("XDP_UMEM_REG: EINVAL".into()), &[], model_verdict);
        let d = kernel_differences(&a, &b);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].what.as_str(), d[0].chunk, &d[0].a, d[0].model), ("XDP_UMEM_REG", 4096, &Ok(Verdict::Accepted), Verdict::Accepted));
        assert!(d[0].b.is_err());
    }

    #[test]
    fn each_option_adds_its_packet_part() {
        let plan = |options| Plan::of(&Boundary { addr: 0, len: 60, options, what: String::new() });
        assert_eq!(plan(0).completions(), 1);
        assert_eq!(plan(XDP_PKT_CONTD), Plan { opener: false, closer: true });
        assert_eq!(plan(XDP_TX_METADATA), Plan { opener: true, closer: false });
        assert_eq!(plan(XDP_PKT_CONTD | XDP_TX_METADATA).completions(), 3);
    }

    #[test]
    fn the_document_round_trips() {
        let case = &CASES[3];
        let doc = BoundaryDoc::of("6.12.117".into(), vec![compare(case, Ok(()), &agreeing(case), model_verdict)]);
        let back: BoundaryDoc = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert_eq!(back, doc);
    }
}
