//! A podcast's episodes (shows): list, read, create, update, delete, copy.

use podhost_core::{Action, EpisodeId, FeedId};
use serde_json::json;

use crate::{
    routes::{BodyKind, QueryParam, Shape, Spec, declare::endpoints, query::*},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// A podcast's episodes (shows): list, read, create, update, delete, copy.
    pub enum EpisodeEndpoint: Api, tag "episodes";

    /// list episodes
    ListEpisodes { feed_id: FeedId } = GET "/api/feed/{feed_id}/shows",
        Spec::token(Action::ReadEpisodes)
            .query(&[
                PAGE_NUMBER,
                PAGE_SIZE,
                QueryParam {
                    name: "sortBy",
                    schema: || json!({"type": "string", "enum": ["lastUpdate", "is_public"]}),
                    description: "sort key; default: publishing date",
                },
                QueryParam {
                    name: "sortDesc",
                    schema: || json!({"type": "string", "enum": ["desc", "asc", "true", "false"]}),
                    description: "desc or true: descending",
                },
                QueryParam {
                    name: "filter",
                    schema: || json!({"type": "string"}),
                    description: "searched in title and description (also accepted as a JSON body field)",
                },
            ])
            .answers(200, "the episodes", Shape::DataList(schema::<wire::episodes::EpisodeItem<'static>>()));

    /// create an episode; files sent in `media` (its audio) and `cover` become media items in the
    /// same commit as the episode
    CreateEpisode { feed_id: FeedId } = POST "/api/feed/{feed_id}/show",
        Spec::token(Action::EditEpisodes)
            .body(BodyKind::Multipart {
                schema: example::<wire::episodes::EpisodeCreate>(),
                file: Some("media"),
            })
            .makes(&["show_id"], "/data/id")
            .answers(201, "the episode; Location: the episode", Shape::Data(schema::<wire::episodes::EpisodeRecord<'static>>()))
            .errors(&[413]);

    /// get an episode
    GetEpisode { feed_id: FeedId, show_id: EpisodeId } = GET "/api/feed/{feed_id}/show/{show_id}",
        Spec::token(Action::ReadEpisodes)
            .query(&[QueryParam {
                name: "feed_id",
                schema: || json!({"type": "string"}),
                description: "ignored; the path names the feed",
            }])
            .answers(200, "the episode", Shape::Data(schema::<wire::episodes::EpisodeRecord<'static>>()));

    /// change an episode
    UpdateEpisode { feed_id: FeedId, show_id: EpisodeId } = PUT "/api/feed/{feed_id}/show/{show_id}",
        Spec::token(Action::EditEpisodes)
            .body(BodyKind::Json {
                schema: example::<wire::episodes::EpisodeFields>(),
                required: false,
            })
            .answers(200, "the episode", Shape::Data(schema::<wire::episodes::EpisodeRecord<'static>>()))
            .errors(&[409, 413]);

    /// delete an episode
    DeleteEpisode { feed_id: FeedId, show_id: EpisodeId } = DELETE "/api/feed/{feed_id}/show/{show_id}",
        Spec::token(Action::EditEpisodes)
            .answers(204, "deleted", Shape::Empty);

    /// copy an episode as a draft
    CopyEpisode { feed_id: FeedId, show_id: EpisodeId } = POST "/api/feed/{feed_id}/show/{show_id}/copy",
        Spec::token(Action::EditEpisodes)
            .query(&[QueryParam {
                name: "feed_id_to",
                schema: || json!({"type": "string"}),
                description: "the target feed; default: the same feed",
            }])
            .makes(&["show_id"], "/data/id")
            .answers(201, "the copy; Location: the copy", Shape::Data(schema::<wire::episodes::EpisodeRecord<'static>>()));
}
