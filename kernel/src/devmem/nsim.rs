//! netdevsim devices, made and linked through /sys/bus/netdevsim as
//! tools/testing/selftests/drivers/net/netdevsim/peer.sh does: two linked
//! netdevsims pass frames to each other, a wire with no hardware behind it.

use std::fs::{self, File};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::Error;

/// The bus (drivers/net/netdevsim/bus.c).
const BUS: &str = "/sys/bus/netdevsim";
/// How long a new device's netdev may take to show up.
const APPEAR: Duration = Duration::from_secs(5);

/// Writes `text` to bus file `file` in one write(2), as sysfs wants.
fn store(file: &str, text: &str) -> Result<(), Error> {
    let path = format!("{BUS}/{file}");
    let mut f = File::options().write(true).open(&path).map_err(|e| Error::sys(format!("open {path}"), e))?;
    f.write_all(text.as_bytes()).map_err(|e| Error::sys(format!("write {text:?} to {path}"), e))
}

/// "ID PORTS QUEUES", as new_device_store() scans it (bus.c, "%u %u %u").
pub fn new_device_text(id: u32, ports: u32, queues: u32) -> String {
    format!("{id} {ports} {queues}")
}

/// "NETNSFD:IFINDEX NETNSFD:IFINDEX", as link_device_store() scans it (bus.c, "%d:%u %d:%u").
pub fn link_text(a: (i32, u32), b: (i32, u32)) -> String {
    format!("{}:{} {}:{}", a.0, a.1, b.0, b.1)
}

/// A netdevsim device with one port, deleted on drop.
#[derive(Debug)]
pub struct Nsim {
    id: u32,
    name: String,
}

impl Nsim {
    /// Device `id` (unique on the bus) with one netdev of `queues` RX and
    /// TX queues. The netdev is made in the caller's namespace, and its
    /// name is read from sysfs, which lists only the devices of the
    /// namespace /sys was mounted in: call this there (the initial one) and
    /// move the link afterwards ([`crate::rtnl::Rtnl::set_netns`]).
    pub fn new(id: u32, queues: u32) -> Result<Nsim, Error> {
        store("new_device", &new_device_text(id, 1, queues))?;
        // From here on Drop deletes the device, also when the wait fails.
        let mut dev = Nsim { id, name: String::new() };
        dev.name = wait_for_netdev(&dev.net_dir(), APPEAR)?;
        Ok(dev)
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    /// The netdev's name (eth0, eth1, ... as the kernel numbered it).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn net_dir(&self) -> PathBuf {
        Path::new(BUS).join("devices").join(format!("netdevsim{}", self.id)).join("net")
    }
}

impl Drop for Nsim {
    fn drop(&mut self) {
        if let Err(e) = store("del_device", &self.id.to_string()) {
            eprintln!("ringlab: could not delete netdevsim{}: {e}", self.id);
        }
    }
}

/// The first entry of `dir`, once there is one.
fn wait_for_netdev(dir: &Path, timeout: Duration) -> Result<String, Error> {
    let start = Instant::now();
    loop {
        if let Ok(entries) = fs::read_dir(dir) {
            if let Some(name) = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).min() {
                return Ok(name);
            }
        }
        if start.elapsed() > timeout {
            return Err(Error::Timeout { what: format!("a netdev under {}", dir.display()), after: timeout });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Links two netdevsim netdevs, each given as (its namespace's file,
/// its ifindex there); frames sent on one arrive on the other.
pub fn link(a: (&File, u32), b: (&File, u32)) -> Result<(), Error> {
    store("link_device", &link_text((a.0.as_raw_fd(), a.1), (b.0.as_raw_fd(), b.1)))
}

/// Undoes [`link`], given either end ("NETNSFD:IFINDEX").
pub fn unlink(a: (&File, u32)) -> Result<(), Error> {
    store("unlink_device", &format!("{}:{}", a.0.as_raw_fd(), a.1))
}

/// The file of named namespace `name` (/run/netns/NAME), for [`link`] and
/// [`crate::rtnl::Rtnl::set_netns`].
pub fn netns_file(name: &str) -> Result<File, Error> {
    let path = format!("/run/netns/{name}");
    File::open(&path).map_err(|e| Error::sys(format!("open {path}"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_formats() {
        assert_eq!(new_device_text(7, 1, 4), "7 1 4");
        assert_eq!(link_text((3, 12), (5, 13)), "3:12 5:13");
    }

    #[test]
    fn without_netdevsim_the_error_says_so() {
        if Path::new(BUS).exists() {
            return;
        }
        let e = Nsim::new(4242, 2).unwrap_err().to_string();
        assert!(e.contains("/sys/bus/netdevsim/new_device") && e.contains("CONFIG_NETDEVSIM"), "{e}");
    }

    #[test]
    fn the_wait_is_bounded() {
        let dir = std::env::temp_dir().join(format!("ringlab-nsim-{}", std::process::id()));
        let e = wait_for_netdev(&dir, Duration::ZERO).unwrap_err().to_string();
        assert!(e.contains("not there after"), "{e}");
        fs::create_dir_all(dir.join("eth3")).unwrap();
        assert_eq!(wait_for_netdev(&dir, Duration::ZERO).unwrap(), "eth3");
        fs::remove_dir_all(&dir).unwrap();
    }
}
