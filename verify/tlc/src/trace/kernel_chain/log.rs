//! The entries specs/XskCopyTxTraces.tla reads: a boundary entry with a
//! whole state where a trace starts, then per step what the step changed
//! (a set as frames added and removed, a sequence as an [`Edit`], a
//! per-socket value for the sockets that changed) and the action the
//! projection names. The spec rebuilds every whole state from them, so
//! the log is the trace, written shorter.

use std::collections::BTreeSet;

use ringlab_model::afxdp::TraceStep;
use ringlab_model::copy_tx::tla::{record, seq, set, state_record, tla_bool, Names};
use ringlab_model::copy_tx::{Call, Config, Frame, State};

/// A sequence changed: `drop` elements off its front and `cut` off its
/// back, then `front` put before and `back` after what is left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit<T> {
    pub drop: usize,
    pub cut: usize,
    pub front: Vec<T>,
    pub back: Vec<T>,
}

impl<T: Clone + PartialEq> Edit<T> {
    /// A short edit from `old` to `new`, None if they are equal: the FIFO
    /// shapes (appended, taken from the front, cancelled from the back,
    /// put back in front) first, else a whole replacement.
    pub fn between(old: &[T], new: &[T]) -> Option<Edit<T>> {
        if old == new {
            return None;
        }
        let mut best: Option<Edit<T>> = None;
        let mut keep = |e: Edit<T>| {
            if best.as_ref().map_or(true, |b| e.len() < b.len()) {
                best = Some(e);
            }
        };
        if new.len() <= old.len() && old.starts_with(new) {
            keep(Edit { drop: 0, cut: old.len() - new.len(), front: vec![], back: vec![] });
        }
        if let Some(d) = (0..=old.len()).find(|&d| new.starts_with(&old[d..])) {
            let back = new[old.len() - d..].to_vec();
            keep(Edit { drop: d, cut: 0, front: vec![], back });
        }
        if let Some(d) = (0..old.len()).find(|&d| new.ends_with(&old[d..])) {
            let front = new[..new.len() - (old.len() - d)].to_vec();
            keep(Edit { drop: d, cut: 0, front, back: vec![] });
        }
        best
    }

    fn len(&self) -> usize {
        self.front.len() + self.back.len()
    }

    /// The sequence the edit makes of `old` (the spec's Edit).
    pub fn apply(&self, old: &[T]) -> Vec<T> {
        let mid = &old[self.drop..old.len() - self.cut];
        self.front.iter().chain(mid).chain(&self.back).cloned().collect()
    }

    fn text(&self, item: impl Fn(&T) -> String) -> String {
        record(&[
            ("drop", self.drop.to_string()),
            ("cut", self.cut.to_string()),
            ("front", seq(&self.front, &item)),
            ("back", seq(&self.back, &item)),
        ])
    }
}

/// `(s1 :> x @@ s2 :> y)` for the sockets where `text` gives a change.
fn per_socket(n: &Names, len: usize, text: impl Fn(usize) -> Option<String>) -> Option<String> {
    let pairs: Vec<String> = (0..len)
        .filter_map(|s| text(s).map(|t| format!("{} :> {t}", n.sock(s as u8))))
        .collect();
    (!pairs.is_empty()).then(|| format!("({})", pairs.join(" @@ ")))
}

/// An edit's text, if the sequences differ.
fn edit_text<T: Clone + PartialEq>(old: &[T], new: &[T], item: impl Fn(&T) -> String) -> Option<String> {
    Edit::between(old, new).map(|e| e.text(item))
}

fn call_text(n: &Names, old: &Call, new: &Call) -> Option<String> {
    if old == new {
        return None;
    }
    let batch = Edit::between(&old.batch, &new.batch)
        .unwrap_or(Edit { drop: 0, cut: 0, front: vec![], back: vec![] });
    Some(record(&[
        ("stage", format!("\"{}\"", new.stage.id())),
        ("done", new.done.to_string()),
        ("pend", new.pend.to_string()),
        ("batch", batch.text(|d| n.desc(d))),
        ("snap", new.snap.to_string()),
    ]))
}

/// What a step from `a` to `b` changed, as the record `d` of its entry.
pub fn changes(cfg: &Config, a: &State, b: &State) -> String {
    let n = Names(cfg);
    let ns = cfg.sockets.len();
    let frames = |s: &BTreeSet<Frame>| set(s.iter().map(|f| n.frame(*f)));
    let flag = |x: &[bool], y: &[bool]| per_socket(&n, ns, |s| (x[s] != y[s]).then(|| tla_bool(y[s]).to_string()));
    let mut fields: Vec<(&str, String)> = Vec::new();
    if a.free != b.free {
        let add = b.free.difference(&a.free).copied().collect();
        let del = a.free.difference(&b.free).copied().collect();
        fields.push(("free", record(&[("add", frames(&add)), ("del", frames(&del))])));
    }
    let tx = per_socket(&n, ns, |s| edit_text(&a.tx[s], &b.tx[s], |d| n.desc(d)));
    let part = per_socket(&n, ns, |s| edit_text(&a.part[s], &b.part[s], |f| n.frame(*f)));
    let call = per_socket(&n, ns, |s| call_text(&n, &a.call[s], &b.call[s]));
    let seqs = [
        ("tx", tx),
        ("cq", edit_text(&a.cq, &b.cq, |f| n.frame(*f))),
        ("resv", edit_text(&a.resv, &b.resv, |r| n.slot(r))),
        ("flight", (a.flight != b.flight).then(|| set(b.flight.iter().map(|k| n.skb(k))))),
        ("call", call),
        ("part", part),
        ("drain", flag(&a.drain, &b.drain)),
        ("pubd", flag(&a.pubd, &b.pubd)),
        ("rewound", flag(&a.rewound, &b.rewound)),
    ];
    fields.extend(seqs.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    if fields.is_empty() {
        // A stutter: a function with no domain, so nothing changes.
        return "<<>>".into();
    }
    record(&fields)
}

/// A trace's boundary entry: its first state, whole.
pub fn boundary(cfg: &Config, s: &State) -> String {
    record(&[("kind", "\"init\"".into()), ("st", state_record(cfg, s))])
}

/// The entry of step `k`, from `a` to `b`.
pub fn step(cfg: &Config, k: &TraceStep, a: &State, b: &State) -> String {
    let n = Names(cfg);
    let mut f: Vec<(&str, String)> = vec![("kind", "\"step\"".into()), ("act", format!("\"{}\"", k.action))];
    if let Some(s) = k.hint.sock {
        f.push(("s", n.sock(s)));
    }
    if let Some(fr) = k.hint.frame {
        f.push(("f", n.frame(fr)));
    }
    if let Some(d) = k.hint.desc {
        f.push(("ok", tla_bool(d.ok).into()));
        f.push(("c", tla_bool(d.contd).into()));
    }
    f.push(("d", changes(cfg, a, b)));
    record(&f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_rebuild_the_new_sequence() {
        let cases: [(&[u8], &[u8]); 8] = [
            (&[1, 2, 3], &[1, 2, 3, 4]),
            (&[1, 2, 3], &[2, 3]),
            (&[1, 2, 3], &[1, 2]),
            (&[1, 2, 3], &[7, 8, 2, 3]),
            (&[1, 2, 3], &[]),
            (&[], &[5]),
            (&[1, 1, 1], &[1, 1]),
            (&[1, 2, 3], &[9]),
        ];
        for (old, new) in cases {
            let e = Edit::between(old, new).unwrap();
            assert_eq!(e.apply(old), new, "{old:?} -> {new:?}: {e:?}");
        }
        assert_eq!(Edit::between(&[1, 2], &[1, 2]), None);
        let pop = Edit::between(&[1, 2, 3], &[2, 3, 4]).unwrap();
        assert_eq!((pop.drop, pop.cut, pop.back.as_slice()), (1, 0, &[4][..]));
    }
}
