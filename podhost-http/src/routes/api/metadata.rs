//! A media file's metadata: its facts, tags, chapters, cover and ad breaks.

use podhost_core::{MediaId, Scope};

use crate::routes::{BodyKind, Shape, Spec, declare::endpoints};

endpoints! {
    /// A media file's metadata: its facts, tags, chapters, cover and ad breaks.
    pub enum MetadataEndpoint: Api, tag "metadata";

    /// a media file's metadata: facts, the tags read from the file, ad breaks
    GetMetadata { id: MediaId } = GET "/api/media/{id}/metadata",
        Spec::token(Scope::MediaReadOnly)
            .answers(200, "the metadata", Shape::Data("Metadata"));

    /// change a media file's metadata: ad breaks at once; tags, chapters and cover written into a
    /// new file (a new URL) by the job in `job`
    PutMetadata { id: MediaId } = PUT "/api/media/{id}/metadata",
        Spec::token(Scope::Media)
            .body(BodyKind::Json {
                schema: "MetadataUpdate",
                required: false,
                example: r#"{"title": "Pilot", "artist": "Me", "adbreak": {"preroll": true, "postroll": false, "midrolls": []}}"#,
            })
            .answers(200, "the metadata now, and the tag-writing job", Shape::Data("Metadata"))
            .errors(&[409, 413]);
}
