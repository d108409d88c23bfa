//! Episodes (shows) of a feed.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    error::FieldErrors,
    ids::{EpisodeId, FeedId, JobId, MediaId},
    model::Media,
};

/// One episode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// Its id, unique in the account.
    pub id: EpisodeId,
    /// The feed it belongs to.
    pub feed: FeedId,
    /// The RSS guid: the id unless one was given at creation; never changes.
    pub guid: String,
    /// Title.
    pub title: String,
    /// Subtitle.
    pub subtitle: String,
    /// Show notes (user HTML).
    pub description: String,
    /// Author.
    pub author: String,
    /// Author's email.
    pub email: String,
    /// Copyright notice.
    pub copyright: String,
    /// A web page about the episode.
    pub link: String,
    /// Public (`is_public` 1) or draft.
    pub is_public: bool,
    /// When it is (or was) published; public episodes with a future date are scheduled.
    pub publish_at: Timestamp,
    /// The audio.
    pub media: Option<MediaId>,
    /// The video (`video_media`): a video file of the account, beside the audio or instead of
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<MediaId>,
    /// Apple Podcasts fields.
    pub itunes: ItunesEpisode,
    /// The transcript (`podcast:transcript`), a media file.
    pub transcript: Option<MediaId>,
    /// The other Podcasting 2.0 tags.
    #[serde(default)]
    pub podcast: super::podcast::ItemTags,
    /// The mastering of its audio under way, in a podcast that masters
    /// ([`FeedAudio`](super::FeedAudio)): when the job succeeds the mastered file becomes
    /// `media`. While `media` is the file being mastered, the episode is not published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mastering: Option<Mastering>,
    /// When it was created.
    pub created: Timestamp,
    /// When it last changed.
    pub updated: Timestamp,
    /// Counts the changes; an update can require the version it read.
    pub version: u64,
}

/// An episode's audio being mastered: the job, and the file it masters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mastering {
    /// The mastering job.
    pub job: JobId,
    /// The file it masters (the audio the episode was given).
    pub media: MediaId,
}

impl Episode {
    /// Published: public, its date has come, and its audio is not waiting to be mastered.
    pub fn is_published(&self, now: Timestamp) -> bool {
        self.is_public && self.publish_at <= now && !self.awaits_master()
    }

    /// Its audio is a file being mastered: it is held back until the mastered file replaces it
    /// (an episode given new audio after it was published keeps its old audio meanwhile).
    pub fn awaits_master(&self) -> bool {
        self.mastering
            .as_ref()
            .is_some_and(|m| Some(m.media) == self.media)
    }

    /// Where it stands among the episodes that play one file as their audio (the file's
    /// downloads and ads count for the least): published first, then the earliest, then by
    /// podcast and id, so every process picks the same one.
    pub fn playing_rank(
        &self,
        feed: &crate::ids::FeedId,
        now: Timestamp,
    ) -> (bool, Timestamp, crate::ids::FeedId, crate::ids::EpisodeId) {
        (
            !self.is_published(now),
            self.publish_at,
            feed.clone(),
            self.id,
        )
    }

    /// The media files it uses.
    pub fn media_ids(&self) -> impl Iterator<Item = MediaId> + '_ {
        [self.media, self.video, self.itunes.logo, self.transcript]
            .into_iter()
            .flatten()
            .chain(
                self.podcast
                    .alternate_enclosure
                    .iter()
                    .filter_map(|a| a.media),
            )
    }
}

/// Apple Podcasts episode fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ItunesEpisode {
    /// Title shown in Apple Podcasts.
    pub title: String,
    /// Subtitle.
    pub subtitle: String,
    /// Summary.
    pub summary: String,
    /// Author.
    pub author: String,
    /// Episode number.
    pub episode: Option<u32>,
    /// Season number.
    pub season: Option<u32>,
    /// Full, trailer or bonus.
    pub episode_type: EpisodeType,
    /// Episode cover, a media file.
    pub logo: Option<MediaId>,
    /// Explicit content; `None` inherits the feed's.
    pub explicit: Option<bool>,
}

/// `itunes:episodeType`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EpisodeType {
    /// A regular episode.
    #[default]
    Full,
    /// A trailer.
    Trailer,
    /// Bonus content.
    Bonus,
}

impl std::str::FromStr for EpisodeType {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "full" => Ok(EpisodeType::Full),
            "trailer" => Ok(EpisodeType::Trailer),
            "bonus" => Ok(EpisodeType::Bonus),
            _ => Err(crate::Error::invalid(
                "itunes.episodeType",
                "the episode type is full, trailer or bonus",
            )),
        }
    }
}

impl EpisodeType {
    /// The RSS name.
    pub fn as_str(self) -> &'static str {
        match self {
            EpisodeType::Full => "full",
            EpisodeType::Trailer => "trailer",
            EpisodeType::Bonus => "bonus",
        }
    }
}

/// An episode with what a listing needs beside it, read at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeView {
    /// The media files its alternate enclosures name (`podcast:alternateEnclosure` with a
    /// `media`), by id.
    #[serde(default)]
    pub alternates: Vec<Media>,
    /// The episode.
    pub episode: Episode,
    /// Its audio, when it has one.
    pub media: Option<Media>,
    /// Its cover, when it has one.
    pub logo: Option<Media>,
    /// Its transcript, when it has one.
    pub transcript: Option<Media>,
    /// Its video, when it has one.
    #[serde(default)]
    pub video: Option<Media>,
    /// Whether it is published at the moment of reading.
    pub is_published: bool,
}

/// An [`EpisodeView`] borrowed from the account's state while a listing runs
/// ([`Podcasts::list_episodes_with`](crate::Podcasts::list_episodes_with)): what a
/// frontend needs to tell whether its rendering of the episode is current, without copying it.
#[derive(Clone, Debug)]
pub struct EpisodeRef<'a> {
    /// The media files its alternate enclosures name, by id.
    pub alternates: Vec<&'a Media>,
    /// The episode.
    pub episode: &'a Episode,
    /// Its audio, when it has one.
    pub media: Option<&'a Media>,
    /// Its cover, when it has one.
    pub logo: Option<&'a Media>,
    /// Its transcript, when it has one.
    pub transcript: Option<&'a Media>,
    /// Its video, when it has one.
    pub video: Option<&'a Media>,
    /// Whether it is published at the moment of reading.
    pub is_published: bool,
}

impl EpisodeRef<'_> {
    /// The owned view.
    pub fn to_view(&self) -> EpisodeView {
        EpisodeView {
            alternates: self.alternates.iter().map(|m| (*m).clone()).collect(),
            episode: self.episode.clone(),
            media: self.media.cloned(),
            logo: self.logo.cloned(),
            transcript: self.transcript.cloned(),
            video: self.video.cloned(),
            is_published: self.is_published,
        }
    }
}

impl Episode {
    /// Applies a change of the episode's fields: each field the patch names is replaced, the
    /// Podcasting 2.0 tags it names are replaced whole (or removed); a tag that cannot be
    /// applied is reported to `errors`. The rules of the values (lengths, references) are
    /// checked by the operation.
    pub fn apply(&mut self, patch: &EpisodePatch, errors: &mut FieldErrors) {
        let set = |target: &mut String, value: &Option<String>| {
            if let Some(v) = value {
                target.clone_from(v);
            }
        };
        set(&mut self.title, &patch.title);
        set(&mut self.subtitle, &patch.subtitle);
        set(&mut self.description, &patch.description);
        set(&mut self.author, &patch.author);
        set(&mut self.email, &patch.email);
        set(&mut self.copyright, &patch.copyright);
        set(&mut self.link, &patch.link);
        if let Some(v) = patch.is_public {
            self.is_public = v;
        }
        if let Some(v) = patch.publish_at {
            self.publish_at = v;
        }
        if let Some(v) = patch.media {
            self.media = v;
        }
        if let Some(v) = patch.video {
            self.video = v;
        }
        if let Some(v) = patch.transcript {
            self.transcript = v;
        }
        let it = &mut self.itunes;
        set(&mut it.title, &patch.itunes_title);
        set(&mut it.subtitle, &patch.itunes_subtitle);
        set(&mut it.summary, &patch.itunes_summary);
        set(&mut it.author, &patch.itunes_author);
        if let Some(v) = patch.itunes_episode {
            it.episode = v;
        }
        if let Some(v) = patch.itunes_season {
            it.season = v;
        }
        if let Some(v) = patch.itunes_episode_type {
            it.episode_type = v;
        }
        if let Some(v) = patch.itunes_logo {
            it.logo = v;
        }
        if let Some(v) = patch.itunes_explicit {
            it.explicit = v;
        }

        crate::model::podcast::apply(
            &mut self.podcast,
            &patch.podcast_tags,
            &crate::model::podcast::ITEM_TAGS,
            errors,
        );
    }
}

/// What a new episode is made of; only the title is required.
#[derive(Clone, Debug, Default)]
pub struct NewEpisode {
    /// A guid to keep verbatim (an import's); the id otherwise.
    pub guid: Option<String>,
    /// The fields.
    pub fields: EpisodePatch,
}

impl NewEpisode {
    /// An episode with a title and every other field at its default (a draft, dated now).
    pub fn titled(title: impl Into<String>) -> Self {
        NewEpisode {
            guid: None,
            fields: EpisodePatch {
                title: Some(title.into()),
                ..Default::default()
            },
        }
    }
}

/// A change of episode fields: `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
#[allow(missing_docs)]
pub struct EpisodePatch {
    /// The update applies only when the episode still has this version (else a conflict).
    pub if_version: Option<u64>,
    pub title: Option<String>,
    pub subtitle: Option<String>,
    pub description: Option<String>,
    pub author: Option<String>,
    pub email: Option<String>,
    pub copyright: Option<String>,
    pub link: Option<String>,
    pub is_public: Option<bool>,
    pub publish_at: Option<Timestamp>,
    /// `Some(None)` removes the audio.
    pub media: Option<Option<MediaId>>,
    /// The video; `Some(None)` removes it.
    pub video: Option<Option<MediaId>>,
    pub transcript: Option<Option<MediaId>>,
    pub itunes_title: Option<String>,
    pub itunes_subtitle: Option<String>,
    pub itunes_summary: Option<String>,
    pub itunes_author: Option<String>,
    pub itunes_episode: Option<Option<u32>>,
    pub itunes_season: Option<Option<u32>>,
    pub itunes_episode_type: Option<EpisodeType>,
    pub itunes_logo: Option<Option<MediaId>>,
    pub itunes_explicit: Option<Option<bool>>,
    /// Also write the episode's title, author, album (the podcast's title) and cover into its
    /// audio file's tags (a job; the file gets a new URL). Refused, with nothing changed, when
    /// the episode has no audio or its format takes no tags.
    pub write_metadata: bool,
    /// Podcasting 2.0 tags to replace (or, null, remove), by name.
    pub podcast_tags: super::podcast::TagsPatch,
}
