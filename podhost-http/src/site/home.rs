//! The home page (`/`): what this server is, and the podcasts it hosts.

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use http::StatusCode;

use super::{
    views,
    visit::{Page, Visit},
};

/// How many podcasts the home page lists.
const HOME_PODCASTS: usize = 100;

pub(super) async fn home(visit: &Visit<'_>) -> Page {
    let api = visit.api;
    let podcasts = api
        .host
        .delivery()
        .public_podcasts(HOME_PODCASTS + 1)
        .await
        .map_err(|e| visit.failure(&e))?;
    let more = podcasts.len() > HOME_PODCASTS;
    let listed: Vec<views::Listed> = podcasts
        .into_iter()
        .take(HOME_PODCASTS)
        .map(|(id, title)| views::Listed {
            url: api.host.urls().feed_page(&id),
            title,
        })
        .collect();
    Ok(visit.html(
        StatusCode::OK,
        views::home(&visit.words, &listed, more),
        &[],
    ))
}
