//! Media files: upload, list, read, rename, copy, delete.

use podhost_core::{MediaId, Scope};
use serde_json::json;

use crate::routes::{BodyKind, QueryParam, Shape, Spec, declare::endpoints, query::*};

endpoints! {
    /// Media files: upload, list, read, rename, copy, delete.
    pub enum MediaEndpoint: Api, tag "media";

    /// list files
    ListMedia {} = GET "/api/media",
        Spec::token(Scope::MediaReadOnly)
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
            .answers(200, "the files", Shape::Bare("MediaList"));

    /// upload a file
    UploadMedia {} = POST "/api/media",
        Spec::token(Scope::Media)
            .body(BodyKind::Multipart {
                schema: "MediaUpload",
                file: Some("media"),
                example: &[],
            })
            .answers(201, "the stored file; Location: the file", Shape::Bare("MediaRecord"))
            .errors(&[413]);

    /// get a file
    GetMedia { media_id: MediaId } = GET "/api/media/{media_id}",
        Spec::token(Scope::MediaReadOnly)
            .answers(200, "the file", Shape::Bare("MediaRecord"));

    /// rename a file (its download URL keeps its name) or move it to another category
    UpdateMedia { media_id: MediaId } = PUT "/api/media/{media_id}",
        Spec::token(Scope::Media)
            .addition()
            .body(BodyKind::Json {
                schema: "MediaUpdate",
                required: false,
                example: r#"{"name": "interview-final.wav", "category": "archive"}"#,
            })
            .answers(200, "the file", Shape::Bare("MediaRecord"))
            .errors(&[413]);

    /// delete a file
    DeleteMedia { media_id: MediaId } = DELETE "/api/media/{media_id}",
        Spec::token(Scope::Media)
            .answers(204, "deleted", Shape::Empty)
            .errors(&[409]);

    /// copy a file
    CopyMedia { media_id: MediaId } = POST "/api/media/{media_id}/copy",
        Spec::token(Scope::Media)
            .body(BodyKind::Json {
                schema: "MediaCopy",
                required: true,
                example: r#"{"label": "interview.wav", "category": "archive"}"#,
            })
            .answers(201, "the copy; Location: the copy", Shape::Bare("MediaRecord"))
            .errors(&[413]);
}
