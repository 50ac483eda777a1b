//! Geometry of the ring diagram (assets/README.md, "The diagram"): up to
//! 32 slots a ring, slot 0 at 12 o'clock and clockwise; more, a bar.

use std::f64::consts::PI;

use super::markup::f2;

pub const CIRCLE_MAX: u64 = 32;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The producer's variables: outside the ring, above the bar.
    Out,
    /// The consumer's: inside the ring, below the bar.
    In,
}

/// Where the label lines of the markers at one slot and side start.
pub struct Block {
    pub x: f64,
    pub y: f64,
    pub anchor: &'static str,
    /// +1: further lines go down, -1: up.
    pub dy: f64,
    /// Left or right of the ring: the lines are centred on (x, y).
    pub sideways: bool,
}

pub enum Layout {
    Circle { size: u64 },
    Bar { size: u64, w: f64 },
}

const CX: f64 = 280.0;
const CY: f64 = 260.0;
const R_OUT: f64 = 160.0;
const R_IN: f64 = 100.0;
const BAR_X0: f64 = 50.0;
const BAR_TOP: f64 = 90.0;
const BAR_H: f64 = 60.0;

fn pt(a: f64, r: f64) -> Pt {
    Pt { x: CX + r * a.sin(), y: CY - r * a.cos() }
}

impl Layout {
    pub fn new(size: u64) -> Layout {
        if size <= CIRCLE_MAX {
            Layout::Circle { size }
        } else {
            Layout::Bar { size, w: (960.0 / size as f64).clamp(18.0, 44.0) }
        }
    }

    pub fn is_circle(&self) -> bool {
        matches!(self, Layout::Circle { .. })
    }

    pub fn size(&self) -> u64 {
        match self {
            Layout::Circle { size } | Layout::Bar { size, .. } => *size,
        }
    }

    /// The viewBox: width and height.
    pub fn extent(&self) -> (f64, f64) {
        match self {
            Layout::Circle { .. } => (560.0, 520.0),
            Layout::Bar { size, w } => (BAR_X0 * 2.0 + w * *size as f64, 250.0),
        }
    }

    /// More than 8 slots: short labels, one line of slot text.
    pub fn compact(&self) -> bool {
        self.size() > 8
    }

    /// More than 16 slots: smaller arrows.
    pub fn tiny(&self) -> bool {
        self.size() > 16
    }

    fn span(&self) -> f64 {
        2.0 * PI / self.size() as f64
    }

    /// Slot s's centre angle, clockwise from 12 o'clock.
    pub fn angle(&self, s: u64) -> f64 {
        s as f64 * self.span()
    }

    pub fn slot_path(&self, s: u64) -> String {
        match self {
            Layout::Circle { size: 1 } => format!(
                "M{},{} A{R_OUT},{R_OUT} 0 1 1 {},{} Z M{},{} A{R_IN},{R_IN} 0 1 0 {},{} Z",
                f2(CX),
                f2(CY - R_OUT),
                f2(CX - 0.01),
                f2(CY - R_OUT),
                f2(CX),
                f2(CY - R_IN),
                f2(CX - 0.01),
                f2(CY - R_IN)
            ),
            Layout::Circle { .. } => {
                let span = self.span();
                let (a0, a1) = (self.angle(s) - span / 2.0, self.angle(s) + span / 2.0);
                let large = u8::from(span > PI);
                let (o0, o1, i1, i0) = (pt(a0, R_OUT), pt(a1, R_OUT), pt(a1, R_IN), pt(a0, R_IN));
                format!(
                    "M{},{} A{R_OUT},{R_OUT} 0 {large} 1 {},{} L{},{} A{R_IN},{R_IN} 0 {large} 0 {},{} Z",
                    f2(o0.x),
                    f2(o0.y),
                    f2(o1.x),
                    f2(o1.y),
                    f2(i1.x),
                    f2(i1.y),
                    f2(i0.x),
                    f2(i0.y)
                )
            }
            Layout::Bar { w, .. } => {
                format!("M{},{} h{} v{BAR_H} h{} Z", f2(BAR_X0 + s as f64 * w), BAR_TOP, f2(*w), f2(-w))
            }
        }
    }

    /// Where a slot's text goes.
    pub fn centre(&self, s: u64) -> Pt {
        match self {
            Layout::Circle { .. } => pt(self.angle(s), (R_IN + R_OUT) / 2.0),
            Layout::Bar { w, .. } => Pt { x: BAR_X0 + (s as f64 + 0.5) * w, y: BAR_TOP + BAR_H / 2.0 },
        }
    }

    /// The tip of a marker's arrow at slot s, spread by `offset` arrow
    /// widths, and the unit vector from the tip away from the ring.
    pub fn arrow(&self, s: u64, side: Side, offset: f64) -> (Pt, Pt) {
        match self {
            Layout::Circle { .. } => {
                let r = if side == Side::Out { R_OUT + 3.0 } else { R_IN - 9.0 };
                let unit = (self.span() / 6.0).min(15.0 / r);
                let a = self.angle(s) + offset * unit;
                let dir = if side == Side::Out { Pt { x: a.sin(), y: -a.cos() } } else { Pt { x: -a.sin(), y: a.cos() } };
                (pt(a, r), dir)
            }
            Layout::Bar { w, .. } => {
                let x = BAR_X0 + (s as f64 + 0.5) * w + offset * (w / 6.0).min(12.0);
                match side {
                    Side::Out => (Pt { x, y: BAR_TOP - 3.0 }, Pt { x: 0.0, y: -1.0 }),
                    Side::In => (Pt { x, y: BAR_TOP + BAR_H + 9.0 }, Pt { x: 0.0, y: 1.0 }),
                }
            }
        }
    }

    pub fn block(&self, s: u64, side: Side) -> Block {
        match self {
            Layout::Circle { .. } => {
                let a = self.angle(s);
                let (sin, cos) = (a.sin(), a.cos());
                let sideways = sin.abs() > 0.35;
                let r = match (side, sideways) {
                    (Side::Out, true) => R_OUT + 36.0,
                    (Side::Out, false) => R_OUT + 30.0,
                    (Side::In, true) => R_IN - 38.0,
                    (Side::In, false) => R_IN - 34.0,
                };
                let p = pt(a, r);
                let anchor = match (sin > 0.35, sin < -0.35, side) {
                    (true, _, Side::Out) | (_, true, Side::In) => "start",
                    (true, _, Side::In) | (_, true, Side::Out) => "end",
                    _ => "middle",
                };
                // outside: lines go away from the centre; inside: towards it
                let mut dy = if cos >= 0.0 { 1.0 } else { -1.0 };
                if side == Side::Out {
                    dy = -dy;
                }
                Block { x: p.x, y: p.y + if sideways { 0.0 } else { dy * 4.0 }, anchor, dy, sideways }
            }
            Layout::Bar { w, .. } => {
                let x = BAR_X0 + (s as f64 + 0.5) * w;
                match side {
                    Side::Out => Block { x, y: BAR_TOP - 26.0, anchor: "middle", dy: -1.0, sideways: false },
                    Side::In => Block { x, y: BAR_TOP + BAR_H + 38.0, anchor: "middle", dy: 1.0, sideways: false },
                }
            }
        }
    }

    /// The arc (inside the ring, below the bar) over n slots from slot s.
    pub fn peek_path(&self, s: u64, n: u64) -> String {
        match self {
            Layout::Circle { size } => {
                let r = R_IN - 4.0;
                if n >= *size {
                    return format!("M{},{} A{r},{r} 0 1 1 {},{}", f2(CX), f2(CY - r), f2(CX - 0.01), f2(CY - r));
                }
                let span = self.span();
                let a0 = self.angle(s) - span / 2.0 + 0.03;
                let a1 = self.angle(s) - span / 2.0 + n as f64 * span - 0.03;
                let (p0, p1) = (pt(a0, r), pt(a1, r));
                let large = u8::from(a1 - a0 > PI);
                format!("M{},{} A{r},{r} 0 {large} 1 {},{}", f2(p0.x), f2(p0.y), f2(p1.x), f2(p1.y))
            }
            Layout::Bar { size, w } => {
                let y = BAR_TOP + BAR_H + 4.0;
                let first = n.min(size - s);
                let mut d = format!("M{},{y} h{}", f2(BAR_X0 + s as f64 * w + 2.0), f2(first as f64 * w - 4.0));
                if n > size - s {
                    let rest = n.min(*size) - first;
                    d += &format!(" M{},{y} h{}", f2(BAR_X0 + 2.0), f2(rest as f64 * w - 4.0));
                }
                d
            }
        }
    }
}

/// An isosceles triangle with its tip at `tip`, its base `len` further
/// along `dir`, `2 * half` wide.
pub fn triangle(tip: Pt, dir: Pt, half: f64, len: f64) -> String {
    let (bx, by) = (tip.x + dir.x * len, tip.y + dir.y * len);
    let (px, py) = (-dir.y * half, dir.x * half);
    format!(
        "M{},{} L{},{} L{},{} Z",
        f2(tip.x),
        f2(tip.y),
        f2(bx + px),
        f2(by + py),
        f2(bx - px),
        f2(by - py)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_zero_is_at_the_top_and_slots_go_clockwise() {
        let l = Layout::new(4);
        let c0 = l.centre(0);
        assert!((c0.x - 280.0).abs() < 1e-9 && (c0.y - 130.0).abs() < 1e-9);
        let c1 = l.centre(1);
        assert!((c1.x - 410.0).abs() < 1e-9 && (c1.y - 260.0).abs() < 1e-9, "slot 1 at 3 o'clock");
        let (tip, dir) = l.arrow(0, Side::Out, 0.0);
        assert!((tip.y - (260.0 - 163.0)).abs() < 1e-9 && dir.y < 0.0);
        let (tip, _) = l.arrow(2, Side::In, 0.0);
        assert!((tip.y - (260.0 + 91.0)).abs() < 1e-9);
    }

    #[test]
    fn more_than_32_slots_is_a_bar() {
        let l = Layout::new(64);
        assert!(!l.is_circle());
        assert_eq!(l.extent().0, 100.0 + 18.0 * 64.0);
        assert!(l.peek_path(62, 4).contains(" M52.00,"), "wraps to slot 0");
    }
}
