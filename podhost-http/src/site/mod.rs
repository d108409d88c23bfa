//! The site around the podcasts, for browsers: the home page (`/`, [`home`]), the
//! key-management site (`/account`: [`signing_in`] and out, the [`account`] page with personal
//! tokens, OAuth clients and the grants given to clients, its [`members`]), the statistics pages
//! ([`stats`]: `/account/stats...`), the podcasts' followers, comments and blocks on the
//! fediverse ([`fediverse`]: `/account/fediverse...`) and the OAuth consent page ([`oauth`]:
//! `/oauth/authorize`). Server-rendered HTML ([`views`]) that needs no script, sent with a
//! strict Content-Security-Policy, in the visitor's language ([`words`]: English or German, as
//! a link, the remembered choice or the browser asks).
//!
//! Every rule is the core's (passwords, sessions, throttling, tokens, clients, grants, the
//! authorization request); this module carries them over HTTP: the session cookie, the CSRF
//! token every form carries (the session's own once signed in; before that, a random value in
//! a cookie of its own that the sign-in form repeats), and redirects. This file only routes:
//! each route's handler lives with what it serves, over a [`visit::Visit`].

// The `Err` of the handlers here is the page to answer instead (a refusal, the sign-in form):
// one per request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod account;
mod answers;
mod fediverse;
mod home;
mod members;
mod oauth;
pub(crate) mod paths;
mod signing_in;
mod stats;
mod views;
mod visit;
mod words;

use http::{Response, StatusCode, request::Parts};

use visit::{Page, Visit};

use crate::{
    context::{Api, RequestBody},
    response::Body,
    routes::site::SiteEndpoint,
};

/// Answers a request to a site route (`Surface::Site`).
pub(crate) async fn answer<B: RequestBody>(
    api: &Api,
    endpoint: SiteEndpoint,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    let answered = match Visit::new(api, parts, body).await {
        Ok(visit) => page(&visit, endpoint).await,
        Err(refused) => Err(refused),
    };
    match answered {
        Ok(answer) | Err(answer) => answer,
    }
}

/// Answers the OAuth authorization endpoint (`GET /oauth/authorize`): the consent page, or
/// the sign-in form first.
pub(crate) async fn authorization<B: RequestBody>(
    api: &Api,
    parts: &Parts,
    body: B,
) -> Response<Body> {
    let answered = match Visit::new(api, parts, body).await {
        Ok(visit) => oauth::authorize(&visit).await,
        Err(refused) => Err(refused),
    };
    match answered {
        Ok(answer) | Err(answer) => answer,
    }
}

/// The page of a site route: each row of the site's table to its handler.
async fn page(visit: &Visit<'_>, endpoint: SiteEndpoint) -> Page {
    use SiteEndpoint as E;
    let api = visit.api;
    match endpoint {
        E::Home {} => home::home(visit).await,
        E::Account {} => match &visit.session {
            Some(_) => visit.account_page(StatusCode::OK, None).await,
            None => Ok(visit.sign_in_page(StatusCode::OK, paths::ACCOUNT, "", None)),
        },
        E::SignIn {} => signing_in::sign_in(visit).await,
        E::SignOut {} => signing_in::sign_out(visit).await,
        E::SwitchAccount {} => signing_in::switch_account(visit).await,
        E::StatsPage {} => {
            let viewer = visit.stats_viewer()?;
            visit.stats_page(&viewer, stats::account(api, &viewer).await)
        }
        E::PodcastStatsPage { feed_id } => {
            let viewer = visit.stats_viewer()?;
            visit.stats_page(&viewer, stats::podcast(api, &viewer, &feed_id).await)
        }
        E::CampaignStatsPage { campaign_id } => {
            let viewer = visit.stats_viewer()?;
            visit.stats_page(&viewer, stats::campaign(api, &viewer, &campaign_id).await)
        }
        E::CreateToken {} => account::create_token(visit).await,
        E::RevokeToken { token_id } => account::revoke_token(visit, &token_id).await,
        E::CreateClient {} => account::create_client(visit).await,
        E::DeleteClient { client_id } => account::delete_client(visit, &client_id).await,
        E::RevokeGrant { grant_id } => account::revoke_grant(visit, &grant_id).await,
        E::Consent {} => oauth::consent(visit).await,
        E::Invitation { secret } => members::invitation(visit, &secret, StatusCode::OK, None).await,
        E::AcceptInvitation { secret } => members::accept_invitation(visit, &secret).await,
        E::InviteMember {} => members::invite_member(visit).await,
        E::UpdateMember { member_id } => members::update_member(visit, &member_id).await,
        E::RemoveMember { member_id } => members::remove_member(visit, &member_id).await,
        E::FediversePage {} => fediverse::overview(visit).await,
        E::PodcastFediversePage { feed_id } => fediverse::podcast(visit, &feed_id).await,
        E::HideComment {
            feed_id,
            episode_id,
            comment_id,
        } => fediverse::set_hidden(visit, &feed_id, episode_id, &comment_id, true).await,
        E::ShowComment {
            feed_id,
            episode_id,
            comment_id,
        } => fediverse::set_hidden(visit, &feed_id, episode_id, &comment_id, false).await,
        E::CreateBlock {} => fediverse::block(visit).await,
        E::LiftBlock { block_id } => fediverse::unblock(visit, &block_id).await,
    }
}
