//! Teams: what each role may do (a table of every role × capability), what a member restricted
//! to some podcasts sees, the owner rules, and the record of who did what.

use std::sync::Arc;

use object_store::ObjectStore;
use podhost_core::{
    Action, ActivityQuery, Clock, Error, FeedId, MediaId, MemberId, PodcastHost, Principal, Scopes,
    model::{
        EpisodePatch, FeedPatch, MemberPatch, NewCampaign, NewEpisode, NewFeed, NewMember,
        Position, Role,
    },
    stats::StatsQuery,
    webhooks::subscription::NewWebhook,
};

use super::assert_err;
use crate::{
    fixtures,
    setup::{account as owner, upload},
    test_host,
};

/// What an attempt came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// Done.
    Ok,
    /// 403: the scope or the role does not allow it.
    Forbidden,
    /// 404: not there, as far as the caller can tell.
    NotFound,
}

use Outcome::{Forbidden as F, NotFound as N, Ok as Y};

fn outcome<T>(result: Result<T, Error>) -> Outcome {
    match result {
        Ok(_) => Y,
        Err(Error::Forbidden { .. }) => F,
        Err(Error::NotFound { .. }) => N,
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

/// Something a member may try.
#[derive(Clone, Copy, Debug)]
enum Capability {
    ReadPodcast,
    CreatePodcast,
    UpdatePodcast,
    UploadMedia,
    CreateDraft,
    EditDraft,
    Publish,
    EditPublished,
    DeletePublished,
    ReadStats,
    CreateCampaign,
    ReadCampaigns,
    CreateWebhook,
    ListMembers,
    InviteEditor,
    InviteOwner,
    ReadActivity,
    CreateOwnToken,
}

/// What each role gets: owner, admin, editor, author, analyst.
const TABLE: &[(Capability, [Outcome; 5])] = {
    use Capability::*;
    &[
        (ReadPodcast, [Y, Y, Y, Y, Y]),
        (CreatePodcast, [Y, Y, Y, F, F]),
        (UpdatePodcast, [Y, Y, Y, F, F]),
        (UploadMedia, [Y, Y, Y, Y, F]),
        (CreateDraft, [Y, Y, Y, Y, F]),
        (EditDraft, [Y, Y, Y, Y, F]),
        (Publish, [Y, Y, Y, F, F]),
        (EditPublished, [Y, Y, Y, F, F]),
        (DeletePublished, [Y, Y, Y, F, F]),
        (ReadStats, [Y, Y, Y, F, Y]),
        (CreateCampaign, [Y, Y, Y, F, F]),
        (ReadCampaigns, [Y, Y, Y, F, Y]),
        (CreateWebhook, [Y, Y, Y, F, F]),
        (ListMembers, [Y, Y, F, F, F]),
        (InviteEditor, [Y, Y, F, F, F]),
        (InviteOwner, [Y, F, F, F, F]),
        (ReadActivity, [Y, Y, F, F, F]),
        (CreateOwnToken, [Y, Y, Y, Y, Y]),
    ]
};

/// The action of the core's authorization table each capability is: the table must say what
/// this conformance table says, role by role.
fn action(capability: Capability) -> Action {
    use Capability::*;
    match capability {
        ReadPodcast => Action::ReadPodcasts,
        CreatePodcast | UpdatePodcast => Action::EditPodcasts,
        UploadMedia => Action::EditMedia,
        CreateDraft | EditDraft => Action::EditEpisodes,
        Publish | EditPublished | DeletePublished => Action::PublishEpisodes,
        ReadStats => Action::ReadStatistics,
        CreateCampaign => Action::ManageAds,
        ReadCampaigns => Action::ReadAds,
        CreateWebhook => Action::ManageWebhooks,
        ListMembers | ReadActivity => Action::ReadMembers,
        InviteEditor => Action::ManageMembers,
        InviteOwner => Action::ManageOwners,
        CreateOwnToken => Action::ManageTokens,
    }
}

/// The account's things a capability is tried on.
struct Fixture {
    show: FeedId,
    audio: MediaId,
}

/// Makes a published episode of the show (as the owner), for a capability that needs a fresh one.
async fn published(
    host: &PodcastHost,
    owner: &Principal,
    show: &FeedId,
) -> podhost_core::EpisodeId {
    let mut new = NewEpisode::titled("Out now");
    new.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(owner, show, new)
        .await
        .unwrap()
        .episode
        .id
}

async fn draft(host: &PodcastHost, owner: &Principal, show: &FeedId) -> podhost_core::EpisodeId {
    host.podcasts()
        .create_episode(owner, show, NewEpisode::titled("Draft"))
        .await
        .unwrap()
        .episode
        .id
}

async fn attempt(
    host: &PodcastHost,
    owner: &Principal,
    who: &Principal,
    fixture: &Fixture,
    capability: Capability,
    n: usize,
) -> Outcome {
    use Capability::*;
    let show = &fixture.show;
    match capability {
        ReadPodcast => outcome(host.podcasts().get_feed(who, show).await),
        CreatePodcast => outcome(
            host.podcasts()
                .create_feed(who, NewFeed::titled(format!("new-{n}"), "New"))
                .await,
        ),
        UpdatePodcast => {
            let patch = FeedPatch {
                title: Some(format!("Show {n}")),
                ..Default::default()
            };
            outcome(host.podcasts().update_feed(who, show, &patch).await)
        }
        UploadMedia => outcome(
            host.podcasts()
                .upload_media(
                    who,
                    podhost_core::model::NewMedia {
                        name: format!("take-{n}.wav"),
                        category: None,
                    },
                    crate::body(fixtures::wav(0.5, 8000), 64 << 10),
                )
                .await,
        ),
        CreateDraft => outcome(
            host.podcasts()
                .create_episode(who, show, NewEpisode::titled("Mine"))
                .await,
        ),
        EditDraft => {
            let id = draft(host, owner, show).await;
            let patch = EpisodePatch {
                description: Some("Notes".into()),
                ..Default::default()
            };
            outcome(host.podcasts().update_episode(who, show, id, &patch).await)
        }
        Publish => {
            let id = draft(host, owner, show).await;
            let patch = EpisodePatch {
                is_public: Some(true),
                ..Default::default()
            };
            outcome(host.podcasts().update_episode(who, show, id, &patch).await)
        }
        EditPublished => {
            let id = published(host, owner, show).await;
            let patch = EpisodePatch {
                title: Some("Renamed".into()),
                ..Default::default()
            };
            outcome(host.podcasts().update_episode(who, show, id, &patch).await)
        }
        DeletePublished => {
            let id = published(host, owner, show).await;
            outcome(host.podcasts().delete_episode(who, show, id).await)
        }
        ReadStats => outcome(
            host.analytics()
                .download_stats(who, &StatsQuery::default())
                .await,
        ),
        CreateCampaign => outcome(
            host.ads()
                .create_campaign(
                    who,
                    NewCampaign {
                        name: format!("Sponsor {n}"),
                        media: Some(fixture.audio),
                        positions: vec![Position::Preroll],
                        feeds: vec![show.clone()],
                        starts: None,
                        ends: None,
                        impressions_goal: None,
                    },
                )
                .await,
        ),
        ReadCampaigns => outcome(host.ads().list_campaigns(who).await),
        CreateWebhook => outcome(
            host.work()
                .create_webhook(
                    who,
                    NewWebhook {
                        url: format!("https://hooks.example.com/{n}"),
                        events: vec!["episode.published".into()],
                        description: None,
                        secret: None,
                    },
                )
                .await,
        ),
        ListMembers => outcome(host.access().list_members(who).await),
        InviteEditor => outcome(
            host.access()
                .invite_member(who, new_member(&format!("ed{n}"), Role::Editor))
                .await,
        ),
        InviteOwner => outcome(
            host.access()
                .invite_member(who, new_member(&format!("own{n}"), Role::Owner))
                .await,
        ),
        ReadActivity => outcome(host.access().activity(who, &ActivityQuery::default()).await),
        CreateOwnToken => outcome(
            host.access()
                .create_token(who, "mine", Scopes::parse_list("tokens").unwrap())
                .await,
        ),
    }
}

fn new_member(login: &str, role: Role) -> NewMember {
    NewMember {
        login: login.into(),
        name: String::new(),
        role,
        feeds: None,
    }
}

/// Invites `login` with `role` (and podcasts), accepts the invitation with a password, and
/// returns the member acting through the site's session.
pub async fn join(
    host: &PodcastHost,
    owner: &Principal,
    login: &str,
    role: Role,
    feeds: Option<Vec<FeedId>>,
) -> (Principal, MemberId) {
    let invited = host
        .access()
        .invite_member(
            owner,
            NewMember {
                login: login.into(),
                name: format!("{login} (name)"),
                role,
                feeds,
            },
        )
        .await
        .expect("invited");
    let secret = invited
        .invitation_url
        .rsplit('/')
        .next()
        .expect("a secret at the end of the URL");
    let signed_in = host
        .access()
        .accept_invitation(secret, "a long enough password", None, "192.0.2.1")
        .await
        .expect("accepted");
    let (who, _) = host
        .access()
        .session(&signed_in.cookie)
        .await
        .expect("a session");
    (who, invited.member.id)
}

/// Every role × capability, as the table says, and a member restricted to some podcasts.
pub async fn roles(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let acme = owner(&host, "acme").await;
    let show = host
        .podcasts()
        .create_feed(&acme, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let other = host
        .podcasts()
        .create_feed(&acme, NewFeed::titled("other", "Other"))
        .await
        .unwrap()
        .feed
        .id;
    let audio = upload(&host, &acme, "ad.wav", fixtures::wav(1.0, 8000))
        .await
        .id;
    let fixture = Fixture {
        show: show.clone(),
        audio,
    };
    let mut members = Vec::new();
    for role in Role::ALL {
        let (who, _) = join(&host, &acme, &format!("the-{role}"), role, None).await;
        assert_eq!(who.role(), role);
        members.push(who);
    }
    let mut wrong = Vec::new();
    for (i, (capability, expected)) in TABLE.iter().enumerate() {
        for (j, role) in Role::ALL.into_iter().enumerate() {
            let allowed = action(*capability).allowed_to(role);
            if allowed != (expected[j] == Y) {
                wrong.push(format!(
                    "{capability:?} as {role}: the authorization table says {allowed}, \
                     expected {:?}",
                    expected[j]
                ));
            }
        }
        for (j, who) in members.iter().enumerate() {
            let got = attempt(&host, &acme, who, &fixture, *capability, i * 10 + j).await;
            if got != expected[j] {
                wrong.push(format!(
                    "{capability:?} as {}: {got:?}, expected {:?}",
                    who.role(),
                    expected[j]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "role table:\n{}", wrong.join("\n"));

    // An author is told what the role lacks.
    let author = &members[3];
    let id = draft(&host, &acme, &show).await;
    let refused = host
        .podcasts()
        .update_episode(
            author,
            &show,
            id,
            &EpisodePatch {
                is_public: Some(true),
                ..Default::default()
            },
        )
        .await;
    match refused {
        Err(Error::Forbidden { message }) => assert!(message.contains("author"), "{message}"),
        other => panic!("expected a 403, got {other:?}"),
    }

    // A member restricted to one podcast sees the other as absent.
    let (narrow, _) = join(
        &host,
        &acme,
        "narrow",
        Role::Editor,
        Some(vec![show.clone()]),
    )
    .await;
    assert_eq!(outcome(host.podcasts().get_feed(&narrow, &show).await), Y);
    assert_eq!(outcome(host.podcasts().get_feed(&narrow, &other).await), N);
    assert_eq!(
        outcome(
            host.podcasts()
                .create_episode(&narrow, &other, NewEpisode::titled("x"))
                .await
        ),
        N
    );
    assert_eq!(
        outcome(
            host.analytics()
                .download_stats(
                    &narrow,
                    &StatsQuery {
                        feed: Some(other.clone()),
                        ..Default::default()
                    }
                )
                .await
        ),
        N
    );
    let listed: Vec<FeedId> = host
        .podcasts()
        .list_feeds(&narrow, Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|f| f.feed.id)
        .collect();
    assert_eq!(listed, [show]);
}

/// An account keeps an owner; admins do not touch owners; a removed member's tokens stop;
/// a token of a member never allows more than the member's role, as it is now.
pub async fn owners_and_tokens(store: Arc<dyn ObjectStore>) {
    let (host, _) = test_host(store);
    let acme = owner(&host, "acme").await;
    let founder = host.access().list_members(&acme).await.unwrap();
    assert_eq!(founder.len(), 1, "an account begins with its founder");
    let founder = founder[0].member.id.clone();
    assert_err!(
        host.access().remove_member(&acme, &founder).await,
        Error::Conflict { .. }
    );
    assert_err!(
        host.access()
            .update_member(
                &acme,
                &founder,
                &MemberPatch {
                    role: Some(Role::Editor),
                    ..Default::default()
                }
            )
            .await,
        Error::Conflict { .. }
    );
    let (admin, _) = join(&host, &acme, "admin", Role::Admin, None).await;
    assert_err!(
        host.access().remove_member(&admin, &founder).await,
        Error::Forbidden { .. }
    );

    // A token of an editor, then the editor made an analyst: the token reads, writes nothing.
    let (editor, editor_id) = join(&host, &acme, "ed", Role::Editor, None).await;
    let token = host
        .access()
        .create_token(&editor, "ci", Scopes::parse_list("feeds,stats").unwrap())
        .await
        .unwrap();
    let by_token = host.access().authenticate(&token.secret).await.unwrap();
    assert_eq!(
        outcome(
            host.podcasts()
                .create_feed(&by_token, NewFeed::titled("ed-show", "Ed"))
                .await
        ),
        Y
    );
    host.access()
        .update_member(
            &admin,
            &editor_id,
            &MemberPatch {
                role: Some(Role::Analyst),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let by_token = host.access().authenticate(&token.secret).await.unwrap();
    assert_eq!(
        outcome(
            host.podcasts()
                .create_feed(&by_token, NewFeed::titled("ed-two", "Ed"))
                .await
        ),
        F
    );
    assert_eq!(
        outcome(
            host.analytics()
                .download_stats(&by_token, &StatsQuery::default())
                .await
        ),
        Y
    );

    // Invited again (a lost link): the same member, and only the new link works.
    let first = host
        .access()
        .invite_member(&admin, new_member("late", Role::Author))
        .await
        .unwrap();
    let second = host
        .access()
        .invite_member(&admin, new_member("late", Role::Editor))
        .await
        .unwrap();
    assert_eq!(first.member.id, second.member.id);
    let secret = |url: &str| url.rsplit('/').next().unwrap().to_string();
    assert_err!(
        host.access()
            .invitation(&secret(&first.invitation_url))
            .await,
        Error::NotFound { .. }
    );
    let joined = host
        .access()
        .accept_invitation(
            &secret(&second.invitation_url),
            "a long enough password",
            None,
            "192.0.2.9",
        )
        .await
        .unwrap();
    let (late, _) = host.access().session(&joined.cookie).await.unwrap();
    assert_eq!(late.role(), Role::Editor);
    assert_err!(
        host.access()
            .invite_member(&admin, new_member("late", Role::Editor))
            .await,
        Error::Conflict { .. }
    );

    // Removed: the token and the site's session stop at once.
    host.access()
        .remove_member(&admin, &editor_id)
        .await
        .unwrap();
    assert_err!(
        host.access().authenticate(&token.secret).await,
        Error::Unauthenticated
    );
    assert_err!(
        host.access().get_member(&admin, &editor_id).await,
        Error::NotFound { .. }
    );
}

/// Who did what: each change names its actor, newest first, narrowed by podcast and member.
pub async fn activity(store: Arc<dyn ObjectStore>) {
    let (host, clock) = test_host(store);
    let acme = owner(&host, "acme").await;
    let show = host
        .podcasts()
        .create_feed(&acme, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let (author, author_id) = join(&host, &acme, "writer@example.com", Role::Author, None).await;
    let draft = host
        .podcasts()
        .create_episode(&author, &show, NewEpisode::titled("Draft"))
        .await
        .unwrap()
        .episode
        .id;
    host.podcasts()
        .update_episode(
            &acme,
            &show,
            draft,
            &EpisodePatch {
                is_public: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let page = host
        .access()
        .activity(&acme, &ActivityQuery::default())
        .await
        .unwrap();
    let seen: Vec<(String, Option<String>, &str)> = page
        .items
        .iter()
        .map(|a| {
            (
                a.action.clone(),
                a.actor.login.as_ref().map(|l| l.to_string()),
                a.actor.via.as_str(),
            )
        })
        .collect();
    let expected: Vec<(String, Option<String>, &str)> = vec![
        ("episode.published".into(), None, "cli"),
        (
            "episode.created".into(),
            Some("writer@example.com".into()),
            "site",
        ),
        (
            "member.joined".into(),
            Some("writer@example.com".into()),
            "site",
        ),
        ("member.invited".into(), None, "cli"),
        ("podcast.created".into(), None, "cli"),
    ];
    assert_eq!(seen, expected);
    let by_author = host
        .access()
        .activity(
            &acme,
            &ActivityQuery {
                member: Some(author_id),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(by_author.total, 2);
    let of_show = host
        .access()
        .activity(
            &acme,
            &ActivityQuery {
                feed: Some(show.clone()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(of_show.total, 3);

    // A scheduled episode comes out: podhost published it.
    let mut new = NewEpisode::titled("Tomorrow");
    new.fields.is_public = Some(true);
    new.fields.publish_at = Some(clock.now() + jiff::SignedDuration::from_hours(1));
    let scheduled = host
        .podcasts()
        .create_episode(&acme, &show, new)
        .await
        .unwrap()
        .episode
        .id;
    clock.advance(jiff::SignedDuration::from_hours(2));
    host.work()
        .process_webhooks(
            &acme,
            &super::background::Recorder::default(),
            &super::background::DebugRenderer,
        )
        .await
        .unwrap();
    let newest = host
        .access()
        .activity(&acme, &ActivityQuery::default())
        .await
        .unwrap();
    let newest = &newest.items[0];
    assert_eq!(newest.action, "episode.published");
    assert_eq!(newest.actor.via.as_str(), "podhost");
    assert_eq!(newest.object.id, scheduled.to_string());
    assert_eq!(newest.at, clock.now());
}
