//! One sign-in at a time per server. Requests refused together (a list
//! and a listening stream, say, when the server's authorization server
//! moved) must not each start a sign-in: two registrations and two
//! interleaved authorizations break each other's PKCE. The first one runs
//! it; the others wait for it to end and send again with its token.
//! Single-threaded (the page, the command line's executor); no timer.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::task::{Poll, Waker};

/// The gate of one server's sign-in.
#[derive(Default)]
pub struct SingleFlight {
    running: Cell<bool>,
    waiters: RefCell<Vec<Waker>>,
}

/// Resets the gate when the sign-in ends, or is dropped half-way.
struct Running<'a>(&'a SingleFlight);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.set(false);
        for w in self.0.waiters.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

impl SingleFlight {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `work` unless another run is under way; then waits for that one
    /// to end instead and gives `None` (the caller sends again with what it
    /// got).
    pub async fn run<T, F: Future<Output = T>>(&self, work: impl FnOnce() -> F) -> Option<T> {
        if self.running.get() {
            std::future::poll_fn(|cx| {
                if self.running.get() {
                    self.waiters.borrow_mut().push(cx.waker().clone());
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
            .await;
            return None;
        }
        self.running.set(true);
        let _running = Running(self);
        Some(work().await)
    }

    /// Whether a run is under way.
    pub fn running(&self) -> bool {
        self.running.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::future::join;
    use std::rc::Rc;

    /// A future that is ready after being polled `n` times.
    fn yields(n: usize) -> impl Future<Output = ()> {
        let mut left = n;
        std::future::poll_fn(move |cx| {
            if left == 0 {
                Poll::Ready(())
            } else {
                left -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }

    #[test]
    fn two_refusals_at_once_make_one_sign_in() {
        let gate = SingleFlight::new();
        let runs = Rc::new(Cell::new(0));
        let sign_in = || {
            let runs = runs.clone();
            async move {
                runs.set(runs.get() + 1);
                yields(3).await;
                "token"
            }
        };
        let (a, b) = pollster::block_on(join(gate.run(sign_in), gate.run(sign_in)));
        assert_eq!(runs.get(), 1, "one sign-in");
        assert_eq!((a, b), (Some("token"), None), "the second waited for the first");
        assert!(!gate.running());
        // Later refusals sign in again.
        assert_eq!(pollster::block_on(gate.run(sign_in)), Some("token"));
        assert_eq!(runs.get(), 2);
    }

    #[test]
    fn a_sign_in_dropped_half_way_frees_the_gate() {
        let gate = SingleFlight::new();
        {
            let mut f = Box::pin(gate.run(|| yields(10)));
            let waker = futures_util::task::noop_waker();
            let _ = f.as_mut().poll(&mut std::task::Context::from_waker(&waker));
            assert!(gate.running());
        }
        assert!(!gate.running());
    }
}
