//! The set-up most tests begin with: an account, a podcast, an uploaded file, made through the
//! core as any frontend would make them.

use podhost_core::{
    FeedId, PodcastHost, Principal,
    model::{Media, NewFeed, NewMedia},
};

use crate::body;

/// Creates an account and returns its owner.
pub async fn account(host: &PodcastHost, name: &str) -> Principal {
    host.create_account(name).await.expect("account created");
    host.owner(&name.parse().expect("a valid name"))
        .await
        .expect("owner")
}

/// Creates the account `name` with a podcast `feed` (titled after it); returns its owner and
/// the podcast's id.
pub async fn account_with_podcast(
    host: &PodcastHost,
    name: &str,
    feed: &str,
) -> (Principal, FeedId) {
    let who = account(host, name).await;
    let id = host
        .create_feed(&who, NewFeed::titled(feed, feed))
        .await
        .expect("podcast created")
        .feed
        .id;
    (who, id)
}

/// Uploads `bytes` as the media file `name` of `who` (streamed in 64 KiB chunks, as a client
/// would send it).
pub async fn upload(host: &PodcastHost, who: &Principal, name: &str, bytes: Vec<u8>) -> Media {
    host.upload_media(
        who,
        NewMedia {
            name: name.into(),
            category: None,
        },
        body(bytes, 64 << 10),
    )
    .await
    .expect("upload")
}
