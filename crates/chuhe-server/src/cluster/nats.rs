//! The NATS connection of a node: connecting with its credentials and TLS (one line of reason when
//! it fails), and the check that a prefix carries one cluster only.

use super::nats_auth::{redact_url, NatsAuth, NatsTarget};
use super::{ClusterSettings, NATS_CONNECT_TIMEOUT};
use crate::error::ServerError;
use async_nats::jetstream::kv;

/// Connects to the NATS of `settings` with its authentication and TLS ([`NatsTarget`]), as
/// `name`.
///
/// # Errors
/// [`ServerError::Config`] with one line that shows the URL without its credentials: bad
/// settings or files, no answer within [`NATS_CONNECT_TIMEOUT`], a refusal (wrong
/// credentials: "authorization violation"; TLS).
pub(crate) async fn connect(
    settings: &ClusterSettings,
    name: &str,
) -> Result<async_nats::Client, ServerError> {
    let target = NatsTarget::new(&settings.nats_url, &settings.auth, &settings.tls)
        .map_err(|e| ServerError::Config(e.to_string()))?;
    let options = target
        .options()
        .await
        .map_err(|e| ServerError::Config(e.to_string()))?
        .name(name);
    let cannot = |why: String| {
        ServerError::Config(format!(
            "cannot connect to NATS at {} ({}{}): {why}",
            target.shown,
            match target.auth() {
                NatsAuth::None => "no credentials",
                other => other.method(),
            },
            if target.requires_tls() { ", TLS" } else { "" },
        ))
    };
    // A server that accepts the connection but never answers (not NATS) must not hold the
    // start forever.
    tokio::time::timeout(
        NATS_CONNECT_TIMEOUT,
        options.connect(target.address.as_str()),
    )
    .await
    .map_err(|_| {
        cannot(format!(
            "no answer within {} s",
            NATS_CONNECT_TIMEOUT.as_secs()
        ))
    })?
    .map_err(|e| cannot(connect_failure(&e, target.auth())))
}

/// Why a connection to NATS failed, in one line without a secret: a refusal of credentials
/// says so; otherwise the underlying reason (I/O, TLS).
pub(super) fn connect_failure(e: &async_nats::ConnectError, auth: &NatsAuth) -> String {
    use async_nats::ConnectErrorKind;
    let source = std::error::Error::source(e).map(ToString::to_string);
    match (e.kind(), source) {
        (ConnectErrorKind::AuthorizationViolation, _) => format!(
            "authorization violation: {}",
            if *auth == NatsAuth::None {
                "the server asks for credentials"
            } else {
                "the server refused these credentials"
            }
        ),
        (ConnectErrorKind::Tls, Some(source)) => format!("TLS: {source}"),
        (ConnectErrorKind::Io, Some(source)) => source,
        _ => e.to_string(),
    }
}

/// Checks that this node joins the cluster its database and its NATS agree on: the database
/// records the cluster's NATS prefix and id ([`crate::store::Store::cluster_identity`]: another
/// prefix is refused while nodes run), and the NATS bucket `<prefix>-cluster` holds the same id
/// (the first node leaves it there): a NATS that carries another site's cluster under the same
/// prefix is refused, since the two sites would exchange their tables' messages.
///
/// # Errors
/// [`ServerError::Config`] with a one-line reason; a failure to reach either.
pub(super) async fn check_identity(
    jetstream: &async_nats::jetstream::Context,
    settings: &ClusterSettings,
    store: &crate::store::Store,
) -> Result<(), ServerError> {
    let id = store
        .cluster_identity(&settings.prefix, &crate::ids::random_id(16))
        .await?;
    let bucket = format!("{}-cluster", settings.prefix);
    let config = kv::Config {
        bucket: bucket.clone(),
        history: 1,
        description: "chuhe: the id of the cluster (its database) that uses this prefix".to_owned(),
        ..Default::default()
    };
    let identity = match jetstream.create_key_value(config).await {
        Ok(b) => b,
        Err(created) => jetstream.get_key_value(&bucket).await.map_err(|e| {
            ServerError::Config(format!(
                "cannot open the NATS key-value bucket {bucket}: {created}; {e}"
            ))
        })?,
    };
    if identity.create("database", id.clone().into()).await.is_ok() {
        return Ok(());
    }
    let found = identity.get("database").await.map_err(|e| {
        ServerError::Config(format!(
            "cannot read the NATS key-value bucket {bucket}: {e}"
        ))
    })?;
    match found {
        Some(found) if found.as_ref() == id.as_bytes() => Ok(()),
        Some(found) => Err(ServerError::Config(format!(
            "NATS at {} already carries another chuhe cluster under --nats-prefix {:?} \
             (cluster {:?}, this database's is {id:?}): give each site its own prefix",
            redact_url(&settings.nats_url),
            settings.prefix,
            String::from_utf8_lossy(&found)
        ))),
        // Removed meanwhile (a NATS without its storage): this cluster's again.
        None => identity
            .put("database", id.into())
            .await
            .map(|_| ())
            .map_err(|e| ServerError::Config(format!("cannot write to NATS bucket {bucket}: {e}"))),
    }
}
