//! The site for browsers: the home page, the key-management site, the consent form.

use podhost_core::{CampaignId, EpisodeId, FeedId, MemberId, TokenId};

use crate::routes::{
    BodyKind, Shape, Spec,
    declare::endpoints,
    query::{FROM, TO},
};

endpoints! {
    /// The site for browsers: the home page, the key-management site, the consent form.
    pub enum SiteEndpoint: Site, tag "site";

    /// the home page: what this server is, where to go
    Home {} = GET "/",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// the key-management site: tokens, OAuth clients, grants (the sign-in form when signed out)
    Account {} = GET "/account",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// statistics of the podcasts the member sees: downloads per day, podcasts, apps, platforms, countries and hours as charts with their tables
    StatsPage {} = GET "/account/stats",
        Spec::open()
            .query(&[FROM, TO])
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// statistics of one podcast: also its episodes, and its newest episodes' first 7 and 30 days against the median
    PodcastStatsPage { feed_id: FeedId } = GET "/account/stats/podcasts/{feed_id}",
        Spec::open()
            .query(&[FROM, TO])
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// a campaign's impressions per day and per episode
    CampaignStatsPage { campaign_id: CampaignId } = GET "/account/stats/campaigns/{campaign_id}",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// sign in with an account's name and password
    SignIn {} = POST "/account/sign-in",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// sign out
    SignOut {} = POST "/account/sign-out",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// create a personal token (shown once)
    CreateToken {} = POST "/account/tokens",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// revoke a personal token
    RevokeToken { token_id: TokenId } = POST "/account/tokens/{token_id}/revoke",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// register an OAuth client (a confidential one's secret shown once)
    CreateClient {} = POST "/account/clients",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// delete an OAuth client
    DeleteClient { client_id: String } = POST "/account/clients/{client_id}/delete",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// revoke what the account allowed a client
    RevokeGrant { grant_id: String } = POST "/account/grants/{grant_id}/revoke",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// an invitation to an account: set a password (or sign in) and join
    Invitation { secret: String } = GET "/account/invitations/{secret}",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// accept an invitation: the person's password (new, or theirs), then a session in the account
    AcceptInvitation { secret: String } = POST "/account/invitations/{secret}",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// invite a member (the invitation's URL shown once)
    InviteMember {} = POST "/account/members",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// change a member's role
    UpdateMember { member_id: MemberId } = POST "/account/members/{member_id}",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// remove a member
    RemoveMember { member_id: MemberId } = POST "/account/members/{member_id}/remove",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// the fediverse: the podcasts with their followers, the actors and instances the account blocks
    FediversePage {} = GET "/account/fediverse",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// a podcast on the fediverse: its followers, its episodes' comments with Hide and Show
    PodcastFediversePage { feed_id: FeedId } = GET "/account/fediverse/podcasts/{feed_id}",
        Spec::open()
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// hide a comment from the episode's page
    HideComment { feed_id: FeedId, episode_id: EpisodeId, comment_id: String } = POST "/account/fediverse/podcasts/{feed_id}/episodes/{episode_id}/comments/{comment_id}/hide",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// show a hidden comment on the episode's page again
    ShowComment { feed_id: FeedId, episode_id: EpisodeId, comment_id: String } = POST "/account/fediverse/podcasts/{feed_id}/episodes/{episode_id}/comments/{comment_id}/show",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// block an actor (its URL) or an instance (its host name) for every podcast of the account
    CreateBlock {} = POST "/account/fediverse/blocks",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// lift a block
    LiftBlock { block_id: String } = POST "/account/fediverse/blocks/{block_id}/lift",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 409, 422, 429]);

    /// switch to another account the person is a member of
    SwitchAccount {} = POST "/account/switch",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);

    /// the answer on the consent page: a redirect to the client with a code, or with access_denied
    Consent {} = POST "/oauth/authorize",
        Spec::open()
            .body(BodyKind::Form { schema: None })
            .answers(200, "a page, or 303 to one", Shape::Document("text/html"))
            .errors(&[303, 400, 401, 403, 404, 422, 429]);
}
