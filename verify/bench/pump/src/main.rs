//! `ring-pump tx|cq SIZE BATCH RUN_MS`: one measurement of a ringlab
//! pairing, printed as `entries_per_s=RATE checks=on|off`. `ringlab bench
//! ring` runs it from a build with the ring's checks compiled out.

use std::process::ExitCode;
use std::time::Duration;

use ringlab_ring_pump::{measure, ringlab_cq, ringlab_tx, CHECKED};

fn parse(args: &[String]) -> Result<(String, u32, u32, u64), String> {
    let [peer, size, batch, ms] = args else {
        return Err(format!("expected 4 arguments, got {}", args.len()));
    };
    let num = |what: &str, v: &str| v.parse::<u64>().map_err(|_| format!("{what} `{v}` is not a number"));
    let size = num("SIZE", size)?;
    if !size.is_power_of_two() || size > 1 << 24 {
        return Err(format!("SIZE {size} is not a power of two up to 2^24"));
    }
    let batch = num("BATCH", batch)?;
    if batch == 0 || batch > size {
        return Err(format!("BATCH {batch} is not in 1..={size}"));
    }
    if peer != "tx" && peer != "cq" {
        return Err(format!("PEER `{peer}` is neither tx nor cq"));
    }
    Ok((peer.clone(), size as u32, batch as u32, num("RUN_MS", ms)?))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (peer, size, batch, ms) = match parse(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ring-pump: {e}\nusage: ring-pump tx|cq SIZE BATCH RUN_MS");
            return ExitCode::from(2);
        }
    };
    let run = Duration::from_millis(ms);
    let rate = if peer == "tx" {
        let (p, c) = ringlab_tx(size);
        measure(p, c, batch, run)
    } else {
        let (p, c) = ringlab_cq(size);
        measure(p, c, batch, run)
    };
    println!("entries_per_s={rate} checks={}", if CHECKED { "on" } else { "off" });
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn bad_arguments_are_named() {
        assert_eq!(parse(&s(&["tx", "64", "16", "5"])), Ok(("tx".into(), 64, 16, 5)));
        assert!(parse(&s(&["tx", "63", "1", "5"])).unwrap_err().contains("SIZE 63"));
        assert!(parse(&s(&["cq", "64", "65", "5"])).unwrap_err().contains("BATCH 65"));
        assert!(parse(&s(&["rx", "64", "1", "5"])).unwrap_err().contains("`rx`"));
        assert!(parse(&s(&["tx", "64", "1", "x"])).unwrap_err().contains("RUN_MS `x`"));
        assert!(parse(&s(&["tx"])).unwrap_err().contains("4 arguments"));
    }

    #[test]
    fn tests_keep_the_checks() {
        assert!(ringlab_ring_pump::CHECKED);
    }
}
