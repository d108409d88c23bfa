//! The REST API's groups: each a table of rows and an enum of endpoints, answered by a handler
//! of the same name in `handlers/`.

pub mod campaigns;
pub mod episodes;
pub mod fediverse;
pub mod feeds;
pub mod media;
pub mod members;
pub mod metadata;
pub mod processing;
pub mod stats;
pub mod subscribers;
pub mod tokens;
pub mod webhooks;

/// Declares the groups once: the enum of their endpoints and the list of their tables.
macro_rules! groups {
    ($($(#[doc = $doc:literal])* $group:ident($module:ident::$endpoint:ident),)*) => {
        /// An endpoint of the REST API (a token is needed), by group.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum ApiEndpoint {
            $($(#[doc = $doc])* $group($module::$endpoint),)*
        }

        /// The groups' tables.
        pub static TABLES: &[&crate::routes::Table] = &[$(&$module::TABLE),*];

        impl ApiEndpoint {
            /// The endpoint of row `operation` of table `table` (an index of [`TABLES`]).
            pub fn build(
                table: usize,
                operation: &str,
                args: &[String],
            ) -> Result<Self, crate::routes::ParamError> {
                let mut index = 0;
                $(
                    if table == index {
                        return $module::$endpoint::build(operation, args).map(ApiEndpoint::$group);
                    }
                    index += 1;
                )*
                let _ = index;
                Err(crate::routes::ParamError::NotFound)
            }
        }

        $(
            impl From<$module::$endpoint> for ApiEndpoint {
                fn from(endpoint: $module::$endpoint) -> Self {
                    ApiEndpoint::$group(endpoint)
                }
            }
        )*
    };
}

groups! {
    /// Media files.
    Media(media::MediaEndpoint),
    /// A media file's metadata.
    Metadata(metadata::MetadataEndpoint),
    /// Waveforms, silences, jobs.
    Processing(processing::ProcessingEndpoint),
    /// Podcasts.
    Feeds(feeds::FeedEndpoint),
    /// Episodes.
    Episodes(episodes::EpisodeEndpoint),
    /// A private podcast's subscribers.
    Subscribers(subscribers::SubscriberEndpoint),
    /// Webhooks.
    Webhooks(webhooks::WebhookEndpoint),
    /// Statistics.
    Stats(stats::StatsEndpoint),
    /// Personal tokens.
    Tokens(tokens::TokenEndpoint),
    /// Ad campaigns.
    Campaigns(campaigns::CampaignEndpoint),
    /// Members and who did what.
    Members(members::MemberEndpoint),
    /// Followers, comments and blocks on the fediverse.
    Fediverse(fediverse::FediverseApiEndpoint),
}
