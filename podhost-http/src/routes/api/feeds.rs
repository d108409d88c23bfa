//! Podcasts (feeds): create, import, list, read, update, delete.

use podhost_core::{Action, FeedId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints, query::*},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// Podcasts (feeds): create, import, list, read, update, delete.
    pub enum FeedEndpoint: Api, tag "feeds";

    /// list podcasts
    ListFeeds {} = GET "/api/feeds",
        Spec::token(Action::ReadPodcasts)
            .query(&[PAGE_NUMBER, PAGE_SIZE])
            .answers(200, "the podcasts", Shape::DataList(schema::<wire::feeds::FeedListItem>()));

    /// create a podcast
    CreateFeed {} = POST "/api/feeds",
        Spec::token(Action::EditPodcasts)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::feeds::FeedCreate>(),
                required: true,
            })
            .makes(&["feed_id"], "/data/id")
            .answers(201, "the podcast; Location: the podcast", Shape::Data(schema::<wire::feeds::FeedRecord>()))
            .errors(&[409, 413]);

    /// import a podcast from its RSS feed on another host, with its episodes and files (a
    /// background job; running it again completes it and duplicates nothing)
    ImportFeed {} = POST "/api/feeds/import",
        Spec::token(Action::EditPodcasts)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::feeds::FeedImport>(),
                required: true,
            })
            .makes(&["job_id"], "/data/id")
            .answers(202, "the job, queued (or the one already queued or running for this feed); Location: the job; its result is the import's report", Shape::Data(schema::<wire::jobs::JobRecord>()))
            .errors(&[413]);

    /// get a podcast
    GetFeed { feed_id: FeedId } = GET "/api/feeds/{feed_id}",
        Spec::token(Action::ReadPodcasts)
            .answers(200, "the podcast", Shape::Data(schema::<wire::feeds::FeedRecord>()));

    /// change a podcast
    UpdateFeed { feed_id: FeedId } = PUT "/api/feeds/{feed_id}",
        Spec::token(Action::EditPodcasts)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::feeds::FeedFields>(),
                required: false,
            })
            .answers(200, "the podcast", Shape::Data(schema::<wire::feeds::FeedRecord>()))
            .errors(&[413]);

    /// delete a podcast and its episodes
    DeleteFeed { feed_id: FeedId } = DELETE "/api/feeds/{feed_id}",
        Spec::token(Action::EditPodcasts)
            .answers(204, "deleted", Shape::Empty);
}
