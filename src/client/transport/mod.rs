//! Transports: ordered, reliable, message-oriented links carrying one JSON-RPC message per
//! text frame (spec `transport.md`).
//!
//! [`Transport`] is poll-based so it wraps any socket: a callback-based one (push frames into
//! a queue and wake the stored waker, as a browser `WebSocket`'s `onmessage` would), a
//! `Stream`/`Sink` pair, or the in-memory [`memory`] pair used by tests.

pub mod memory;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub mod ws;

use super::Error;
use std::future::{poll_fn, Future};
use std::task::{Context, Poll, Waker};

/// An open connection carrying text frames.
pub trait Transport {
    /// Queues one frame for sending. Never blocks; an error means the connection is unusable.
    fn send(&mut self, frame: String) -> Result<(), Error>;

    /// The next received frame: `Ready(Some(Ok(frame)))`, `Ready(Some(Err(_)))` when the
    /// connection failed, `Ready(None)` when it closed. Registers `cx`'s waker when pending.
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>>;

    /// Closes the connection (idempotent); the peer sees the end of its stream.
    fn close(&mut self);
}

/// Awaits the next frame of a transport.
pub fn recv<T: Transport + ?Sized>(
    transport: &mut T,
) -> impl Future<Output = Option<Result<String, Error>>> + '_ {
    poll_fn(move |cx| transport.poll_recv(cx))
}

/// The next frame if one is already there (never waits): to gather a batch.
pub fn try_recv<T: Transport + ?Sized>(transport: &mut T) -> Option<Option<Result<String, Error>>> {
    match transport.poll_recv(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(frame) => Some(frame),
        Poll::Pending => None,
    }
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn send(&mut self, frame: String) -> Result<(), Error> {
        (**self).send(frame)
    }
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<String, Error>>> {
        (**self).poll_recv(cx)
    }
    fn close(&mut self) {
        (**self).close()
    }
}
