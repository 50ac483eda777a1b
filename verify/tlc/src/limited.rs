//! One TLC run with a time limit, for campaigns that run many variants
//! of a spec, some of which never finish (a dropped guard can make the
//! state space unbounded).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::{absolute, Parser, Tlc, TlcResult};

/// How a limited run ended.
#[derive(Debug)]
pub struct Limited {
    pub result: TlcResult,
    /// TLC was still running at the limit and was killed.
    pub timed_out: bool,
}

/// The workers of a limited run: one, so that its search is breadth-first
/// and the depth it reports exact (`check::drift` compares it).
pub const WORKERS: usize = 1;

/// Model-checks `spec` with `config` on one worker, in the spec's
/// directory, killing TLC after `limit`. `metadir` is removed before and
/// after.
pub fn run_limited(
    tlc: &Tlc,
    spec: &Path,
    config: &Path,
    properties: &[String],
    metadir: &Path,
    limit: Duration,
) -> Result<Limited, String> {
    let metadir = absolute(metadir);
    let _ = std::fs::remove_dir_all(&metadir);
    let mut cmd = tlc.command(&metadir.join("tmp"), None)?;
    cmd.arg("-tool")
        .arg("-workers")
        .arg(WORKERS.to_string())
        .arg("-metadir")
        .arg(&metadir)
        .arg("-config")
        .arg(absolute(config))
        .arg(spec.file_name().ok_or("spec path has no file name")?);
    if let Some(dir) = spec.parent().filter(|d| !d.as_os_str().is_empty()) {
        cmd.current_dir(dir);
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::null());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| tlc.start_error(e))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let props = properties.to_vec();
    let reader = std::thread::spawn(move || {
        let mut parser = Parser::new(&props);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            parser.feed(&line);
        }
        parser
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().map_err(|e| format!("waiting for TLC: {e}"))? {
            Some(s) => break s,
            None if start.elapsed() >= limit => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().map_err(|e| format!("waiting for TLC: {e}"))?;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let parser = reader.join().map_err(|_| "the TLC output reader panicked".to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&metadir);
    Ok(Limited {
        result: parser.finish(seconds, status.code(), ""),
        timed_out,
    })
}
