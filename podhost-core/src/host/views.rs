//! A record as it is shown: an episode with the media records it names, owned or borrowed, and
//! as an event shows it.

use crate::{
    ids::MediaId,
    model::{Episode, EpisodeRef, EpisodeView},
    state::Records,
    webhooks::event::Subject,
};

/// An episode as an event shows it.
pub(super) fn snapshot(records: &dyn Records, episode: &Episode, now: jiff::Timestamp) -> Subject {
    Subject::Episode(Box::new(view_of(records, episode.clone(), now)))
}

pub(super) fn view_of(
    records: &dyn Records,
    episode: Episode,
    now: jiff::Timestamp,
) -> EpisodeView {
    let borrowed = ref_of(records, &episode, now);
    EpisodeView {
        alternates: borrowed.alternates.into_iter().cloned().collect(),
        media: borrowed.media.cloned(),
        logo: borrowed.logo.cloned(),
        transcript: borrowed.transcript.cloned(),
        video: borrowed.video.cloned(),
        is_published: borrowed.is_published,
        episode,
    }
}

/// The episode with the media records it names, borrowed.
pub(super) fn ref_of<'a>(
    records: &'a dyn Records,
    episode: &'a Episode,
    now: jiff::Timestamp,
) -> EpisodeRef<'a> {
    let media = |id: Option<MediaId>| id.and_then(|m| records.media(m));
    EpisodeRef {
        alternates: episode
            .podcast
            .alternate_enclosure
            .iter()
            .filter_map(|a| media(a.media))
            .collect(),
        media: media(episode.media),
        logo: media(episode.itunes.logo),
        transcript: media(episode.transcript),
        video: media(episode.video),
        is_published: episode.is_published(now),
        episode,
    }
}
