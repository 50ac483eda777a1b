//! Fault injection on one thread (CONFIG_FAULT_INJECTION): a number n
//! written to /proc/thread-self/fail-nth makes the n-th failable call the
//! thread makes from then on fail; reading it back gives 0 once that
//! happened. Which allocations are failable is set in debugfs: with
//! ignore-gfp-wait N, also those that may sleep (GFP_KERNEL, the skbs of
//! copy-mode transmit). Probability stays 0, so nothing fails unless
//! armed.

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

fn with_path(path: impl AsRef<Path>, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.as_ref().display()))
}
