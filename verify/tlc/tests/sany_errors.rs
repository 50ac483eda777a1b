//! A spec that does not parse, or names an operator nobody defined: TLC's
//! error reaches the user as file:line:column, as SANY located it.

mod common;

use ringlab_tlc::{run, Outcome, RunOpts};

fn error_of(name: &str, body: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ringlab-sany-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join(format!("{name}.tla"));
    std::fs::write(&spec, format!("---- MODULE {name} ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\n{body}\n====\n")).unwrap();
    let cfg = dir.join(format!("{name}.cfg"));
    std::fs::write(&cfg, "INIT Init\nNEXT Next\n").unwrap();
    let opts = RunOpts { workers: 1, metadir: dir.join("meta"), library: None, extra: Vec::new() };
    let r = run(&common::tlc(), &spec, &cfg, &[], &opts, &mut |_| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    match r.outcome {
        Outcome::Error(m) => m.replace(&dir.display().to_string(), "DIR"),
        o => panic!("{name}: expected an error, got {o:?}"),
    }
}

#[test]
fn a_parse_error_is_located() {
    let m = error_of("Bad", "Next == x' = x + + 1");
    assert!(m.starts_with("DIR/Bad.tla:5:"), "{m}");
    assert!(m.contains("parse error"), "{m}");
}

#[test]
fn an_unknown_operator_is_located() {
    let m = error_of("Sem", "Next == x' = Foo(x)");
    assert!(m.starts_with("DIR/Sem.tla:5:14: Unknown operator: `Foo'."), "{m}");
}
