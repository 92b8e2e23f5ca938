//! Password hashing for accounts: argon2id with the `argon2` crate's default parameters
//! (m = 19 MiB, t = 2, p = 1: OWASP's minimum recommendation), on blocking threads, at most as
//! many at once as the machine has cores.
//!
//! Each hash holds its 19 MiB while it runs, so without a bound a burst of logins takes memory
//! in proportion to the burst (200 at once took 4.78 GB, issue 19): [`Passwords`] lets at most
//! one hash per core run and queues the rest. A login with an unknown name verifies the password
//! against a hash made at start-up from a random password, so it costs the same time as a wrong
//! password and does not tell which names hold accounts.

use crate::error::ServerError;
use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The bounded password hasher of a server; cheap to clone.
#[derive(Clone)]
pub struct Passwords {
    /// One permit per hash that may run at once.
    permits: Arc<Semaphore>,
    /// The PHC string of a random password, verified for unknown names.
    decoy: Arc<str>,
}

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passwords")
            .field("available", &self.permits.available_permits())
            .finish_non_exhaustive()
    }
}

impl Passwords {
    /// A hasher that runs at most `at_once` hashes at the same time (at least 1).
    ///
    /// # Errors
    /// The decoy hash could not be made (argon2 failed).
    pub fn new(at_once: usize) -> Result<Passwords, ServerError> {
        let mut secret = [0u8; 32];
        OsRng.fill_bytes(&mut secret);
        let decoy = hash_now(&secret)?;
        Ok(Passwords {
            permits: Arc::new(Semaphore::new(at_once.max(1))),
            decoy: decoy.into(),
        })
    }

    /// A hasher bounded by the machine's cores ([`std::thread::available_parallelism`]).
    ///
    /// # Errors
    /// As [`Passwords::new`].
    pub fn for_this_machine() -> Result<Passwords, ServerError> {
        Passwords::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The argon2id PHC string of `password` with a new random salt.
    ///
    /// # Errors
    /// [`ServerError::Internal`] when the hash fails or the blocking task panics.
    pub async fn hash(&self, password: String) -> Result<String, ServerError> {
        let _permit = self.permit().await?;
        tokio::task::spawn_blocking(move || hash_now(password.as_bytes()))
            .await
            .map_err(|e| ServerError::Internal(format!("password hashing: {e}")))?
    }

    /// Whether `password` matches `stored` (a PHC string); with `None` (no such account) the
    /// password is checked against the decoy, which takes the same time and never matches.
    ///
    /// # Errors
    /// [`ServerError::Internal`] when the blocking task panics.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, ServerError> {
        let _permit = self.permit().await?;
        let known = stored.is_some();
        let phc = stored.unwrap_or_else(|| self.decoy.to_string());
        let matches = tokio::task::spawn_blocking(move || {
            PasswordHash::new(&phc).is_ok_and(|h| {
                argon2::Argon2::default()
                    .verify_password(password.as_bytes(), &h)
                    .is_ok()
            })
        })
        .await
        .map_err(|e| ServerError::Internal(format!("password check: {e}")))?;
        Ok(known && matches)
    }

    async fn permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, ServerError> {
        self.permits
            .acquire()
            .await
            .map_err(|_| ServerError::Internal("password hashing is closed".to_owned()))
    }
}

/// Hashes on the calling thread.
fn hash_now(password: &[u8]) -> Result<String, ServerError> {
    let salt = SaltString::generate(&mut OsRng);
    argon2::Argon2::default()
        .hash_password(password, &salt)
        .map(|h| h.to_string())
        .map_err(|e| ServerError::Internal(format!("password hashing: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_and_an_unknown_name_costs_a_verification() {
        let p = Passwords::new(2).unwrap();
        let phc = p.hash("correct horse".to_owned()).await.unwrap();
        assert!(phc.starts_with("$argon2id$"), "{phc}");
        assert!(p
            .verify("correct horse".to_owned(), Some(phc.clone()))
            .await
            .unwrap());
        assert!(!p.verify("wrong horse".to_owned(), Some(phc)).await.unwrap());
        // No account: never a match, even for the decoy's own input (which nobody knows).
        assert!(!p.verify(String::new(), None).await.unwrap());
    }

    #[tokio::test]
    async fn at_most_the_permits_hash_at_once() {
        let p = Passwords::new(1).unwrap();
        let held = p.permit().await.unwrap();
        assert_eq!(p.permits.available_permits(), 0);
        // A second hash waits for the permit rather than running beside the first.
        let waiting = {
            let p = p.clone();
            tokio::spawn(async move { p.hash("password1".to_owned()).await })
        };
        // A hash takes tens of milliseconds here: unbounded, it would be done long before this.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert!(!waiting.is_finished());
        drop(held);
        assert!(waiting.await.unwrap().is_ok());
        assert_eq!(p.permits.available_permits(), 1);
    }
}
