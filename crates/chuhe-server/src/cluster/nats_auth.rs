//! How a cluster node proves itself to NATS and checks that it reached the right NATS
//! (docs/cluster.md, "Securing NATS"): a [`NatsAuth`] and a [`NatsTls`] become the
//! [`async_nats::ConnectOptions`] of every connection the node opens ([`NatsTarget`]).
//!
//! NATS is private by default: a cluster's NATS is reached over a network only its nodes share,
//! and then no credentials are needed ([`NatsAuth::None`]). Authentication and TLS are there for
//! the operator who cannot promise that network.
//!
//! Credentials in the URL (`nats://USER:PASSWORD@HOST:PORT`, `nats://TOKEN@HOST:PORT`) are
//! taken out of it and used as a user and password (or a token): async-nats itself ignores
//! them. A URL is only ever shown with its credentials replaced by `***`
//! ([`redact_url`]); no secret is logged or put in an error.

use std::fmt;
use std::path::{Path, PathBuf};

/// How a node authenticates to NATS: one method at most (nats-server's `authorization` block
/// or its `accounts`).
#[derive(Clone, Default, PartialEq, Eq)]
pub enum NatsAuth {
    /// No credentials: a NATS on a private network (the default).
    #[default]
    None,
    /// A user and its password (`authorization { user: U, password: P }`, or a user of
    /// `authorization { users: [...] }`).
    UserPassword {
        /// The user name.
        user: String,
        /// The password (never shown: `Debug` prints `***`).
        password: String,
    },
    /// A token (`authorization { token: T }`; never shown).
    Token(String),
    /// The file holding an NKey user seed (`SU...`, one line): the node signs the server's
    /// nonce with it; the server knows the public key (`authorization { users: [{nkey: U...}] }`).
    NkeyFile(PathBuf),
    /// A credentials file (`.creds`: a user JWT and its NKey seed), for a NATS run in operator
    /// mode (`nsc`).
    CredentialsFile(PathBuf),
}

impl NatsAuth {
    /// The method's name in words, for messages and logs (`"a user and password"`, `"a
    /// token"`...; `"none"` for [`NatsAuth::None`]); never a secret.
    pub fn method(&self) -> &'static str {
        match self {
            NatsAuth::None => "none",
            NatsAuth::UserPassword { .. } => "a user and password",
            NatsAuth::Token(_) => "a token",
            NatsAuth::NkeyFile(_) => "an NKey seed file",
            NatsAuth::CredentialsFile(_) => "a credentials file",
        }
    }
}

/// Never shows a password, token or seed.
impl fmt::Debug for NatsAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NatsAuth::None => f.write_str("None"),
            NatsAuth::UserPassword { user, .. } => f
                .debug_struct("UserPassword")
                .field("user", user)
                .field("password", &"***")
                .finish(),
            NatsAuth::Token(_) => f.write_str("Token(***)"),
            NatsAuth::NkeyFile(p) => f.debug_tuple("NkeyFile").field(p).finish(),
            NatsAuth::CredentialsFile(p) => f.debug_tuple("CredentialsFile").field(p).finish(),
        }
    }
}

/// TLS towards NATS. TLS is used when the URL's scheme is `tls://`, or any of these is set;
/// the server's certificate is then checked against [`NatsTls::ca`] (else the system's roots)
/// and the URL's host name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NatsTls {
    /// PEM file of the certificate authorities that sign the NATS server's certificate.
    pub ca: Option<PathBuf>,
    /// PEM file of this node's client certificate (for a server with `tls { verify: true }`);
    /// needs [`NatsTls::key`].
    pub cert: Option<PathBuf>,
    /// PEM file of the client certificate's private key; needs [`NatsTls::cert`].
    pub key: Option<PathBuf>,
}

impl NatsTls {
    /// Whether any TLS setting is given.
    pub fn is_set(&self) -> bool {
        self.ca.is_some() || self.cert.is_some() || self.key.is_some()
    }
}

/// Why the NATS settings cannot be used. Each message is one line, names the file or the
/// settings at fault and never carries a secret.
#[derive(Debug)]
pub enum NatsAuthError {
    /// A file cannot be read (`what` names the setting, e.g. `--nats-nkey-file`).
    Unreadable {
        /// The setting that names the file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A file was read but does not hold what it should (`reason` says what is wrong).
    Invalid {
        /// The setting that names the file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong, without the file's content.
        reason: String,
    },
    /// Two settings that exclude each other, or one that needs another (the message says
    /// which).
    Conflict(String),
    /// The NATS URL cannot be read (shown with its credentials hidden).
    BadUrl(String),
}

impl fmt::Display for NatsAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NatsAuthError::Unreadable { what, path, error } => {
                write!(f, "{what}: cannot read {}: {error}", path.display())
            }
            NatsAuthError::Invalid { what, path, reason } => {
                write!(f, "{what}: {}: {reason}", path.display())
            }
            NatsAuthError::Conflict(m) => f.write_str(m),
            NatsAuthError::BadUrl(url) => write!(f, "the NATS URL {url} cannot be read"),
        }
    }
}

impl std::error::Error for NatsAuthError {}

/// The parts of a NATS URL: where to connect, what to show, the credentials it carried.
#[derive(Clone, PartialEq, Eq)]
struct SplitUrl {
    /// The URL without its credentials.
    address: String,
    /// The URL with its credentials replaced by `***`.
    shown: String,
    /// The credentials of the URL, if any.
    auth: NatsAuth,
}

/// Decodes `%XX` escapes (a URL's user and password); `None` for a bad escape or bytes that
/// are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Splits `url` (`[SCHEME://][USERINFO@]HOST[:PORT][/...]`) into its parts.
fn split_url(url: &str) -> Result<SplitUrl, NatsAuthError> {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return Ok(SplitUrl {
            address: url.to_owned(),
            shown: url.to_owned(),
            auth: NatsAuth::None,
        });
    };
    let userinfo = &authority[..at];
    let after = &rest[at + 1..];
    let shown = format!("{scheme}***@{after}");
    let bad = || NatsAuthError::BadUrl(shown.clone());
    let auth = match userinfo.split_once(':') {
        Some((user, password)) => NatsAuth::UserPassword {
            user: percent_decode(user).ok_or_else(bad)?,
            password: percent_decode(password).ok_or_else(bad)?,
        },
        None => NatsAuth::Token(percent_decode(userinfo).ok_or_else(bad)?),
    };
    if matches!(&auth, NatsAuth::UserPassword { user, .. } if user.is_empty())
        || matches!(&auth, NatsAuth::Token(t) if t.is_empty())
    {
        return Err(bad());
    }
    Ok(SplitUrl {
        address: format!("{scheme}{after}"),
        shown,
        auth,
    })
}

/// `url` as it may be shown: its credentials, if any, replaced by `***`
/// (`nats://chuhe:secret@nats:4222` becomes `nats://***@nats:4222`).
///
/// ```
/// use chuhe_server::cluster::nats_auth::redact_url;
/// assert_eq!(redact_url("nats://chuhe:secret@nats:4222"), "nats://***@nats:4222");
/// assert_eq!(redact_url("tls://nats:4222"), "tls://nats:4222");
/// ```
pub fn redact_url(url: &str) -> String {
    match split_url(url) {
        Ok(split) => split.shown,
        Err(NatsAuthError::BadUrl(shown)) => shown,
        Err(_) => "***".to_owned(),
    }
}

/// Reads a file named by a setting.
fn read(what: &'static str, path: &Path) -> Result<String, NatsAuthError> {
    std::fs::read_to_string(path).map_err(|error| NatsAuthError::Unreadable {
        what,
        path: path.to_owned(),
        error,
    })
}

/// Reads a secret (a password or a token) from a file: its content without the final line
/// break.
///
/// # Errors
/// [`NatsAuthError::Unreadable`] when the file cannot be read; [`NatsAuthError::Invalid`] when
/// it is empty.
pub fn read_secret(what: &'static str, path: &Path) -> Result<String, NatsAuthError> {
    let text = read(what, path)?;
    let secret = text.trim_end_matches(['\n', '\r']);
    if secret.is_empty() {
        return Err(NatsAuthError::Invalid {
            what,
            path: path.to_owned(),
            reason: "the file is empty".to_owned(),
        });
    }
    Ok(secret.to_owned())
}

/// Where and how a node connects to NATS: the address without credentials, the URL as shown
/// and the connection's options.
pub struct NatsTarget {
    /// The URL to connect to, without credentials.
    pub address: String,
    /// The URL as it may be shown (credentials replaced by `***`).
    pub shown: String,
    auth: NatsAuth,
    tls: NatsTls,
    nkey_seed: Option<String>,
}

impl fmt::Debug for NatsTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NatsTarget")
            .field("shown", &self.shown)
            .field("auth", &self.auth)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

impl NatsTarget {
    /// Checks the settings and reads the files they name (the NKey seed is checked to be a
    /// user seed; the TLS files to hold PEM), so that a mistake stops the node at start with
    /// one line.
    ///
    /// # Errors
    /// [`NatsAuthError::Conflict`] for credentials both in the URL and in `auth`, or a client
    /// certificate without its key (or the reverse); [`NatsAuthError::BadUrl`] for a URL whose
    /// credentials cannot be decoded; [`NatsAuthError::Unreadable`] or
    /// [`NatsAuthError::Invalid`] for a file.
    ///
    /// ```
    /// use chuhe_server::cluster::nats_auth::{NatsAuth, NatsTarget, NatsTls};
    /// let url = "nats://chuhe:secret@nats:4222";
    /// let target = NatsTarget::new(url, &NatsAuth::None, &NatsTls::default())?;
    /// assert_eq!(target.address, "nats://nats:4222");
    /// assert_eq!(target.shown, "nats://***@nats:4222");
    /// assert_eq!(target.auth().method(), "a user and password");
    /// # Ok::<(), chuhe_server::cluster::nats_auth::NatsAuthError>(())
    /// ```
    pub fn new(url: &str, auth: &NatsAuth, tls: &NatsTls) -> Result<NatsTarget, NatsAuthError> {
        let split = split_url(url)?;
        let auth = match (split.auth, auth) {
            (from_url, NatsAuth::None) => from_url,
            (NatsAuth::None, given) => given.clone(),
            (from_url, given) => {
                return Err(NatsAuthError::Conflict(format!(
                    "the NATS URL {} carries {} and {} is given too: use one",
                    split.shown,
                    from_url.method(),
                    given.method()
                )))
            }
        };
        let nkey_seed = match &auth {
            NatsAuth::NkeyFile(path) => {
                let what = "--nats-nkey-file";
                let seed = read(what, path)?.trim().to_owned();
                let invalid = |reason: &str| NatsAuthError::Invalid {
                    what,
                    path: path.clone(),
                    reason: reason.to_owned(),
                };
                if !seed.starts_with("SU") {
                    return Err(invalid("not an NKey user seed (SU...)"));
                }
                nkeys::KeyPair::from_seed(&seed)
                    .map_err(|_| invalid("not an NKey user seed (SU...)"))?;
                Some(seed)
            }
            NatsAuth::CredentialsFile(path) => {
                let text = read("--nats-creds", path)?;
                if !text.contains("BEGIN NATS USER JWT") || !text.contains("BEGIN USER NKEY SEED") {
                    return Err(NatsAuthError::Invalid {
                        what: "--nats-creds",
                        path: path.clone(),
                        reason: "not a NATS credentials file (a user JWT and its seed)".to_owned(),
                    });
                }
                None
            }
            _ => None,
        };
        match (&tls.cert, &tls.key) {
            (Some(_), None) => {
                return Err(NatsAuthError::Conflict(
                    "--nats-tls-cert needs --nats-tls-key".to_owned(),
                ))
            }
            (None, Some(_)) => {
                return Err(NatsAuthError::Conflict(
                    "--nats-tls-key needs --nats-tls-cert".to_owned(),
                ))
            }
            _ => {}
        }
        let pem = |what: &'static str, path: &Option<PathBuf>, marker: &str| {
            let Some(path) = path else { return Ok(()) };
            if read(what, path)?.contains(marker) {
                Ok(())
            } else {
                Err(NatsAuthError::Invalid {
                    what,
                    path: path.clone(),
                    reason: format!("no PEM {marker} in the file"),
                })
            }
        };
        pem("--nats-tls-ca", &tls.ca, "CERTIFICATE")?;
        pem("--nats-tls-cert", &tls.cert, "CERTIFICATE")?;
        pem("--nats-tls-key", &tls.key, "PRIVATE KEY")?;
        Ok(NatsTarget {
            address: split.address,
            shown: split.shown,
            auth,
            tls: tls.clone(),
            nkey_seed,
        })
    }

    /// The authentication method in use (after the URL's credentials were taken out).
    pub fn auth(&self) -> &NatsAuth {
        &self.auth
    }

    /// Whether the connection must use TLS: a `tls://` URL or any TLS setting.
    pub fn requires_tls(&self) -> bool {
        self.tls.is_set() || self.address.starts_with("tls://")
    }

    /// The connection's options, without a name or time limits (the caller adds them).
    ///
    /// # Errors
    /// [`NatsAuthError::Invalid`] for a credentials file async-nats cannot read.
    pub async fn options(&self) -> Result<async_nats::ConnectOptions, NatsAuthError> {
        let mut options = async_nats::ConnectOptions::new();
        match &self.auth {
            NatsAuth::None => {}
            NatsAuth::UserPassword { user, password } => {
                options = options.user_and_password(user.clone(), password.clone());
            }
            NatsAuth::Token(token) => options = options.token(token.clone()),
            NatsAuth::NkeyFile(_) => {
                if let Some(seed) = &self.nkey_seed {
                    options = options.nkey(seed.clone());
                }
            }
            NatsAuth::CredentialsFile(path) => {
                options =
                    options
                        .credentials_file(path)
                        .await
                        .map_err(|e| NatsAuthError::Invalid {
                            what: "--nats-creds",
                            path: path.clone(),
                            reason: e.to_string(),
                        })?;
            }
        }
        if let Some(ca) = &self.tls.ca {
            options = options.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&self.tls.cert, &self.tls.key) {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        if self.requires_tls() {
            options = options.require_tls(true);
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, content: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("chuhe-nats-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn credentials_are_taken_out_of_the_url() {
        let split = split_url("nats://chuhe:s%40cret@nats.example:4222").unwrap();
        assert_eq!(split.address, "nats://nats.example:4222");
        assert_eq!(split.shown, "nats://***@nats.example:4222");
        assert_eq!(
            split.auth,
            NatsAuth::UserPassword {
                user: "chuhe".to_owned(),
                password: "s@cret".to_owned()
            }
        );
        let split = split_url("tls://t0ken@nats.example:4443").unwrap();
        assert_eq!(split.address, "tls://nats.example:4443");
        assert_eq!(split.auth, NatsAuth::Token("t0ken".to_owned()));
        let split = split_url("nats://127.0.0.1:4222").unwrap();
        assert_eq!(split.address, "nats://127.0.0.1:4222");
        assert_eq!(split.shown, "nats://127.0.0.1:4222");
        assert_eq!(split.auth, NatsAuth::None);
        // An '@' after the host is not credentials.
        let split = split_url("nats://127.0.0.1:4222/a@b").unwrap();
        assert_eq!(split.auth, NatsAuth::None);
        assert_eq!(redact_url("nats://u:p%zz@h:1"), "nats://***@h:1");
        assert!(matches!(
            split_url("nats://u:p%zz@h:1"),
            Err(NatsAuthError::BadUrl(u)) if u == "nats://***@h:1"
        ));
    }

    #[test]
    fn secrets_are_never_shown() {
        let auth = NatsAuth::UserPassword {
            user: "chuhe".to_owned(),
            password: "hunter2".to_owned(),
        };
        let debug = format!("{auth:?}");
        assert_eq!(debug, "UserPassword { user: \"chuhe\", password: \"***\" }");
        assert_eq!(
            format!("{:?}", NatsAuth::Token("t".to_owned())),
            "Token(***)"
        );
        let target = NatsTarget::new(
            "nats://a:hunter2@h:4222",
            &NatsAuth::None,
            &NatsTls::default(),
        )
        .unwrap();
        assert!(!format!("{target:?}").contains("hunter2"));
        assert_eq!(target.shown, "nats://***@h:4222");
    }

    #[test]
    fn two_methods_conflict() {
        let e = NatsTarget::new(
            "nats://a:b@h:4222",
            &NatsAuth::Token("t".to_owned()),
            &NatsTls::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the NATS URL nats://***@h:4222 carries a user and password and a token is given too: use one"
        );
        let tls = NatsTls {
            cert: Some(PathBuf::from("c.pem")),
            ..NatsTls::default()
        };
        let e = NatsTarget::new("nats://h:4222", &NatsAuth::None, &tls).unwrap_err();
        assert_eq!(e.to_string(), "--nats-tls-cert needs --nats-tls-key");
    }

    #[test]
    fn files_are_checked_at_start() {
        let missing = PathBuf::from("/nonexistent/chuhe/seed.nk");
        let e = NatsTarget::new(
            "nats://h:4222",
            &NatsAuth::NkeyFile(missing),
            &NatsTls::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--nats-nkey-file: cannot read /nonexistent/chuhe/seed.nk: No such file or directory (os error 2)"
        );
        let bad = temp("bad.nk", "SUNOTASEED\n");
        let e = NatsTarget::new(
            "nats://h:4222",
            &NatsAuth::NkeyFile(bad.clone()),
            &NatsTls::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--nats-nkey-file: {}: not an NKey user seed (SU...)",
                bad.display()
            )
        );
        let seed = nkeys::KeyPair::new_user().seed().unwrap();
        let good = temp("good.nk", &format!("{seed}\n"));
        let target = NatsTarget::new(
            "nats://h:4222",
            &NatsAuth::NkeyFile(good),
            &NatsTls::default(),
        )
        .unwrap();
        assert_eq!(target.nkey_seed.as_deref(), Some(seed.as_str()));
        let empty = temp("empty", "\n");
        let e = read_secret("--nats-password-file", &empty).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--nats-password-file: {}: the file is empty",
                empty.display()
            )
        );
        let password = temp("password", "pa ss\r\n");
        assert_eq!(
            read_secret("--nats-password-file", &password).unwrap(),
            "pa ss"
        );
        let not_pem = temp("ca.pem", "hello");
        let tls = NatsTls {
            ca: Some(not_pem.clone()),
            ..NatsTls::default()
        };
        let e = NatsTarget::new("nats://h:4222", &NatsAuth::None, &tls).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--nats-tls-ca: {}: no PEM CERTIFICATE in the file",
                not_pem.display()
            )
        );
    }

    #[tokio::test]
    async fn a_credentials_file_is_read() {
        let not_creds = temp("not.creds", "hello\n");
        let e = NatsTarget::new(
            "nats://h:4222",
            &NatsAuth::CredentialsFile(not_creds.clone()),
            &NatsTls::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--nats-creds: {}: not a NATS credentials file (a user JWT and its seed)",
                not_creds.display()
            )
        );
        let seed = nkeys::KeyPair::new_user().seed().unwrap();
        let creds = temp(
            "node.creds",
            &format!(
                "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n\
                 ------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n{seed}\n\
                 ------END USER NKEY SEED------\n"
            ),
        );
        let target = NatsTarget::new(
            "tls://h:4222",
            &NatsAuth::CredentialsFile(creds),
            &NatsTls::default(),
        )
        .unwrap();
        assert!(target.requires_tls());
        assert!(target.options().await.is_ok());
    }

    #[test]
    fn tls_is_required_by_the_scheme_or_a_setting() {
        let none = NatsTls::default();
        let plain = NatsTarget::new("nats://h:4222", &NatsAuth::None, &none).unwrap();
        assert!(!plain.requires_tls());
        let tls = NatsTarget::new("tls://h:4222", &NatsAuth::None, &none).unwrap();
        assert!(tls.requires_tls());
    }
}
