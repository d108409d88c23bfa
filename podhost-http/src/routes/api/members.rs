//! The account's members and its record of who did what.

use podhost_core::{Action, MemberId};

use crate::{
    routes::{BodyKind, Shape, Spec, declare::endpoints, query::*},
    wire::{
        self,
        schema::{example, schema},
    },
};

endpoints! {
    /// The account's members, their roles, and who did what.
    pub enum MemberEndpoint: Api, tag "members";

    /// the account's members, oldest first, invited ones included
    ListMembers {} = GET "/api/members",
        Spec::token(Action::ReadMembers)
            .addition()
            .answers(200, "the members", Shape::DataList(schema::<wire::members::MemberRecord>()));

    /// invite a person with a role: the answer holds the invitation's URL (one use, 7 days), shown only here
    InviteMember {} = POST "/api/members",
        Spec::token(Action::ManageMembers)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::members::NewMember>(),
                required: true,
            })
            .makes(&["member_id"], "/data/id")
            .answers(201, "the member, status invited, with invitation_url", Shape::Data(schema::<wire::members::InvitedMember>()));

    /// one member
    GetMember { member_id: MemberId } = GET "/api/members/{member_id}",
        Spec::token(Action::ReadMembers)
            .addition()
            .answers(200, "the member", Shape::Data(schema::<wire::members::MemberRecord>()));

    /// change a member's name, role or podcasts (only an owner makes, changes or demotes owners; an account keeps an owner: 409)
    UpdateMember { member_id: MemberId } = PUT "/api/members/{member_id}",
        Spec::token(Action::ManageMembers)
            .addition()
            .body(BodyKind::Json {
                schema: example::<wire::members::MemberUpdate>(),
                required: true,
            })
            .answers(200, "the member", Shape::Data(schema::<wire::members::MemberRecord>()))
            .errors(&[409]);

    /// remove a member: their tokens and grants stop on every server within a second (the last owner: 409)
    RemoveMember { member_id: MemberId } = DELETE "/api/members/{member_id}",
        Spec::token(Action::ManageMembers)
            .addition()
            .answers(204, "removed", Shape::Empty)
            .errors(&[409]);

    /// who did what: the account's changes, newest first (the newest 20,000 are kept)
    ListActivity {} = GET "/api/activity",
        Spec::token(Action::ReadMembers)
            .addition()
            .query(&[FEED_ID, SINCE, UNTIL, MEMBER_ID, PAGE_NUMBER, PAGE_SIZE])
            .answers(200, "the changes, newest first", Shape::DataList(schema::<wire::members::ActivityRecord>()));
}
