//! The HTML templates (verify/report/templates/*.html, built into the
//! binary) and the minijinja environment that renders them: every value
//! escaped as `markup::esc` does, unless a template marks it `|safe`.

use std::sync::OnceLock;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::Serde;
use minijinja::{AutoEscape, Environment, Error, Output, State, UndefinedBehavior, Value};
use serde::Serialize;

use super::markup::esc;

pub const TEMPLATES: [(&str, &str); 7] = [
    ("page.html", include_str!("../templates/page.html")),
    ("macros.html", include_str!("../templates/macros.html")),
    ("legend.html", include_str!("../templates/legend.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("diff.html", include_str!("../templates/diff.html")),
    ("kernel.html", include_str!("../templates/kernel.html")),
    ("trace.html", include_str!("../templates/trace.html")),
];

static ENV: OnceLock<Result<Environment<'static>, String>> = OnceLock::new();

fn env() -> Result<&'static Environment<'static>, String> {
    ENV.get_or_init(|| {
        let mut e = Environment::new();
        let syntax = SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).keep_trailing_newline(true).build();
        e.set_syntax(syntax.map_err(|err| err.to_string())?);
        // a misspelt name fails the page instead of printing nothing
        e.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        e.set_formatter(format);
        e.add_filter("fixed", fixed);
        e.add_filter("dash", dash);
        for (name, text) in TEMPLATES {
            e.add_template(name, text).map_err(|err| describe(&err))?;
        }
        Ok(e)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Renders template `name` with `ctx`.
pub fn render(name: &str, ctx: impl Serialize) -> Result<String, String> {
    let e = env()?;
    e.get_template(name).and_then(|t| t.render(Value::from(Serde(ctx)))).map_err(|err| describe(&err))
}

/// The error with its template and line, and what caused it.
fn describe(err: &Error) -> String {
    let mut s = format!("report template {}", err.name().unwrap_or("?"));
    if let Some(line) = err.line() {
        s.push_str(&format!(" line {line}"));
    }
    s.push_str(&format!(": {err}"));
    s
}

/// Values are written as text, escaped for HTML as the rest of the report
/// is (minijinja's own escaping would also turn `/` into `&#x2f;`).
fn format(out: &mut Output, state: &mut State, value: &Value) -> Result<(), Error> {
    if *state.auto_escape() == AutoEscape::Html && !value.is_safe() {
        let text = if value.is_none() { String::new() } else { value.to_string() };
        return out.write_str(&esc(&text)).map_err(Error::from);
    }
    minijinja::escape_formatter(out, state, value)
}

/// `x|fixed(n)`: a number with `n` decimals.
fn fixed(x: f64, digits: usize) -> String {
    format!("{x:.digits$}")
}

/// `x|dash`: a missing figure as `–`.
fn dash(x: Value) -> Value {
    if x.is_none() || x.is_undefined() {
        Value::from("–")
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::context;

    #[test]
    fn every_template_parses() {
        let e = env().unwrap();
        for (name, _) in TEMPLATES {
            e.get_template(name).unwrap();
        }
    }

    #[test]
    fn values_are_escaped_as_the_report_escapes() {
        let e = env().unwrap();
        let t = e.template_from_named_str("t.html", "{{ a }}|{{ b|safe }}|{{ n|dash }}|{{ x|fixed(1) }}|{{ none_field }}").unwrap();
        let html = t.render(context! { a => "<a href=\"x/y\">'", b => "<b>", n => (), x => 2.25, none_field => () }).unwrap();
        assert_eq!(html, "&lt;a href=&quot;x/y&quot;&gt;&#39;|<b>|–|2.2|");
    }

    #[test]
    fn a_misspelt_name_is_an_error() {
        let e = env().unwrap();
        let t = e.template_from_named_str("t.html", "{{ nope }}").unwrap();
        assert!(t.render(context! {}).is_err());
    }
}
