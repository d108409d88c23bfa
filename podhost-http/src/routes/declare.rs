//! `endpoints!`: one declaration makes a group's endpoint enum and its table, so a route is
//! one row. Each row is a variant (its doc comment is the summary, its fields the path
//! parameters), a method and template, and a [`Spec`](super::Spec):
//!
//! ```ignore
//! endpoints! {
//!     /// Media files.
//!     pub enum MediaEndpoint: Api, tag "media";
//!
//!     /// a file
//!     GetMedia { media_id: MediaId } = GET "/api/media/{media_id}",
//!         Spec::token(Action::ReadMedia)
//!             .answers(200, "the file", Shape::Bare(schema::<wire::media::MediaRecord>()));
//! }
//! ```
//!
//! The group's handler matches the enum without a catch-all, so a row without a handler, or a
//! handler of no row, does not compile; that the fields are the template's parameters is a
//! compile-time assertion.

/// Declares a group of endpoints; see the module's documentation.
macro_rules! endpoints {
    (
        $(#[doc = $group_doc:literal])*
        $vis:vis enum $name:ident: $surface:ident, tag $tag:literal;
        $(
            $(#[doc = $doc:literal])*
            $variant:ident { $($field:ident : $ty:ty),* $(,)? } = $method:ident $path:literal, $spec:expr;
        )*
    ) => {
        $(#[doc = $group_doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant { $(#[allow(missing_docs)] $field: $ty),* },
            )*
        }

        impl $name {
            /// The endpoint of the operation named `operation` from its path parameters (raw,
            /// decoded), in the template's order.
            pub fn build(
                operation: &str,
                args: &[String],
            ) -> Result<Self, $crate::routes::params::ParamError> {
                #[allow(unused_mut, unused_variables)]
                let mut args = args.iter();
                match operation {
                    $(stringify!($variant) => Ok($name::$variant {
                        $($field: <$ty as $crate::routes::params::PathValue>::parse(
                            $crate::routes::params::next(&mut args)?,
                        )?),*
                    }),)*
                    _ => Err($crate::routes::params::ParamError::NotFound),
                }
            }
        }

        /// The group's rows.
        $vis static TABLE: $crate::routes::Table = $crate::routes::Table {
            tag: $tag,
            description: concat!($($group_doc),*),
            surface: $crate::routes::Surface::$surface,
            rows: &[$(
                {
                    const SPEC: $crate::routes::Spec = $spec;
                    $crate::routes::Route {
                        operation: stringify!($variant),
                        summary: concat!($($doc),*),
                        method: http::Method::$method,
                        path: $path,
                        params: &[$($crate::routes::params::PathParam {
                            name: stringify!($field),
                            kind: <$ty as $crate::routes::params::PathValue>::KIND,
                        }),*],
                        surface: $crate::routes::Surface::$surface,
                        tag: $tag,
                        action: SPEC.action,
                        scope: match SPEC.action {
                            Some(action) => Some(action.scope()),
                            None => None,
                        },
                        query: SPEC.query,
                        body: SPEC.body,
                        addition: SPEC.addition,
                        success: SPEC.success,
                        errors: SPEC.errors,
                        makes: SPEC.makes,
                    }
                },
            )*],
        };

        /// The path template of each row, by its variant's name (the site's forms and links use
        /// these).
        #[allow(non_upper_case_globals, dead_code)]
        $vis mod paths {
            $(
                #[doc = concat!("`", $path, "`")]
                pub const $variant: &str = $path;
            )*
        }

        $(
            const _: () = assert!(
                $crate::routes::params::same($path, &[$(stringify!($field)),*]),
                "{}",
                concat!(stringify!($variant), "'s fields are not the parameters of ", $path),
            );
        )*
    };
}

pub(crate) use endpoints;
