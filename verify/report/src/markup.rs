//! Escaping and number formatting shared by the HTML and SVG writers.

/// Text or an attribute value, escaped for HTML and XML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with two decimals, never `-0.00`.
pub fn f2(x: f64) -> String {
    let s = format!("{x:.2}");
    if s == "-0.00" {
        "0.00".into()
    } else {
        s
    }
}

/// Percent-encoding of everything but the unreserved characters (RFC 3986),
/// for a URL query value or fragment part.
pub fn url_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A file name for a title: letters, digits, `.`, `_` and `-` kept.
pub fn file_stem(title: &str) -> String {
    title
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_encodes() {
        assert_eq!(esc("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!(f2(-0.001), "0.00");
        assert_eq!(f2(1.005_1), "1.01");
        assert_eq!(url_encode("xsk: add missing barrier()"), "xsk%3A%20add%20missing%20barrier%28%29");
        assert_eq!(file_stem("tx ring, seed 3"), "tx_ring__seed_3");
    }
}
