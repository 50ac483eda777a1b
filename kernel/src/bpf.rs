//! The XDP program (bpf/xsk_redirect.bpf.c, compiled by build.rs) loaded
//! through the system libbpf and attached in SKB (generic) mode; detached
//! on drop. Only the few libbpf 1.x functions used are declared.

use std::ffi::CString;
use std::io;
use std::os::raw::{c_char, c_int, c_void};

use crate::sys::XDP_FLAGS_SKB_MODE;

#[repr(C)]
struct BpfObject {
    _p: [u8; 0],
}
#[repr(C)]
struct BpfProgram {
    _p: [u8; 0],
}

extern "C" {
    fn bpf_object__open_mem(buf: *const c_void, size: usize, opts: *const c_void) -> *mut BpfObject;
    fn bpf_object__load(obj: *mut BpfObject) -> c_int;
    fn bpf_object__close(obj: *mut BpfObject);
    fn bpf_object__find_program_by_name(obj: *const BpfObject, name: *const c_char) -> *mut BpfProgram;
    fn bpf_object__find_map_fd_by_name(obj: *const BpfObject, name: *const c_char) -> c_int;
    fn bpf_program__fd(prog: *const BpfProgram) -> c_int;
    fn bpf_xdp_attach(ifindex: c_int, prog_fd: c_int, flags: u32, opts: *const c_void) -> c_int;
    fn bpf_xdp_detach(ifindex: c_int, flags: u32, opts: *const c_void) -> c_int;
    fn bpf_map_update_elem(fd: c_int, key: *const c_void, value: *const c_void, flags: u64) -> c_int;
    fn bpf_map_lookup_elem(fd: c_int, key: *const c_void, value: *mut c_void) -> c_int;
    fn bpf_map_delete_elem(fd: c_int, key: *const c_void) -> c_int;
}

/// The compiled program (build.rs), inside the binary so that it runs
/// where the build folder is not, such as in the test VM; ELF wants its
/// headers aligned.
#[repr(C, align(8))]
struct Aligned<T: ?Sized>(T);
static XDP_OBJ: &Aligned<[u8]> = &Aligned(*include_bytes!(env!("RINGLAB_XDP_OBJ")));

/// libbpf 1.x returns -errno.
fn err(ret: c_int, what: &str) -> io::Result<c_int> {
    if ret < 0 {
        let e = io::Error::from_raw_os_error(-ret);
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

/// xsk_redirect attached to one interface, with its XSKMAP.
#[derive(Debug)]
pub struct XdpProg {
    obj: *mut BpfObject,
    ifindex: u32,
    map_fd: c_int,
    seen_fd: c_int,
}

impl XdpProg {
    /// Loads the program and attaches it in SKB mode to `ifindex` (of the
    /// calling thread's namespace).
    pub fn attach(ifindex: u32) -> io::Result<XdpProg> {
        let buf = &XDP_OBJ.0;
        // Safety: a static buffer of the given size; NULL opts are allowed.
        let obj = unsafe { bpf_object__open_mem(buf.as_ptr().cast(), buf.len(), std::ptr::null()) };
        if obj.is_null() {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("bpf_object__open_mem (xsk_redirect, {} bytes): {e}", buf.len())));
        }
        // From here on drop closes the object (and detaches once attached).
        let mut prog = XdpProg { obj, ifindex: 0, map_fd: -1, seen_fd: -1 };
        // Safety: obj is an open object.
        err(unsafe { bpf_object__load(obj) }, "bpf_object__load")?;
        let name = CString::new("xsk_redirect").unwrap();
        let p = unsafe { bpf_object__find_program_by_name(obj, name.as_ptr()) };
        if p.is_null() {
            return Err(io::Error::other("no program xsk_redirect in the object"));
        }
        let prog_fd = err(unsafe { bpf_program__fd(p) }, "bpf_program__fd")?;
        let map = CString::new("xsks").unwrap();
        prog.map_fd = err(unsafe { bpf_object__find_map_fd_by_name(obj, map.as_ptr()) }, "map xsks")?;
        let seen = CString::new("seen").unwrap();
        prog.seen_fd = err(unsafe { bpf_object__find_map_fd_by_name(obj, seen.as_ptr()) }, "map seen")?;
        err(
            unsafe { bpf_xdp_attach(ifindex as c_int, prog_fd, XDP_FLAGS_SKB_MODE, std::ptr::null()) },
            "bpf_xdp_attach (SKB mode)",
        )?;
        prog.ifindex = ifindex;
        Ok(prog)
    }

    /// `xsks[queue] = fd`: frames of that queue go to the socket.
    pub fn insert(&self, queue: u32, xsk_fd: c_int) -> io::Result<()> {
        let v = xsk_fd as u32;
        // Safety: key and value are u32, as the map declares.
        let r = unsafe { bpf_map_update_elem(self.map_fd, &queue as *const u32 as _, &v as *const u32 as _, 0) };
        err(r, "bpf_map_update_elem(xsks)").map(|_| ())
    }

    /// Frames of ringlab's EtherType the program has seen so far.
    pub fn seen(&self) -> io::Result<u64> {
        let (k, mut v) = (0u32, 0u64);
        // Safety: an array map of one u64.
        let r = unsafe { bpf_map_lookup_elem(self.seen_fd, &k as *const u32 as _, &mut v as *mut u64 as _) };
        err(r, "bpf_map_lookup_elem(seen)").map(|_| v)
    }

    /// Empties `xsks[queue]` (ENOENT when already empty is fine).
    pub fn remove(&self, queue: u32) {
        // Safety: key is a u32.
        unsafe { bpf_map_delete_elem(self.map_fd, &queue as *const u32 as _) };
    }
}

impl Drop for XdpProg {
    fn drop(&mut self) {
        // Safety: detaching an interface we attached; closing our object.
        unsafe {
            if self.ifindex != 0 {
                bpf_xdp_detach(self.ifindex as c_int, XDP_FLAGS_SKB_MODE, std::ptr::null());
            }
            bpf_object__close(self.obj);
        }
    }
}
