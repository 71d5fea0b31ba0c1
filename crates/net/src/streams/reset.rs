//! The RFC 6525 reset of a freed stream (section 5.1.2): the writer task
//! asks the engine to reset the outgoing SCTP streams whose numbers the
//! DONE frames freed, several in one request, one request at a time
//! (section 5.1.1), and before anything more is sent on such a number.

use std::time::Duration;

use msctp_proto::ReconfigError;
use msctp_proto::association::MAX_LISTED_STREAMS;

use super::Shared;
use crate::error::NetError;
use crate::stack::AssocHandle;

/// How long the writer waits between tries of a reset while another
/// reconfiguration is in progress (RFC 6525 section 5.1.1: one request at
/// a time).
pub(super) const RESET_RETRY: Duration = Duration::from_millis(10);

/// How long a reset may wait for its turn; then it is given up (the
/// stream number is free anyway: the reset only renumbers its SSNs).
pub const RESET_PATIENCE: Duration = Duration::from_secs(10);

/// Freed streams waiting for their RFC 6525 reset: asked for together
/// (up to the most one request may list), one request at a time.
#[derive(Debug, Default)]
pub(super) struct Resets {
    waiting: Vec<u16>,
    since: Option<tokio::time::Instant>,
}

impl Resets {
    pub(super) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub(super) fn push(&mut self, stream: u16) {
        self.waiting.push(stream);
    }

    fn holds(&self, stream: u16) -> bool {
        self.waiting.contains(&stream)
    }

    /// Asks for the reset of the waiting streams (as many as one request
    /// may list); they wait on while another request is in progress.
    pub(super) async fn flush(&mut self, handle: &AssocHandle, shared: &Shared) {
        if self.waiting.is_empty() {
            return;
        }
        let n = self.waiting.len().min(MAX_LISTED_STREAMS);
        let r = handle.reset_streams(&self.waiting[..n]).await;
        let now = tokio::time::Instant::now();
        match r {
            Ok(()) => shared.lock().stats.reset += n as u64,
            Err(NetError::Reconfig(ReconfigError::InProgress))
                if now.duration_since(*self.since.get_or_insert(now)) < RESET_PATIENCE =>
            {
                return;
            }
            // The association is ending: there is nothing to renumber.
            Err(NetError::Reconfig(ReconfigError::NotEstablished)) => {}
            Err(e @ NetError::Reconfig(_)) => {
                tracing::debug!(
                    "stream reset of {:?} not asked for: {e}",
                    &self.waiting[..n]
                );
                shared.lock().stats.reset_failed += n as u64;
            }
            Err(_) => {}
        }
        self.waiting.drain(..n);
        self.since = None;
    }

    /// Flushes until `stream` is no longer waiting (its reset asked for,
    /// or given up): what a next stream on the number sends goes after.
    pub(super) async fn flush_for(&mut self, stream: u16, handle: &AssocHandle, shared: &Shared) {
        while self.holds(stream) {
            self.flush(handle, shared).await;
            if self.holds(stream) {
                tokio::time::sleep(RESET_RETRY).await;
            }
        }
    }
}
