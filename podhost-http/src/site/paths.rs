//! The site's paths (its table's rows), and the few of other tables its pages link to.

pub(crate) use crate::routes::{
    docs::paths::{ApiDocs as API_DOCS, Openapi as OPENAPI},
    oauth::paths::Authorize as AUTHORIZE,
    site::paths::{
        AcceptInvitation as INVITATION, Account as ACCOUNT, CampaignStatsPage as CAMPAIGN_STATS,
        CreateClient as CLIENTS, CreateToken as TOKENS, DeleteClient as CLIENT_DELETE,
        InviteMember as MEMBERS, PodcastStatsPage as PODCAST_STATS, RemoveMember as MEMBER_REMOVE,
        RevokeGrant as GRANT_REVOKE, RevokeToken as TOKEN_REVOKE, SignIn as SIGN_IN,
        SignOut as SIGN_OUT, StatsPage as STATS, SwitchAccount as SWITCH,
        UpdateMember as MEMBER_UPDATE,
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
