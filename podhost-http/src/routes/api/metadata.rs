//! A media file's metadata: its facts, tags, chapters, cover and ad breaks.

use podhost_core::{Action, MediaId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// A media file's metadata: its facts, tags, chapters, cover and ad breaks.
    pub enum MetadataEndpoint: Api, tag "metadata";

    /// a media file's metadata: facts, the tags read from the file, ad breaks
    GetMetadata { id: MediaId } = GET "/api/media/{id}/metadata",
        Spec::token(Action::ReadMedia)
            .answers(200, "the metadata", Shape::Data(schema::<wire::metadata::MetadataRecord>()));

    /// change a media file's metadata: ad breaks at once; tags, chapters and cover written into a
    /// new file (a new URL) by the job in `job`
    PutMetadata { id: MediaId } = PUT "/api/media/{id}/metadata",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Json {
                schema: example::<wire::metadata::MetadataUpdate>(),
                required: false,
            })
            .answers(200, "the metadata now, and the tag-writing job", Shape::Data(schema::<wire::metadata::MetadataRecord>()))
            .errors(&[409, 413]);
}
