//! A cancellation handle shared by everything one action started.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

type Hook = Box<dyn FnOnce()>;

#[derive(Default)]
struct State {
    aborted: bool,
    wakers: Vec<Waker>,
    hooks: Vec<Hook>,
}

/// Cancels what it was given to. Cloning shares the handle; aborting is
/// permanent. Single-threaded (the browser's main thread, or a test).
#[derive(Clone, Default)]
pub struct Abort(Rc<RefCell<State>>);

impl std::fmt::Debug for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Abort({})", if self.is_aborted() { "aborted" } else { "live" })
    }
}

impl Abort {
    pub fn new() -> Self {
        Self::default()
    }

    /// Aborts: wakes every [`Abort::aborted`] future and runs the hooks
    /// (e.g. the browser's `AbortController.abort()`). Idempotent.
    pub fn abort(&self) {
        let (wakers, hooks) = {
            let mut s = self.0.borrow_mut();
            if s.aborted {
                return;
            }
            s.aborted = true;
            (std::mem::take(&mut s.wakers), std::mem::take(&mut s.hooks))
        };
        // Run outside the borrow: a hook may look at this handle.
        for hook in hooks {
            hook();
        }
        for w in wakers {
            w.wake();
        }
    }

    pub fn is_aborted(&self) -> bool {
        self.0.borrow().aborted
    }

    /// Runs `hook` when this is aborted (at once if it already is).
    pub fn on_abort(&self, hook: impl FnOnce() + 'static) {
        let run_now = {
            let mut s = self.0.borrow_mut();
            if s.aborted {
                true
            } else {
                s.hooks.push(Box::new(hook));
                return;
            }
        };
        if run_now {
            hook();
        }
    }

    /// A future that completes when this is aborted (race it against work
    /// that has no abort of its own).
    pub fn aborted(&self) -> Aborted {
        Aborted(self.clone())
    }
}

/// See [`Abort::aborted`].
pub struct Aborted(Abort);

impl Future for Aborted {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = (self.0).0.borrow_mut();
        if s.aborted {
            return Poll::Ready(());
        }
        if !s.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            s.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn hooks_run_once_and_late_hooks_run_at_once() {
        let a = Abort::new();
        let n = Rc::new(Cell::new(0));
        let n2 = n.clone();
        a.on_abort(move || n2.set(n2.get() + 1));
        assert!(!a.is_aborted());
        a.clone().abort();
        a.abort();
        assert_eq!(n.get(), 1);
        let n3 = n.clone();
        a.on_abort(move || n3.set(n3.get() + 10));
        assert_eq!(n.get(), 11);
        assert!(a.is_aborted());
    }

    /// Records whether it was woken.
    struct Flag(std::sync::atomic::AtomicBool);

    impl std::task::Wake for Flag {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn aborted_waits_until_abort_then_wakes_its_task_and_completes() {
        use std::future::Future;
        use std::task::{Context, Poll, Waker};
        let a = Abort::new();
        let flag = std::sync::Arc::new(Flag(Default::default()));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let mut waiting = Box::pin(a.aborted());
        assert!(waiting.as_mut().poll(&mut cx).is_pending(), "not aborted yet");
        assert!(!flag.0.load(std::sync::atomic::Ordering::SeqCst));
        a.clone().abort();
        assert!(flag.0.load(std::sync::atomic::Ordering::SeqCst), "the waiting task is woken");
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Ready(()));
        let mut late = Box::pin(a.aborted());
        assert_eq!(late.as_mut().poll(&mut cx), Poll::Ready(()), "asked after the abort: at once");
    }
}
