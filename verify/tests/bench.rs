//! `ringlab bench --quick` of the ring and simulator benchmarks, and
//! `ringlab bench iouring --quick`: the tables' structure (every row there,
//! every figure and ratio finite and positive), the charts and the JSON
//! documents. Never the timings themselves.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn ringlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ringlab"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    c
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ringlab-bench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn positive(row: &Value, key: &str) -> f64 {
    let x = row[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number in {row}"));
    assert!(x.is_finite() && x > 0.0, "{key} = {x} in {row}");
    x
}

#[test]
fn quick_ring_and_sim_give_full_tables_charts_and_json() {
    let out = out_dir("quick");
    let run = ringlab()
        .args(["bench", "--quick", "--json", "--quiet", "--only", "ring,sim", "--seed", "5", "--out"])
        .arg(&out)
        .output()
        .expect("run ringlab bench");
    assert!(run.status.success(), "ringlab bench failed: {}", String::from_utf8_lossy(&run.stderr));
    let doc: Value = serde_json::from_slice(&run.stdout).expect("--json prints one JSON document");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    assert_eq!(doc, saved, "bench.json holds what --json printed");
    assert_eq!((doc["schema"].as_str(), doc["document"].as_str()), (Some(ringlab_model::schema::SCHEMA), Some("bench")));
    let typed: ringlab_bench::BenchDoc = serde_json::from_value(doc.clone()).expect("bench.json reads as a BenchDoc");
    assert_eq!(serde_json::to_value(&typed).unwrap(), doc, "and writes back the same");
    assert_eq!(doc["quick"], true);
    for key in ["cpu", "kernel", "date"] {
        assert!(doc["machine"][key].as_str().is_some_and(|s| !s.is_empty()), "machine.{key}");
    }
    assert!(doc["machine"]["cores"].as_u64().unwrap() >= 1);
    let tables = doc["tables"].as_array().unwrap();
    let ids: Vec<&str> = tables.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ring", "sim"]);

    let ring = &tables[0];
    assert!(ring["skip"].is_null());
    let rows = ring["rows"].as_array().unwrap();
    let batches: Vec<&str> = rows.iter().map(|r| r["batch"].as_str().unwrap()).collect();
    assert_eq!(batches, ["1", "16", "64", "256"]);
    for r in rows {
        for k in ["ringlab_tx", "ringlab_cq", "rtrb", "crossbeam"] {
            positive(r, k);
        }
        for k in ["tx_vs_rtrb", "cq_vs_rtrb", "tx_vs_crossbeam", "cq_vs_crossbeam"] {
            let x = positive(r, k);
            let (ours, peer) = match k {
                "tx_vs_rtrb" => ("ringlab_tx", "rtrb"),
                "cq_vs_rtrb" => ("ringlab_cq", "rtrb"),
                "tx_vs_crossbeam" => ("ringlab_tx", "crossbeam"),
                _ => ("ringlab_cq", "crossbeam"),
            };
            let want = positive(r, ours) / positive(r, peer);
            assert!((x - want).abs() <= 1e-9 * want, "{k}: {x} is not {ours}/{peer} = {want}");
        }
    }
    let notes: Vec<&str> = ring["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(notes.iter().any(|n| n.starts_with("batched ringlab >= rtrb chunks: ")), "{notes:?}");

    let sim = &tables[1];
    assert!(sim["title"].as_str().unwrap().contains("seed 5"), "the seed is printed");
    let rows = sim["rows"].as_array().unwrap();
    let configs: Vec<(u64, u64)> = rows.iter().map(|r| (r["ring"].as_u64().unwrap(), r["sockets"].as_u64().unwrap())).collect();
    for want in [(4, 2), (64, 2), (1024, 2), (64, 1), (64, 4)] {
        assert!(configs.contains(&want), "no row for ring {} with {} sockets: {configs:?}", want.0, want.1);
    }
    for r in rows {
        for k in ["seeded", "threads", "bare", "threads_vs_bare", "threads_vs_seeded", "seeded_vs_base", "threads_vs_base"] {
            positive(r, k);
        }
        let want = positive(r, "threads") / positive(r, "bare");
        let x = positive(r, "threads_vs_bare");
        assert!((x - want).abs() <= 1e-9 * want, "threads_vs_bare: {x} is not threads/bare = {want} (one round)");
    }
    let base = rows.iter().find(|r| r["ring"] == 64 && r["sockets"] == 1).unwrap();
    assert_eq!(base["seeded_vs_base"], 1.0);

    let charts: Vec<&str> = doc["charts"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(charts.len(), 2);
    for (c, id) in charts.iter().zip(["ring", "sim"]) {
        assert!(c.ends_with(&format!("{id}.svg")), "{c}");
        let svg = std::fs::read_to_string(c).unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.ends_with("</svg>\n"));
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn text_output_prints_the_machine_and_one_table_per_benchmark() {
    let out = out_dir("text");
    let run = ringlab()
        .args(["bench", "--quick", "--quiet", "--only", "ring", "--out"])
        .arg(&out)
        .output()
        .expect("run ringlab bench");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("machine: ") && lines[1].contains(" cores), linux "), "{text}");
    assert_eq!(text.matches("\n== ").count(), 1, "{text}");
    let head = lines.iter().position(|l| l.starts_with("== ring throughput")).unwrap();
    let cols: Vec<&str> = lines[head + 1].split_whitespace().collect();
    assert_eq!(cols[..5], ["batch", "ringlab", "tx", "ringlab", "cq"]);
    assert!(cols.contains(&"tx/rtrb") && cols.contains(&"cq/xbeam"), "{cols:?}");
    // libxdp's peer is there, or a SKIP line says why not
    assert!(cols.contains(&"tx/libxdp") || text.contains("SKIP libxdp"), "{text}");
    let ratios = cols.iter().filter(|c| c.contains('/')).count();
    for (i, b) in ["1", "16", "64", "256"].iter().enumerate() {
        let row: Vec<&str> = lines[head + 2 + i].split_whitespace().collect();
        assert_eq!(row[0], *b);
        // the rates, then one ratio per ratio column, each above 0
        let (rates, ratio) = row[1..].split_at(row.len() - 1 - ratios);
        assert!(rates.len() >= 4 && rates.iter().all(|r| !r.ends_with('x')), "{row:?}");
        assert!(ratio.iter().all(|r| r.ends_with('x') && r.trim_end_matches('x').parse::<f64>().unwrap() > 0.0), "{row:?}");
    }
    assert!(text.contains(&format!("chart: {}", out.join("ring.svg").display())));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_unknown_benchmark_is_a_usage_error() {
    let run = ringlab().args(["bench", "--only", "ring,disk"]).output().expect("run ringlab bench");
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("invalid value 'disk' for '--only"), "{err}");
    assert!(err.contains("[possible values: ring, sim, tlc, live]"), "{err}");
}

/// `ringlab bench iouring --quick`: every mode at every payload, with a
/// figure, a ratio to msg_zerocopy (zc) and the seed's, and the seed's
/// orderings each answered; or, where the machine cannot run it (no root,
/// io_uring off, no namespaces), a SKIP that says why.
#[test]
fn quick_iouring_prints_every_mode_or_says_why_not() {
    let out = out_dir("iouring");
    let run = ringlab()
        .args(["bench", "iouring", "--quick", "--quiet", "--allow-empty", "--out"])
        .arg(&out)
        .output()
        .expect("run ringlab bench iouring");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "ringlab bench iouring failed:\n{text}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(text.starts_with("ringlab bench iouring --quick\nmachine: "), "{text}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(out.join("iouring.json")).unwrap()).unwrap();
    let tables = doc["tables"].as_array().unwrap();
    if let Some(why) = tables[0]["skip"].as_str() {
        assert!(text.contains(&format!("SKIP: {why}")) && !why.is_empty(), "{text}");
        eprintln!("SKIP: {why}");
        return;
    }
    let modes = [
        "msg_zerocopy (non-zc)",
        "msg_zerocopy (zc)",
        "io_uring -n1 -z0",
        "io_uring -n8 -z0",
        "io_uring -n1 -f",
        "io_uring -n1",
        "io_uring -n8 -f",
        "io_uring -n8",
    ];
    let rows = tables[0]["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["mode"].as_str().unwrap()).collect();
    assert_eq!(names, modes);
    for (r, m) in rows.iter().zip(modes) {
        assert!(text.lines().any(|l| l.starts_with(&format!("{m} ")) && l.split_whitespace().count() > 10), "no row for {m}:\n{text}");
        for p in ["4096", "1024", "128"] {
            positive(r, &format!("k{p}"));
            let zc = positive(r, &format!("zc{p}"));
            if m == "msg_zerocopy (zc)" {
                assert_eq!(zc, 1.0, "the base of the /zc column");
            }
            let spread = r[format!("spread{p}")].as_f64().unwrap();
            assert!(spread.is_finite() && spread >= 0.0, "spread{p} = {spread}");
        }
        positive(r, "seed_k4096");
        positive(r, "seed_zc4096");
        assert!(text.contains(&format!("  {m}: ")), "{m} is not explained:\n{text}");
    }
    let notes = tables[0]["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().starts_with("-f: ")), "-f is not defined: {notes:?}");
    assert!(notes.iter().any(|n| n.as_str().unwrap().starts_with("before: load ")), "no load/calibration: {notes:?}");
    let order = &tables[1];
    assert_eq!(order["id"], "iouring_order");
    let said: Vec<&str> = order["rows"].as_array().unwrap().iter().map(|r| r["here"].as_str().unwrap()).collect();
    assert_eq!(said.len(), 9);
    for s in said {
        let parts: Vec<&str> = s.split(", ").collect();
        assert_eq!(parts.len(), 3, "{s}");
        for (part, p) in parts.iter().zip(["4096", "1024", "128"]) {
            assert!(part.starts_with(&format!("{p} same")) || part.starts_with(&format!("{p} reversed")), "{s}");
        }
    }
    assert!(out.join("iouring.svg").exists());
    let _ = std::fs::remove_dir_all(&out);
}
