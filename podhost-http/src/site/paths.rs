//! The site's paths (its table's rows), and the few of other tables its pages link to.

pub(crate) use crate::routes::{
    docs::paths::{ApiDocs as API_DOCS, Openapi as OPENAPI},
    oauth::paths::Authorize as AUTHORIZE,
    site::paths::{
        AcceptInvitation as INVITATION, Account as ACCOUNT, CampaignStatsPage as CAMPAIGN_STATS,
        CreateBlock as BLOCKS, CreateClient as CLIENTS, CreateToken as TOKENS,
        DeleteClient as CLIENT_DELETE, FediversePage as FEDIVERSE, HideComment as COMMENT_HIDE,
        InviteMember as MEMBERS, LiftBlock as BLOCK_LIFT,
        PodcastFediversePage as PODCAST_FEDIVERSE, PodcastStatsPage as PODCAST_STATS,
        RemoveMember as MEMBER_REMOVE, RevokeGrant as GRANT_REVOKE, RevokeToken as TOKEN_REVOKE,
        ShowComment as COMMENT_SHOW, SignIn as SIGN_IN, SignOut as SIGN_OUT, StatsPage as STATS,
        SwitchAccount as SWITCH, UpdateMember as MEMBER_UPDATE,
    },
};

pub(crate) fn invitation(secret: &str) -> String {
    fill(INVITATION, secret)
}

pub(crate) fn member_update(id: &str) -> String {
    fill(MEMBER_UPDATE, id)
}

pub(crate) fn member_remove(id: &str) -> String {
    fill(MEMBER_REMOVE, id)
}

fn fill(template: &str, value: &str) -> String {
    let start = template.find('{').unwrap_or(template.len());
    let end = template.find('}').map_or(template.len(), |e| e + 1);
    format!("{}{}{}", &template[..start], value, &template[end..])
}

pub(crate) fn podcast_stats(id: &str) -> String {
    fill(PODCAST_STATS, id)
}

pub(crate) fn campaign_stats(id: &str) -> String {
    fill(CAMPAIGN_STATS, id)
}

pub(crate) fn token_revoke(id: &str) -> String {
    fill(TOKEN_REVOKE, id)
}

pub(crate) fn client_delete(id: &str) -> String {
    fill(CLIENT_DELETE, id)
}

pub(crate) fn grant_revoke(id: &str) -> String {
    fill(GRANT_REVOKE, id)
}

/// Kept as they are in a path segment: RFC 3986's unreserved characters.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `template` with its parameters, in order, replaced by `values`, each encoded as a path
/// segment (a feed id may hold any character but `/`).
fn fill_segments(template: &str, values: &[&str]) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    for value in values {
        let (Some(start), Some(end)) = (rest.find('{'), rest.find('}')) else {
            break;
        };
        filled.push_str(&rest[..start]);
        filled.extend(percent_encoding::utf8_percent_encode(value, SEGMENT));
        rest = &rest[end + 1..];
    }
    filled.push_str(rest);
    filled
}

pub(crate) fn podcast_fediverse(feed: &str) -> String {
    fill_segments(PODCAST_FEDIVERSE, &[feed])
}

pub(crate) fn comment_hide(feed: &str, episode: podhost_core::EpisodeId, comment: &str) -> String {
    fill_segments(COMMENT_HIDE, &[feed, &episode.to_string(), comment])
}

pub(crate) fn comment_show(feed: &str, episode: podhost_core::EpisodeId, comment: &str) -> String {
    fill_segments(COMMENT_SHOW, &[feed, &episode.to_string(), comment])
}

pub(crate) fn block_lift(id: &str) -> String {
    fill_segments(BLOCK_LIFT, &[id])
}
