//! What the sandbox frame says about a run, as it arrives: the page
//! pushes each message (with the bytes posted beside it), the run's tool
//! reads them in order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Poll, Waker};

use serde_json::Value;

/// A message of the frame and the bytes posted beside it.
pub type Said = (Value, Vec<Vec<u8>>);

/// Messages of one run, in order.
#[derive(Clone, Default)]
pub struct Inbox(Rc<RefCell<State>>);

#[derive(Default)]
struct State {
    queue: VecDeque<Said>,
    waker: Option<Waker>,
    closed: bool,
}

impl Inbox {
    /// The frame said `said`.
    pub fn push(&self, said: Said) {
        let mut s = self.0.borrow_mut();
        s.queue.push_back(said);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// Nothing more will come (the frame is gone).
    pub fn close(&self) {
        let mut s = self.0.borrow_mut();
        s.closed = true;
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// The next message; `None` once closed and read.
    pub fn next(&self) -> impl std::future::Future<Output = Option<Said>> + '_ {
        futures_util::future::poll_fn(move |cx| {
            let mut s = self.0.borrow_mut();
            match s.queue.pop_front() {
                Some(said) => Poll::Ready(Some(said)),
                None if s.closed => Poll::Ready(None),
                None => {
                    s.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}
