//! The ring explorer (verify/report/assets), built into the binary so the
//! report needs nothing beside it, and the traces.js it reads.

use ringlab_tlc::explorer::RingTrace;

pub const EXPLORER: [(&str, &str); 5] = [
    ("explorer.html", include_str!("../assets/explorer.html")),
    ("explorer-trace.js", include_str!("../assets/explorer-trace.js")),
    ("explorer-draw.js", include_str!("../assets/explorer-draw.js")),
    ("explorer.js", include_str!("../assets/explorer.js")),
    ("style.css", include_str!("../assets/style.css")),
];

/// `window.RINGLAB_TRACES = [...]`: the traces the explorer lists as "in
/// this report".
pub fn traces_js(traces: &[&RingTrace]) -> String {
    let list = serde_json::to_string(traces).expect("traces are JSON");
    format!("// ringlab report: the traces the explorer embeds (ringlab-trace/1)\nwindow.RINGLAB_TRACES = {list};\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explorer_loads_traces_js() {
        assert!(EXPLORER[0].1.contains("<script src=\"traces.js\"></script>"));
        // the page loads every script the report writes, in its order
        let page = EXPLORER[0].1;
        let at: Vec<usize> = EXPLORER[1..4].iter().map(|(f, _)| page.find(&format!("<script src=\"{f}\">")).expect(f)).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
        assert!(traces_js(&[]).contains("window.RINGLAB_TRACES = [];"));
    }
}
