//! The set-up most tests begin with: an account, a podcast, an uploaded file, made through the
//! core as any frontend would make them.

use podhost_core::{
    FeedId, PodcastHost, Principal,
    model::{Media, NewFeed, NewMedia},
};

use crate::body;

/// Creates an account and returns its owner.
pub async fn account(host: &PodcastHost, name: &str) -> Principal {
    host.access()
        .create_account(name)
        .await
        .expect("account created");
    host.access()
        .owner(&name.parse().expect("a valid name"))
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
        .podcasts()
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
    host.podcasts()
        .upload_media(
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

/// Runs `host`'s job workers until the returned sender is dropped (or sent to).
pub fn run_jobs(host: &PodcastHost) -> tokio::sync::oneshot::Sender<()> {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let host = host.clone();
    tokio::spawn(async move {
        host.work()
            .run_jobs(async {
                let _ = stopped.await;
            })
            .await;
    });
    stop
}

/// A campaign of `who` with the ad `ad` in every position of every podcast.
pub async fn campaign_everywhere(
    host: &PodcastHost,
    who: &Principal,
    ad: podhost_core::MediaId,
) -> podhost_core::model::CampaignView {
    use podhost_core::model::{NewCampaign, Position};
    host.ads()
        .create_campaign(
            who,
            NewCampaign {
                name: "Everywhere".into(),
                media: Some(ad),
                positions: Position::ALL.to_vec(),
                ..Default::default()
            },
        )
        .await
        .expect("campaign created")
}

/// What `listener` gets at the enclosure URL of `account`'s file `blob` once it carries ads:
/// asks until the ads were encoded (the host's job workers must run, see [`run_jobs`]); panics
/// after a minute.
pub async fn stitched(
    host: &PodcastHost,
    account: &str,
    blob: &str,
    listener: &podhost_core::Listener,
) -> Box<podhost_core::StitchedEnclosure> {
    let id: podhost_core::AccountId = account.parse().expect("a valid name");
    for _ in 0..2400 {
        let media = host
            .delivery()
            .public_media(account, blob)
            .await
            .expect("a public file");
        match host
            .ads()
            .enclosure_for(&id, media, listener)
            .await
            .expect("answered")
        {
            podhost_core::Enclosure::Stitched(answer) => return answer,
            podhost_core::Enclosure::File(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            podhost_core::Enclosure::Retimed(_) => panic!("{blob} is a transcript, not audio"),
        }
    }
    panic!("{blob} was never answered with ads");
}
