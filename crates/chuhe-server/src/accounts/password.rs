//! Password hashing for accounts: argon2id with the `argon2` crate's default parameters
//! (m = 19 MiB, t = 2, p = 1: OWASP's minimum recommendation), on blocking threads, at most as
//! many at once as the machine has cores.
//!
//! Each hash holds its 19 MiB while it runs, so without a bound a burst of logins takes memory
//! in proportion to the burst (200 at once took 4.78 GB, issue 19). [`Passwords`] runs the
//! hashes on its own few threads (one per core), which take them from a queue one at a time:
//! at most that many hashes run at once, and since the C allocator keeps freed memory per
//! thread, only those threads ever hold hash memory. Each thread hashes in one 19 MiB block of
//! memory of its own, allocated once and reused: argon2's own `hash_password` and
//! `verify_password` allocate per call, and on a thread other than the main one glibc kept every
//! such allocation (19 MiB more resident memory per login, measured). A login with an unknown
//! name verifies the
//! password against a hash made at start-up from a random password, so it costs the same time
//! as a wrong password and does not tell which names hold accounts.

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use std::sync::{mpsc, Arc, Mutex};
use tokio::sync::oneshot;

/// A hash to run on a hashing thread, with that thread's argon2 memory.
type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// The argon2 memory of one hashing thread, reused by every hash it runs.
pub struct Memory(Vec<Block>);

impl Memory {
    fn new() -> Memory {
        Memory(vec![Block::default(); Params::default().block_count()])
    }

    /// At least `blocks` blocks (a stored hash made with larger parameters grows it).
    fn blocks(&mut self, blocks: usize) -> &mut [Block] {
        if self.0.len() < blocks {
            self.0.resize(blocks, Block::default());
        }
        &mut self.0[..blocks]
    }
}

/// The bounded password hasher of a server; cheap to clone. Its threads end when the last clone
/// is dropped.
#[derive(Clone)]
pub struct Passwords {
    /// The queue the hashing threads take their jobs from.
    jobs: mpsc::Sender<Job>,
    /// How many hashing threads there are.
    threads: usize,
    /// The PHC string of a random password, verified for unknown names.
    decoy: Arc<str>,
}

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passwords")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

/// A failure of the hasher itself (never a wrong password): argon2 failed, or its threads
/// could not start or stopped. The edge answers it as an internal error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordError(pub String);

impl std::fmt::Display for PasswordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PasswordError {}

impl Passwords {
    /// A hasher with `at_once` threads (at least 1): at most that many hashes run at the same
    /// time; the others wait in its queue.
    ///
    /// # Errors
    /// The decoy hash could not be made (argon2 failed), or a thread could not start.
    pub fn new(at_once: usize) -> Result<Passwords, PasswordError> {
        let secret: [u8; 32] = rand::random();
        let decoy = hash_now(&secret, &mut Memory::new())?;
        let threads = at_once.max(1);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("chuhe-argon2-{i}"))
                .spawn(move || {
                    let mut memory = Memory::new();
                    loop {
                        // The lock is held only while taking a job, not while running it.
                        let job = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(&mut memory),
                            Err(_) => return,
                        }
                    }
                })
                .map_err(|e| PasswordError(format!("password threads: {e}")))?;
        }
        Ok(Passwords {
            jobs,
            threads,
            decoy: decoy.into(),
        })
    }

    /// A hasher bounded by the machine's cores ([`std::thread::available_parallelism`]).
    ///
    /// # Errors
    /// As [`Passwords::new`].
    pub fn for_this_machine() -> Result<Passwords, PasswordError> {
        Passwords::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The argon2id PHC string of `password` with a new random salt.
    ///
    /// # Errors
    /// [`PasswordError`] when the hash fails or the blocking task panics.
    pub async fn hash(&self, password: String) -> Result<String, PasswordError> {
        self.run(move |memory| hash_now(password.as_bytes(), memory))
            .await?
    }

    /// Whether `password` matches `stored` (a PHC string); with `None` (no such account) or a
    /// text that is no PHC string (an account without a password) the password is checked
    /// against the decoy, which takes the same time and never matches.
    ///
    /// # Errors
    /// [`PasswordError`] when the hashing thread panics.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, PasswordError> {
        // A stored text that is no PHC string (an account made without a password, `!`) is
        // checked like a missing account: against the decoy, so the answer takes as long.
        let usable = stored.filter(|phc| PasswordHash::new(phc).is_ok());
        let known = usable.is_some();
        let phc = usable.unwrap_or_else(|| self.decoy.to_string());
        let matches = self
            .run(move |memory| verify_now(password.as_bytes(), &phc, memory))
            .await?;
        Ok(known && matches)
    }

    /// Runs `work` on a hashing thread, after the jobs queued before it.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Memory) -> T + Send + 'static,
    ) -> Result<T, PasswordError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Box::new(move |memory| {
                let _ = reply.send(work(memory));
            }))
            .map_err(|_| PasswordError("password threads stopped".to_owned()))?;
        answer
            .await
            .map_err(|_| PasswordError("a password thread failed".to_owned()))
    }
}

/// The argon2id PHC string of `password` with a new random salt and the default parameters,
/// computed on the calling thread in `memory`.
fn hash_now(password: &[u8], memory: &mut Memory) -> Result<String, PasswordError> {
    let failed = |e: &dyn std::fmt::Display| PasswordError(format!("password hashing: {e}"));
    let params = Params::default();
    let salt = Salt::generate();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    argon2
        .hash_password_into_with_memory(
            password,
            &salt,
            &mut out,
            memory.blocks(params.block_count()),
        )
        .map_err(|e| failed(&e))?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| failed(&e))?,
        salt: Some(salt),
        hash: Some(Output::new(&out).map_err(|e| failed(&e))?),
    };
    Ok(phc.to_string())
}

/// Whether `password` gives the hash of the PHC string `phc` (any argon2 variant, version and
/// parameters it names), computed on the calling thread in `memory`; `false` for a string that
/// does not read. The comparison takes the same time wherever the outputs differ.
fn verify_now(password: &[u8], phc: &str, memory: &mut Memory) -> bool {
    let Ok(hash) = PasswordHash::new(phc) else {
        return false;
    };
    let (Ok(algorithm), Ok(params), Some(expected), Some(salt)) = (
        Algorithm::try_from(hash.algorithm.as_str()),
        Params::try_from(&hash),
        hash.hash,
        hash.salt,
    ) else {
        return false;
    };
    let version = match hash.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return false,
    };
    let mut out = vec![0u8; expected.len()];
    let blocks = params.block_count();
    let argon2 = Argon2::new(algorithm, version, params);
    if argon2
        .hash_password_into_with_memory(password, &salt, &mut out, memory.blocks(blocks))
        .is_err()
    {
        return false;
    }
    // `Output`'s equality is constant-time.
    Output::new(&out).is_ok_and(|actual| actual == expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_and_an_unknown_name_costs_a_verification() {
        let p = Passwords::new(2).unwrap();
        let phc = p.hash("correct horse".to_owned()).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        // The argon2 crate's own verifier agrees (the PHC string is standard).
        {
            use argon2::password_hash::PasswordVerifier;
            let parsed = PasswordHash::new(&phc).unwrap();
            assert!(Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok());
        }
        // And hashes made by the crate's own hasher (what older accounts hold) verify here.
        let older = {
            use argon2::password_hash::PasswordHasher;
            Argon2::default()
                .hash_password(b"older account")
                .unwrap()
                .to_string()
        };
        assert!(p
            .verify("older account".to_owned(), Some(older.clone()))
            .await
            .unwrap());
        assert!(!p
            .verify("older acount".to_owned(), Some(older))
            .await
            .unwrap());
        assert!(!p
            .verify("x".to_owned(), Some("not a phc string".to_owned()))
            .await
            .unwrap());
        // An account made without a password (`chuhe token create`): never a match.
        assert!(!p
            .verify("!".to_owned(), Some("!".to_owned()))
            .await
            .unwrap());
        assert!(p
            .verify("correct horse".to_owned(), Some(phc.clone()))
            .await
            .unwrap());
        assert!(!p.verify("wrong horse".to_owned(), Some(phc)).await.unwrap());
        // No account: never a match, even for the decoy's own input (which nobody knows).
        assert!(!p.verify(String::new(), None).await.unwrap());
    }

    #[tokio::test]
    async fn hashes_queue_behind_the_threads() {
        let p = Passwords::new(1).unwrap();
        // Block the only thread until told to go on.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let blocker = {
            let p = p.clone();
            tokio::spawn(async move { p.run(move |_| wait.recv().is_ok()).await })
        };
        let waiting = {
            let p = p.clone();
            tokio::spawn(async move { p.hash("password1".to_owned()).await })
        };
        // A hash takes tens of milliseconds here: beside the blocker it would be done by now.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert!(!waiting.is_finished());
        go.send(()).unwrap();
        assert!(blocker.await.unwrap().unwrap());
        assert!(waiting.await.unwrap().unwrap().starts_with("$argon2id$"));
    }
}
