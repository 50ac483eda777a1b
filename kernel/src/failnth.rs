//! Fault injection on one thread (CONFIG_FAULT_INJECTION): a number n
//! written to /proc/thread-self/fail-nth makes the n-th failable call the
//! thread makes from then on fail; reading it back gives 0 once that
//! happened. Which allocations are failable is set in debugfs: with
//! ignore-gfp-wait N, also those that may sleep (GFP_KERNEL, the skbs of
//! copy-mode transmit). Probability stays 0, so nothing fails unless
//! armed. fail-nth counts only calls in task context; the receive path
//! runs in softirq, where faults are armed by probability instead
//! (`Knobs::atomic`, `Armed`).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub const FAIL_NTH: &str = "/proc/thread-self/fail-nth";
pub const FAILSLAB: &str = "/sys/kernel/debug/failslab";
pub const FAIL_PAGE_ALLOC: &str = "/sys/kernel/debug/fail_page_alloc";

/// Why faults cannot be injected here, if they cannot.
pub fn unavailable() -> Option<String> {
    if !Path::new(FAIL_NTH).exists() {
        return Some(format!("no {FAIL_NTH} (kernel without CONFIG_FAULT_INJECTION)"));
    }
    if !Path::new(FAILSLAB).is_dir() {
        return Some(format!(
            "no {FAILSLAB} (CONFIG_FAILSLAB or CONFIG_FAULT_INJECTION_DEBUG_FS off, or no debugfs there)"
        ));
    }
    None
}

/// The calling thread's fail-nth, opened once: opening it later, armed,
/// would be a failable call itself.
pub struct FailNth(File);

impl FailNth {
    /// Opens the fail-nth of the calling thread; arm it from that thread.
    pub fn open() -> io::Result<FailNth> {
        let f = OpenOptions::new().read(true).write(true).open(FAIL_NTH).map_err(|e| with_path(FAIL_NTH, e))?;
        Ok(FailNth(f))
    }

    /// The n-th failable call from now fails.
    pub fn arm(&self, n: u32) -> io::Result<()> {
        self.0.write_at(n.to_string().as_bytes(), 0).map(|_| ())
    }

    /// Whether the armed fault fired; if it did not, disarms it.
    pub fn fired(&self) -> io::Result<bool> {
        let mut buf = [0u8; 16];
        let n = self.0.read_at(&mut buf, 0)?;
        let left: u32 = String::from_utf8_lossy(&buf[..n]).trim().parse().map_err(io::Error::other)?;
        if left != 0 {
            self.arm(0)?;
        }
        Ok(left == 0)
    }
}

/// The debugfs knobs a campaign sets, put back as they were on drop.
pub struct Knobs {
    saved: Vec<(PathBuf, String)>,
}

impl Knobs {
    /// Sleeping allocations failable (ignore-gfp-wait N), and no stack
    /// dump per injected fault (verbose 0), in failslab and fail_page_alloc.
    pub fn set() -> io::Result<Knobs> {
        let mut k = Knobs { saved: Vec::new() };
        for dir in [FAILSLAB, FAIL_PAGE_ALLOC] {
            k.write(Path::new(dir).join("ignore-gfp-wait"), "N")?;
            k.write(Path::new(dir).join("verbose"), "0")?;
        }
        Ok(k)
    }

    /// For faults armed by probability (Armed) in any context: only
    /// allocations that cannot sleep fail (ignore-gfp-wait Y: the
    /// sender's own GFP_KERNEL allocations never do), every task
    /// (task-filter N), every call counted (interval 1, space 0), order-0
    /// pages too (min-order 0), one line per injected fault (verbose 1);
    /// probability 0 and times 0 until armed.
    pub fn atomic() -> io::Result<Knobs> {
        let mut k = Knobs { saved: Vec::new() };
        for dir in [FAILSLAB, FAIL_PAGE_ALLOC] {
            let d = Path::new(dir);
            k.write(d.join("probability"), "0")?;
            k.write(d.join("times"), "0")?;
            k.write(d.join("interval"), "1")?;
            k.write(d.join("space"), "0")?;
            k.write(d.join("task-filter"), "N")?;
            k.write(d.join("ignore-gfp-wait"), "Y")?;
            k.write(d.join("verbose"), "1")?;
        }
        k.write(Path::new(FAIL_PAGE_ALLOC).join("min-order"), "0")?;
        Ok(k)
    }

    fn write(&mut self, path: PathBuf, val: &str) -> io::Result<()> {
        let old = std::fs::read_to_string(&path).map_err(|e| with_path(&path, e))?;
        std::fs::write(&path, val).map_err(|e| with_path(&path, e))?;
        self.saved.push((path, old.trim().to_string()));
        Ok(())
    }
}

impl Drop for Knobs {
    fn drop(&mut self) {
        for (path, old) in self.saved.iter().rev() {
            if let Err(e) = std::fs::write(path, old) {
                eprintln!("faults: could not restore {} to {old}: {e}", path.display());
            }
        }
    }
}

/// One fault attribute (failslab or fail_page_alloc) armed by
/// probability for a while: `times` faults at most, then disarmed, and
/// how many fired (each one decrements `times`).
pub struct Armed {
    dir: &'static str,
    times: u32,
}

impl Armed {
    /// `times` faults at most, each failable call failing with
    /// `percent`% probability.
    pub fn arm(dir: &'static str, percent: u32, times: u32) -> io::Result<Armed> {
        put(dir, "times", &times.to_string())?;
        put(dir, "probability", &percent.to_string())?;
        Ok(Armed { dir, times })
    }

    /// Probability 0 (nothing fails from here on), then the faults that
    /// fired.
    pub fn disarm(self) -> io::Result<u64> {
        put(self.dir, "probability", "0")?;
        let path = Path::new(self.dir).join("times");
        let left: i64 = std::fs::read_to_string(&path).map_err(|e| with_path(&path, e))?.trim().parse().map_err(io::Error::other)?;
        put(self.dir, "times", "0")?;
        Ok((self.times as i64 - left).max(0) as u64)
    }
}

fn put(dir: &str, knob: &str, val: &str) -> io::Result<()> {
    let path = Path::new(dir).join(knob);
    std::fs::write(&path, val).map_err(|e| with_path(&path, e))
}

fn with_path(path: impl AsRef<Path>, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.as_ref().display()))
}
