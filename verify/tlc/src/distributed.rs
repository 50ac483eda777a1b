//! Distributed TLC on one machine: TLC's own `TLCServer` and `WORKERS`
//! `TLCWorker` JVMs talking RMI over loopback, read with the one `-tool`
//! parser. TLCServer checks safety only: invariants and deadlock, never a
//! temporal PROPERTY.
//!
//! Every JVM started here is killed on every way out (a [`Jvms`] guard),
//! and a run that outlives its timeout, or whose workers have all gone,
//! ends with an error naming why.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::manifest::{cfg_properties, Model};
use crate::{Outcome, Parser, Progress, RunOpts, Tlc, TlcResult};

const SERVER_CLASS: &str = "tlc2.tool.distributed.TLCServer";
const WORKER_CLASS: &str = "tlc2.tool.distributed.TLCWorker";
/// Both read the server's RMI registry port from this property.
const PORT_PROPERTY: &str = "tlc2.tool.distributed.TLCServer.port";
/// The server's line for each worker that has joined.
const REGISTERED: &str = "Registration for worker";
/// A worker that dies before joining is started again this many times: two
/// workers joining at the same moment can fail to read the spec the server
/// hands out.
const WORKER_STARTS: usize = 3;

pub struct DistOpts {
    /// TLCWorker JVMs, one thread each.
    pub workers: usize,
    pub timeout: Duration,
}

/// Why `m` cannot be checked by distributed TLC, if it cannot: TLCServer
/// checks no temporal property, so a liveness model would pass untested.
pub fn refusal(m: &Model, cfg: &Path) -> Option<String> {
    if m.expected.starts_with("liveness") {
        return Some(format!(
            "model `{}` is expected to end in {}, a liveness violation; distributed TLC (TLCServer) checks safety only",
            m.name, m.expected
        ));
    }
    let props = cfg_properties(cfg);
    if !props.is_empty() {
        return Some(format!(
            "model `{}`: {} has PROPERTY {}; distributed TLC (TLCServer) checks safety only, never a temporal property, so it would pass unchecked",
            m.name,
            cfg.display(),
            props.join(", ")
        ));
    }
    if !(m.expected == "pass" || m.expected.starts_with("violation:")) {
        return Some(format!(
            "model `{}` is expected to end in {}; distributed runs take pass and violation:<invariant> models only",
            m.name, m.expected
        ));
    }
    None
}

/// The server and its workers, killed and reaped when dropped.
struct Jvms {
    children: Vec<Child>,
    dir: PathBuf,
}

impl Drop for Jvms {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Model-checks `spec` with `cfg` on a TLCServer and `opts.workers`
/// workers over loopback. A violation's invariant is named by
/// [`name_violation`]: the server prints the counterexample but not which
/// invariant its last state breaks.
pub fn run(
    tlc: &Tlc,
    spec: &Path,
    cfg: &Path,
    opts: &DistOpts,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<TlcResult, String> {
    if opts.workers == 0 {
        return Err("distributed TLC needs at least one worker".into());
    }
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ringlab-dist-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut jvms = Jvms { children: Vec::new(), dir: dir.clone() };
    let port = free_port()?;
    let spec = crate::absolute(spec);
    let cfg = crate::absolute(cfg);
    let file = spec.file_name().ok_or("spec path has no file name")?;
    let spec_dir = stage(&spec, &cfg, &dir.join("spec"))?;
    let cfg_name = cfg.file_name().ok_or("config path has no file name")?;

    let mut server = jvm(tlc, &dir.join("server-tmp"), port)?;
    server
        .arg(SERVER_CLASS)
        .arg("-tool")
        .arg("-metadir")
        .arg(dir.join("meta"))
        .arg("-config")
        .arg(cfg_name)
        .arg(file)
        .current_dir(&spec_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = server.spawn().map_err(|e| tlc.start_error(e))?;
    let (tx, rx) = mpsc::channel::<String>();
    let out = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let err_thread = crate::collect(child.stderr.take().expect("piped stderr"));
    jvms.children.push(child);

    let mut parser = Parser::new(&[]);
    let mut registered = 0usize;
    // Worker slots: (index into jvms.children, starts so far, its log).
    let mut slots: Vec<(usize, usize, PathBuf)> = Vec::new();
    let mut all_gone: Option<Instant> = None;
    let server_code = loop {
        // One worker at a time joins: the next starts once the last has.
        if slots.len() < opts.workers && registered == slots.len() {
            let k = slots.len();
            let log = dir.join(format!("worker{k}.log"));
            let idx = jvms.children.len();
            jvms.children.push(start_worker(tlc, &dir, k, port, &log)?);
            slots.push((idx, 1, log));
        }
        if start.elapsed() > opts.timeout {
            return Err(format!(
                "distributed TLC did not finish within {} s ({} of {} workers joined); every JVM was killed",
                opts.timeout.as_secs(),
                registered,
                opts.workers
            ));
        }
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => {
                if line.contains(REGISTERED) {
                    registered += 1;
                }
                if let Some(mut p) = parser.feed(&line) {
                    p.seconds = start.elapsed().as_secs_f64();
                    on_progress(&p);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = jvms.children[0].wait().map_err(|e| format!("waiting for TLCServer: {e}"))?;
                break status.code();
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        // The server waits for workers for ever: a run whose workers have
        // all exited would never end. Those that exit as the server finishes
        // leave it a few seconds to say so.
        let mut running = 0;
        let mut last_exit = None;
        for (k, slot) in slots.iter_mut().enumerate() {
            match jvms.children[slot.0].try_wait().map_err(|e| format!("waiting for TLCWorker: {e}"))? {
                None => running += 1,
                Some(_) if k >= registered && slot.1 < WORKER_STARTS => {
                    slot.1 += 1;
                    jvms.children[slot.0] = start_worker(tlc, &dir, k, port, &slot.2)?;
                    running += 1;
                }
                Some(status) => last_exit = Some((k, status, slot.2.clone())),
            }
        }
        match last_exit {
            // The next worker starts only once one has joined: none left
            // running means none ever will.
            Some((k, status, log)) if running == 0 => {
                let since = *all_gone.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(5) {
                    return Err(format!(
                        "every TLCWorker exited before TLCServer finished (worker {k}: {status}){}; every JVM was killed",
                        tail(&log)
                    ));
                }
            }
            _ => all_gone = None,
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let stderr = err_thread.join().unwrap_or_default();
    let mut res = parser.finish(seconds, server_code, &stderr);
    if !res.trace.is_empty() && matches!(res.outcome, Outcome::Error(_)) {
        res.outcome = name_violation(tlc, &spec, &cfg, &res, &dir.join("named"))?;
    }
    Ok(res)
}

/// The spec's modules and the cfg in one directory, `to`: workers ask the
/// server for each file by its bare name, resolved in the spec's directory,
/// and a cfg under specs/mc/ would not be found there.
fn stage(spec: &Path, cfg: &Path, to: &Path) -> Result<PathBuf, String> {
    let from = spec.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    let modules = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "tla"));
    for p in modules.chain([cfg.to_path_buf()]) {
        let dst = to.join(p.file_name().unwrap_or_default());
        std::fs::copy(&p, &dst).map_err(|e| format!("cannot copy {} to {}: {e}", p.display(), dst.display()))?;
    }
    Ok(to.to_path_buf())
}

/// `java` with the options the server and workers share: RMI over
/// loopback (else the server may hand out an address its workers cannot
/// reach) on `port`, temp files in `tmp`.
fn jvm(tlc: &Tlc, tmp: &Path, port: u16) -> Result<Command, String> {
    std::fs::create_dir_all(tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let mut cmd = Command::new(&tlc.java);
    cmd.arg("-XX:+UseParallelGC")
        .arg("-Xss16m")
        .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
        .arg("-Djava.rmi.server.hostname=127.0.0.1")
        .arg(format!("-D{PORT_PROPERTY}={port}"))
        .arg("-cp")
        .arg(&tlc.jar);
    die_with_parent(&mut cmd);
    Ok(cmd)
}

/// Worker `k`, its output in `log`. Each has its own temp directory: it
/// unpacks the spec the server sends there.
fn start_worker(tlc: &Tlc, dir: &Path, k: usize, port: u16, log: &Path) -> Result<Child, String> {
    let mut cmd = jvm(tlc, &dir.join(format!("worker{k}-tmp")), port)?;
    let out = std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    cmd.arg("-Dtlc2.tool.distributed.TLCWorker.threadCount=1")
        .arg(WORKER_CLASS)
        .arg("127.0.0.1")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    cmd.spawn().map_err(|e| tlc.start_error(e))
}

/// The JVM gets SIGKILL when the thread that started it ends, however it
/// ends: a killed `ringlab` leaves no server waiting for workers for ever.
fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // Safety: prctl is async-signal-safe, and nothing else runs between
    // fork and exec here.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A loopback port nothing listens on now, for the server's registry.
fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free loopback port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// A worker's last lines, for an error.
fn tail(log: &Path) -> String {
    crate::last_lines(log).map(|t| format!(":\n{t}")).unwrap_or_default()
}

/// The invariant the counterexample's last state breaks: single-process TLC
/// with that state as the only initial state and no next step, which
/// checks the cfg's invariants in their order, as the workers do.
fn name_violation(tlc: &Tlc, spec: &Path, cfg: &Path, res: &TlcResult, dir: &Path) -> Result<Outcome, String> {
    let last = res.trace.last().ok_or("the counterexample has no state")?;
    let module = spec.file_stem().ok_or("spec path has no file name")?.to_string_lossy();
    let state: Vec<String> =
        last.vars.iter().map(|(v, x)| format!("{v} = ({})", x.split_whitespace().collect::<Vec<_>>().join(" "))).collect();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let vars: Vec<&str> = last.vars.iter().map(|(v, _)| v.as_str()).collect();
    // TLC wants a next-state action that is not a constant: this one never
    // holds, so the state has no successor.
    let tla = format!(
        "---- MODULE RinglabLastState ----\nEXTENDS {module}, TLC\nRinglabLast == {}\nRinglabStop == FALSE /\\ UNCHANGED <<{}>>\n====\n",
        state.join(" /\\ "),
        vars.join(", ")
    );
    std::fs::write(dir.join("RinglabLastState.tla"), tla).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(cfg).map_err(|e| format!("cannot read {}: {e}", cfg.display()))?;
    let named = dir.join("RinglabLastState.cfg");
    std::fs::write(&named, without_behaviour(&text) + "INIT RinglabLast\nNEXT RinglabStop\n").map_err(|e| e.to_string())?;
    let single = Tlc { pool: None, ..tlc.clone() };
    let opts = RunOpts { workers: 1, metadir: dir.join("meta"), library: spec.parent(), extra: vec!["-deadlock".into()] };
    let r = crate::run(&single, &dir.join("RinglabLastState.tla"), &named, &[], &opts, &mut |_| {})?;
    match r.outcome {
        Outcome::Violation(i) => Ok(Outcome::Violation(i)),
        other => Err(format!(
            "TLCServer printed a counterexample, but its last state breaks no invariant of {} (TLC on that state: {})",
            cfg.display(),
            match other {
                Outcome::Error(e) => e,
                o => o.label(),
            }
        )),
    }
}

/// A cfg without its SPECIFICATION, INIT, NEXT and PROPERTY sections.
fn without_behaviour(cfg: &str) -> String {
    const DROP: [&str; 5] = ["SPECIFICATION", "INIT", "NEXT", "PROPERTY", "PROPERTIES"];
    let mut out = String::new();
    let mut dropping = false;
    for line in cfg.lines() {
        let code = line.split("\\*").next().unwrap_or("");
        if let Some(w) = code.split_whitespace().next() {
            if w.len() > 2 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                dropping = DROP.contains(&w);
            }
        }
        if !dropping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cfg_keeps_its_constants_and_invariants_only() {
        let cfg = "CONSTANTS\n    N = 2\nSPECIFICATION Spec\nINVARIANTS\n    A\n    B\nPROPERTY\n    Live\n";
        assert_eq!(super::without_behaviour(cfg), "CONSTANTS\n    N = 2\nINVARIANTS\n    A\n    B\n");
    }
}
