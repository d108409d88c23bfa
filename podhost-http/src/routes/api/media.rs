//! Media files: upload, list, read, rename, copy, delete.

use podhost_core::{Action, MediaId};
use serde_json::json;

use crate::{
    routes::{BodyKind, QueryParam, Shape, Spec, declare::endpoints, query::*},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// Media files: upload, list, read, rename, copy, delete.
    pub enum MediaEndpoint: Api, tag "media";

    /// list files
    ListMedia {} = GET "/api/media",
        Spec::token(Action::ReadMedia)
            .query(&[
                QueryParam {
                    name: "sort_by",
                    schema: || json!({"type": "string", "enum": ["name", "size", "created"], "default": "name"}),
                    description: "sort key",
                },
                QueryParam {
                    name: "sort_dir",
                    schema: || json!({"type": "string", "enum": ["asc", "desc"], "default": "desc"}),
                    description: "sort direction",
                },
                QueryParam {
                    name: "filter",
                    schema: || json!({"type": "string"}),
                    description: "case-insensitive substring of the file name",
                },
                QueryParam {
                    name: "strict",
                    schema: || json!({"type": "integer", "enum": [0, 1], "default": 0}),
                    description: "1: filter is an exact name",
                },
                PAGE_NUMBER,
                PAGE_SIZE,
            ])
            .answers(200, "the files", Shape::Bare(schema::<wire::media::MediaList>()));

    /// upload a file
    UploadMedia {} = POST "/api/media",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Multipart {
                schema: schema::<wire::media::MediaUpload>(),
                file: Some("media"),
            })
            .makes(&["media_id", "id"], "/id")
            .answers(201, "the stored file; Location: the file", Shape::Bare(schema::<wire::media::MediaRecord>()))
            .errors(&[413]);

    /// get a file
    GetMedia { media_id: MediaId } = GET "/api/media/{media_id}",
        Spec::token(Action::ReadMedia)
            .answers(200, "the file", Shape::Bare(schema::<wire::media::MediaRecord>()));

    /// rename a file (its download URL keeps its name) or move it to another category
    UpdateMedia { media_id: MediaId } = PUT "/api/media/{media_id}",
        Spec::token(Action::EditMedia)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::media::MediaUpdate>(),
                required: false,
            })
            .answers(200, "the file", Shape::Bare(schema::<wire::media::MediaRecord>()))
            .errors(&[413]);

    /// delete a file
    DeleteMedia { media_id: MediaId } = DELETE "/api/media/{media_id}",
        Spec::token(Action::EditMedia)
            .answers(204, "deleted", Shape::Empty)
            .errors(&[409]);

    /// copy a file
    CopyMedia { media_id: MediaId } = POST "/api/media/{media_id}/copy",
        Spec::token(Action::EditMedia)
            .body(BodyKind::Json {
                schema: example::<wire::media::MediaCopy>(),
                required: true,
            })
            .makes(&["media_id", "id"], "/id")
            .answers(201, "the copy; Location: the copy", Shape::Bare(schema::<wire::media::MediaRecord>()))
            .errors(&[413]);
}
