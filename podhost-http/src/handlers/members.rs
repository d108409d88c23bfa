//! Members and who did what: `GET`/`POST /api/members`, `GET`/`PUT`/`DELETE
//! /api/members/{member_id}`, `GET /api/activity`.

use http::StatusCode;
use podhost_core::{
    ActivityQuery, FeedId, FieldErrors, MemberId,
    model::{MemberPatch, NewMember},
};

use super::answers::{Answer, data, no_store, page};
use crate::{
    context::{Api, Call, RequestBody},
    response,
    routes::api::members::MemberEndpoint,
    wire::{self, members},
};

/// The group's endpoints, each to its handler.
pub(super) async fn handle<B: RequestBody>(
    api: &Api,
    endpoint: MemberEndpoint,
    call: Call<B>,
) -> Answer {
    use MemberEndpoint as E;
    match endpoint {
        E::ListMembers {} => list(api, call).await,
        E::InviteMember {} => invite(api, call).await,
        E::GetMember { member_id } => get(api, call, &member_id).await,
        E::UpdateMember { member_id } => update(api, call, &member_id).await,
        E::RemoveMember { member_id } => remove(api, call, &member_id).await,
        E::ListActivity {} => activity(api, call).await,
    }
}

/// The podcasts of a request, each a valid podcast id.
fn feed_ids(feeds: Vec<String>) -> Result<Vec<FeedId>, podhost_core::Error> {
    feeds
        .iter()
        .map(|f| {
            FeedId::new(f).map_err(|_| {
                podhost_core::Error::invalid("feeds", format!("\"{f}\" is not a podcast id"))
            })
        })
        .collect()
}

/// `GET /api/members`
async fn list<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let listed = api.host.access().list_members(&call.who).await?;
    let items: Vec<_> = listed
        .iter()
        .map(|m| members::member(&m.member, m.last_seen))
        .collect();
    data(StatusCode::OK, items)
}

/// `POST /api/members`: `{login, name?, role, feeds?}`; the invitation's URL is in the answer
/// and nowhere else.
async fn invite<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let (who, new) = call
        .read::<members::NewMember>(api.config.max_json_bytes)
        .await?;
    let role = new.role.0;
    let feeds = new.feeds.map(feed_ids).transpose()?;
    let invited = api
        .host
        .access()
        .invite_member(
            &who,
            NewMember {
                login: new.login,
                name: new.name.unwrap_or_default(),
                role,
                feeds,
            },
        )
        .await?;
    Ok(no_store(response::json(
        StatusCode::CREATED,
        &wire::Data {
            data: members::invited(&invited),
        },
    )))
}

/// `GET /api/members/{member_id}`
async fn get<B: RequestBody>(api: &Api, call: Call<B>, id: &MemberId) -> Answer {
    let member = api.host.access().get_member(&call.who, id).await?;
    let seen = api.host.access().member_last_seen(&call.who, id).await?;
    data(StatusCode::OK, members::member(&member, seen))
}

/// `PUT /api/members/{member_id}`: `{name?, role?, feeds?}`.
async fn update<B: RequestBody>(api: &Api, call: Call<B>, id: &MemberId) -> Answer {
    let (who, change) = call
        .read::<members::MemberUpdate>(api.config.max_json_bytes)
        .await?;
    let patch = MemberPatch {
        name: change.name,
        role: change.role.map(|r| r.0),
        feeds: match change.feeds.patch() {
            None => None,
            Some(None) => Some(None),
            Some(Some(feeds)) => Some(Some(feed_ids(feeds)?)),
        },
    };
    let member = api.host.access().update_member(&who, id, &patch).await?;
    let seen = api.host.access().member_last_seen(&who, id).await?;
    data(StatusCode::OK, members::member(&member, seen))
}

/// `DELETE /api/members/{member_id}`
async fn remove<B: RequestBody>(api: &Api, call: Call<B>, id: &MemberId) -> Answer {
    api.host.access().remove_member(&call.who, id).await?;
    Ok(response::no_content())
}

/// `GET /api/activity?feed_id=&from=&to=&member_id=`
async fn activity<B: RequestBody>(api: &Api, call: Call<B>) -> Answer {
    let mut errors = FieldErrors::default();
    let mut moment = |name: &str| {
        let value = call.param(name)?;
        match value.trim().parse::<jiff::Timestamp>() {
            Ok(at) => Some(at),
            Err(_) => {
                errors.add(name, "must be a moment as RFC 3339 (2026-11-27T09:00:00Z)");
                None
            }
        }
    };
    let (from, to) = (moment("from"), moment("to"));
    let feed = match call.param("feed_id") {
        Some(f) => match FeedId::new(f) {
            Ok(id) => Some(id),
            Err(_) => {
                errors.add("feed_id", "not a podcast id");
                None
            }
        },
        None => None,
    };
    let member = match call.param("member_id") {
        Some(m) => match m.parse::<MemberId>() {
            Ok(id) => Some(id),
            Err(_) => {
                errors.add(
                    "member_id",
                    "a member id looks like mem_ and 16 letters or digits",
                );
                None
            }
        },
        None => None,
    };
    errors.into_result()?;
    let query = ActivityQuery {
        feed,
        from,
        to,
        member,
        page: page(&call.query, None)?,
    };
    let listed = api.host.access().activity(&call.who, &query).await?;
    let items: Vec<_> = listed.items.iter().map(members::activity).collect();
    data(StatusCode::OK, items)
}
