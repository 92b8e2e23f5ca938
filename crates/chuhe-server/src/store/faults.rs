//! Faults the store's writer fakes, for tests of what follows a database failure.

use super::StoreError;

/// A failure the writer fakes on its next transactions, to test what follows a database
/// failure (`Store::inject_fault`, with the `fault-injection` feature). Never set outside
/// tests: without the feature nothing can queue one, and the writer's checks find none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "fault-injection"), allow(dead_code))]
pub enum Fault {
    /// The transaction commits, then the answer is lost, as when the connection is cut after
    /// `COMMIT` was sent: the writer sees an I/O error and drops the connection.
    LostCommitAnswer,
    /// The transaction fails before `COMMIT` (an outage): nothing is written.
    Outage,
    /// The writer's check of whether a failed write landed fails (the database is still
    /// away when the writer asks).
    CheckFails,
    /// The next transaction that saves a tournament commits, then its answer is lost, as
    /// [`Fault::LostCommitAnswer`] (which is faked on table writes only).
    TournamentAnswerLost,
}

/// The faults waiting to be faked, shared by a store's clones and its writer.
#[derive(Debug, Default)]
pub(crate) struct Faults(pub(super) std::sync::Mutex<std::collections::VecDeque<Fault>>);

impl Faults {
    /// Takes the next fault if it is `kind`.
    pub(super) fn take(&self, kind: Fault) -> bool {
        let Ok(mut queue) = self.0.lock() else {
            return false;
        };
        if queue.front() == Some(&kind) {
            queue.pop_front();
            true
        } else {
            false
        }
    }
}

/// The injected I/O error of a fault.
pub(super) fn injected(what: &str) -> StoreError {
    StoreError::Database(sqlx::Error::Io(std::io::Error::new(
        std::io::ErrorKind::ConnectionReset,
        format!("injected fault: {what}"),
    )))
}
