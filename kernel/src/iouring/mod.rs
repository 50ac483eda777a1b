//! io_uring zero-copy send on the running kernel against the model of
//! specs/IoUringZcNotif.tla (ringlab_model::iouring_zc): scenarios drawn
//! from a seed (gen.rs) run by a driver of IORING_OP_SEND_ZC and
//! IORING_OP_SEND (ring.rs, on the sockets of net.rs), their CQEs replayed
//! through the model (project.rs), divergences shrunk (shrink.rs) and
//! saved as replay files (campaign.rs); the failure classes one by one
//! (failures.rs).

pub mod campaign;
pub mod class;
pub mod expect;
pub mod failures;
pub mod gen;
pub mod net;
pub mod obs;
pub mod project;
pub mod ring;
pub mod scenario;
pub mod shrink;
pub mod sys;
