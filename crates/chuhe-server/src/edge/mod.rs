//! The edge: what faces the network. HTTP routes ([`app`]) and their extractors ([`extract`]),
//! the WebSocket of a table, personal API tokens and the routes in lichess's shapes ([`bots`]), cross-site checks ([`origin`]), limits per address and
//! per person ([`limit`]), the analysis endpoints ([`analysis`], [`evaluation`]), puzzles ([`puzzles`]), the OpenAPI description
//! of the routes ([`openapi`]), the web client's files ([`web`]) and the listener with its accept loop ([`listen`]).
//!
//! The edge depends on the middle ([`crate::site`]) and never the reverse: the routes' state is
//! an [`Edge`], the [`AppState`] of the site with the limits that only the edge keeps.

pub mod analysis;
pub mod botplay;
pub mod bots;
pub mod evaluation;
pub mod extract;
mod http;
pub mod limit;
pub mod listen;
pub mod openapi;
pub mod origin;
pub mod puzzles;
pub mod tournaments;
pub mod web;
mod ws;

pub use http::{app, MAX_BODY_BYTES};

use crate::site::AppState;
use axum::extract::FromRef;
use std::sync::Arc;

/// The state of the routes: the site, and what the edge keeps of its own (the rate limits of
/// addresses, the chat budget of persons, the analysis engine's slots). Cheap to clone.
#[derive(Clone)]
pub struct Edge {
    site: AppState,
    limits: Arc<Limits>,
}

/// What the edge keeps besides the site.
struct Limits {
    http: limit::HttpLimiter,
    tokens: limit::TokenLimiter,
    chat: limit::ChatLimiter,
    eval: evaluation::EvalSlots,
}

impl Edge {
    /// The edge of `site`, its limits taken from the site's settings
    /// ([`crate::Settings::http_limits`], [`crate::Settings::chat_lines`]) and the analysis
    /// engine's slots ([`evaluation::MAX_CONCURRENT_EVALS`]).
    pub fn new(site: AppState) -> Edge {
        let settings = site.settings_ref();
        let limits = Limits {
            http: limit::HttpLimiter::new(settings.http_limits, settings.trust_forwarded_for),
            tokens: limit::TokenLimiter::new(settings.http_limits.token),
            chat: limit::ChatLimiter::new(settings.chat_lines),
            eval: evaluation::EvalSlots::new(evaluation::MAX_CONCURRENT_EVALS),
        };
        Edge {
            site,
            limits: Arc::new(limits),
        }
    }

    /// The site behind this edge.
    pub fn site(&self) -> &AppState {
        &self.site
    }

    pub(crate) fn http_limiter(&self) -> &limit::HttpLimiter {
        &self.limits.http
    }

    pub(crate) fn token_limiter(&self) -> &limit::TokenLimiter {
        &self.limits.tokens
    }

    pub(crate) fn chat_limiter(&self) -> &limit::ChatLimiter {
        &self.limits.chat
    }

    pub(crate) fn eval_slots(&self) -> &evaluation::EvalSlots {
        &self.limits.eval
    }
}

impl FromRef<Edge> for AppState {
    fn from_ref(edge: &Edge) -> AppState {
        edge.site.clone()
    }
}
