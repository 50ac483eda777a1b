//! TLC runs in a few long-lived JVMs instead of one JVM each.
//!
//! A JVM's start and warm-up is most of a small model's time, and the ci
//! tier is mostly small models. java/RinglabTlcPool.java reads one run per
//! line on stdin and runs `tlc2.TLC` for it in-process, each run through a
//! class loader of its own so that none sees another's static state; its
//! output is TLC's `-tool` text, as a JVM of its own would print it, then
//! the run's stderr and exit status. A JVM is taken from the pool for one
//! run and given back after it, so there are as many as runs at once (one
//! per core under `in_parallel`). A JVM that dies mid-run fails that run
//! only; the next run starts a new one.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// The driver's source, compiled at first use.
pub const DRIVER_SOURCE: &str = include_str!("../java/RinglabTlcPool.java");
const DRIVER_CLASS: &str = "RinglabTlcPool";
const STDERR: &str = "@@ringlab-stderr ";
const EXIT: &str = "@@ringlab-exit ";
/// Runs a JVM takes before it is replaced: each run's classes and the heap
/// the biggest of them grew stay with the JVM until it ends.
pub const RUNS_PER_JVM: u32 = 24;

/// How the driver is started: compiled classes, or (with no javac) the
/// source file through java's single-file launcher.
#[derive(Clone, Debug)]
enum Driver {
    Classes(PathBuf),
    Source(PathBuf),
}

pub struct Pool {
    java: PathBuf,
    jar: PathBuf,
    driver: Driver,
    /// The JVMs' temp directories live here.
    dir: PathBuf,
    idle: Mutex<Vec<Jvm>>,
    started: AtomicU64,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("driver", &self.driver).field("dir", &self.dir).finish()
    }
}

struct Jvm {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
    /// The JVM's own stderr (not a run's): why it died, if it does.
    log: PathBuf,
    tmp: PathBuf,
    runs: u32,
}

impl Drop for Jvm {
    fn drop(&mut self) {
        // stdin closes with self; the driver exits at its end.
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.tmp);
        let _ = std::fs::remove_file(&self.log);
    }
}

/// What one run in a pooled JVM printed.
pub struct Ran {
    pub stderr: String,
    pub status: i32,
}

impl Pool {
    /// Compiles the driver (once per source and java) into the temp
    /// directory; no JVM starts until the first run.
    pub fn new(java: &Path, jar: &Path) -> Result<Pool, String> {
        let mut h = DefaultHasher::new();
        DRIVER_SOURCE.hash(&mut h);
        java.hash(&mut h);
        let base = std::env::temp_dir().join(format!("ringlab-tlc-pool-{:016x}", h.finish()));
        let driver = compile(java, &base)?;
        // One per pool: a pool removes it when dropped.
        static POOLS: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!("ringlab-tlc-jvms-{}-{}", std::process::id(), POOLS.fetch_add(1, Relaxed)));
        Ok(Pool {
            java: java.to_path_buf(),
            jar: jar.to_path_buf(),
            driver,
            dir,
            idle: Mutex::new(Vec::new()),
            started: AtomicU64::new(0),
        })
    }

    /// The process ids of the JVMs now idle.
    pub fn idle_pids(&self) -> Vec<u32> {
        self.idle.lock().unwrap().iter().map(|j| j.child.id()).collect()
    }

    /// How many JVMs this pool has started.
    pub fn started(&self) -> u64 {
        self.started.load(Relaxed)
    }

    fn start(&self) -> Result<Jvm, String> {
        let n = self.started.fetch_add(1, Relaxed);
        let tmp = self.dir.join(format!("jvm-{n}"));
        std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        let log = self.dir.join(format!("jvm-{n}.log"));
        let log_file = std::fs::File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let mut cmd = Command::new(&self.java);
        // The flags of a JVM per run (lib.rs, Tlc::command).
        cmd.arg("-XX:+UseParallelGC").arg("-Xss16m").arg(format!("-Djava.io.tmpdir={}", tmp.display()));
        match &self.driver {
            Driver::Classes(dir) => cmd.arg("-cp").arg(dir).arg(DRIVER_CLASS),
            Driver::Source(file) => cmd.arg(file),
        };
        cmd.arg(&self.jar).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(log_file);
        let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e} (run `make deps`)", self.java.display()))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Jvm { child, stdin, out, log, tmp, runs: 0 })
    }

    /// Runs `tlc2.TLC args` in `dir` on an idle JVM (or a new one), each
    /// line of its output to `on_line`. A JVM that ends before the run
    /// does is an error naming what it printed last.
    pub fn run(
        &self,
        dir: &Path,
        library: Option<&Path>,
        args: &[String],
        on_line: &mut dyn FnMut(&str),
    ) -> Result<Ran, String> {
        let mut fields = vec![dir.display().to_string(), library.map(|l| l.display().to_string()).unwrap_or_default()];
        fields.extend(args.iter().cloned());
        if let Some(f) = fields.iter().find(|f| f.contains(['\t', '\n'])) {
            return Err(format!("cannot pass `{f}` to the pooled TLC: it holds a tab or a newline"));
        }
        let idle = self.idle.lock().unwrap().pop();
        let mut jvm = match idle {
            Some(j) => j,
            None => self.start()?,
        };
        let request = fields.join("\t") + "\n";
        if let Err(e) = jvm.stdin.write_all(request.as_bytes()).and_then(|_| jvm.stdin.flush()) {
            return Err(format!("the pooled TLC JVM did not take the run: {e}{}", tail(&jvm.log)));
        }
        let mut stderr = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            match jvm.out.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let status = jvm.child.wait().ok().and_then(|s| s.code());
                    return Err(format!(
                        "the pooled TLC JVM ended during this run (exit status {}){}; the other runs go on in a new JVM (`--jvm-per-model` runs each in its own)",
                        status.map_or_else(|| "none: killed by a signal".to_string(), |c| c.to_string()),
                        tail(&jvm.log)
                    ));
                }
                Ok(_) => {}
            }
            let l = line.trim_end_matches(['\n', '\r']);
            if let Some(s) = l.strip_prefix(EXIT) {
                let status: i32 = s.trim().parse().map_err(|_| format!("the pooled TLC JVM sent `{l}`"))?;
                // A crashed run ends its JVM (the driver exits): not reused.
                jvm.runs += 1;
                if status != 255 && jvm.runs < RUNS_PER_JVM {
                    self.idle.lock().unwrap().push(jvm);
                }
                return Ok(Ran { stderr, status });
            }
            if let Some(s) = l.strip_prefix(STDERR) {
                stderr.push_str(s);
                stderr.push('\n');
                continue;
            }
            on_line(l);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.idle.lock().unwrap().clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The JVM's own last words, if it printed any.
fn tail(log: &Path) -> String {
    crate::last_lines(log).map(|t| format!(": {t}")).unwrap_or_default()
}

/// `base/classes` with the driver compiled by the javac beside `java` (or
/// on PATH); without one, the source for java's single-file launcher.
fn compile(java: &Path, base: &Path) -> Result<Driver, String> {
    let classes = base.join("classes");
    if classes.join(format!("{DRIVER_CLASS}.class")).is_file() {
        return Ok(Driver::Classes(classes));
    }
    static N: AtomicU64 = AtomicU64::new(0);
    let work = base.join(format!("build-{}-{}", std::process::id(), N.fetch_add(1, Relaxed)));
    std::fs::create_dir_all(work.join("classes")).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let src = work.join(format!("{DRIVER_CLASS}.java"));
    std::fs::write(&src, DRIVER_SOURCE).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let javac = std::fs::canonicalize(java)
        .ok()
        .and_then(|j| j.parent().map(|d| d.join("javac")))
        .filter(|j| j.is_file())
        .or_else(|| crate::which("javac"));
    let Some(javac) = javac else {
        let kept = base.join(format!("{DRIVER_CLASS}.java"));
        std::fs::rename(&src, &kept).map_err(|e| format!("cannot write {}: {e}", kept.display()))?;
        let _ = std::fs::remove_dir_all(&work);
        return Ok(Driver::Source(kept));
    };
    let out = Command::new(&javac)
        .arg("-nowarn")
        .arg("-d")
        .arg(work.join("classes"))
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", javac.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!(
            "{} could not compile the pooled TLC driver: {}",
            javac.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // Another process may have got there first: its classes are the same.
    if std::fs::rename(work.join("classes"), &classes).is_err() && !classes.is_dir() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!("cannot move the compiled driver to {}", classes.display()));
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(Driver::Classes(classes))
}
