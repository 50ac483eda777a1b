//! A SEND_ZC request (its io_kiocb): where it is, and the units sendmsg
//! has queued for it (zc->done_io, then the last call's).

use ringlab_model::iouring_zc::St;
use ringlab_ring::sync::AtomicU32;
use ringlab_ring::sync::AtomicU8;
use ringlab_ring::sync::Ordering::{Acquire, Release};

#[derive(Debug)]
pub struct Request {
    st: AtomicU8,
    sent: AtomicU32,
}

const STS: [St; 5] = [St::User, St::Sq, St::Issue, St::Retry, St::Done];

impl Default for Request {
    fn default() -> Self {
        Request {
            st: AtomicU8::new(0),
            sent: AtomicU32::new(0),
        }
    }
}

impl Request {
    pub fn st(&self) -> St {
        STS[usize::from(self.st.load(Acquire))]
    }

    pub fn set_st(&self, s: St) {
        let i = STS.iter().position(|x| *x == s).expect("every St is listed");
        self.st.store(i as u8, Release);
    }

    pub fn sent(&self) -> u32 {
        self.sent.load(Acquire)
    }

    /// Only the submitter issues r: a plain add of the units queued.
    pub fn add_sent(&self, u: u32) {
        self.sent.store(self.sent() + u, Release);
    }
}
