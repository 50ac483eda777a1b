//! ringlab's meeting point with the running kernel: AF_XDP sockets in copy
//! mode on a veth pair inside a namespace of their own, driven by the
//! simulator's user-side ring code and compared with the model
//! (ringlab_model::afxdp) scenario by scenario.

pub mod bpf;
pub mod devmem;
pub mod inject;
pub mod empty;
pub mod interrupt;
pub mod mmap_ring;
pub mod netns;
pub mod poll;
pub mod rtnl;
pub mod sandbox;
pub mod shared;
pub mod sys;
pub mod umem;
pub mod xsk;
pub mod env;
pub mod runner;
pub mod lanes;
pub mod campaign;
pub mod compare;
pub mod gen;
pub mod gen_mb;
pub mod gen_rx;
pub mod gen_grid;
pub mod shrink;
pub mod kernels;
pub mod txopts;
pub mod probe;
pub mod failnth;
pub mod repro;
pub mod diff_doc;
pub mod faults;
pub mod kernel_test;
pub mod iouring;
pub mod tun_vhost;
pub mod boundary;
pub mod boundary_live;
