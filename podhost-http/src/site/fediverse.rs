//! The fediverse on the site, signed in: `/account/fediverse` (the account's podcasts with
//! their followers, and the actors and instances the account blocks, with the form to block
//! one and a button to lift each block) and `/account/fediverse/podcasts/{feed_id}` (a
//! podcast's followers and its episodes' comments, threaded, hidden ones too, each with Hide or
//! Show, and Block for its author). Every answer is the core's (`host.fediverse()`), the same as
//! the API's; every form carries the session's CSRF token and is answered by a redirect (303)
//! back to its page, or by the page again with what was wrong.

// The `Err` of the handlers here is the page to answer instead (one per request).
#![allow(clippy::result_large_err)]

use std::collections::HashSet;

use http::{Response, StatusCode};
use maud::{Markup, PreEscaped, html};
use podhost_core::{
    Action, EpisodeId, Error, FeedId, Principal,
    model::{
        EpisodeListQuery, FeedView, PageRequest,
        social::{Block, BlockTarget, Comment},
    },
};

use super::{
    answers::{local_path, see_other},
    paths, views,
    visit::{Page, Visit, field},
    words::Words,
};
use crate::{context::Api, response::Body};

/// How deep replies to replies are indented; deeper ones are listed at this depth (as the
/// episode's public page does).
const THREAD_INDENT: usize = 4;

/// The most podcasts or episodes the core gives at once.
const PAGE_SIZE: u32 = PageRequest::MAX_SIZE;

/// The signed-in member and the session's CSRF token, or (signed out) the sign-in form that
/// comes back to this page, answered 200 as `/account` answers it.
fn viewer<'v>(visit: &'v Visit<'_>) -> Result<(&'v Principal, &'v str), Response<Body>> {
    match &visit.session {
        Some((who, session)) => Ok((who, session.csrf.as_str())),
        None => {
            let here = visit
                .parts
                .uri
                .path_and_query()
                .map_or(paths::FEDIVERSE, |p| p.as_str());
            Err(visit.sign_in_page(
                StatusCode::OK,
                here,
                "",
                Some(&visit.text("site-fediverse-sign-in")),
            ))
        }
    }
}

/// The session's CSRF token (a form's answer has a session: [`Visit::signed_in`] checked it).
fn csrf_of<'v>(visit: &'v Visit<'_>) -> &'v str {
    visit
        .session
        .as_ref()
        .map_or("", |(_, session)| session.csrf.as_str())
}

fn csrf(token: &str) -> Markup {
    html! { input type="hidden" name=(views::CSRF_FIELD) value=(token); }
}

/// A language tag to mark text in (none when unknown).
fn lang(tag: &str) -> Option<&str> {
    Some(tag.trim()).filter(|t| !t.is_empty())
}

/// A link a remote instance gave, when it is one a browser should follow (http or https).
fn web_link(url: &str) -> Option<&str> {
    let url = url.trim();
    let (scheme, _) = url.split_once("://")?;
    (scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http")).then_some(url)
}

/// Whether the podcast is an actor of the fediverse now.
fn on_fediverse(view: &FeedView) -> bool {
    view.feed.fediverse && !view.feed.private
}

/// Every podcast the member sees, by id.
async fn all_feeds(api: &Api, who: &Principal) -> Result<Vec<FeedView>, Error> {
    let mut all = Vec::new();
    for number in 1.. {
        let page = PageRequest::new(Some(number), Some(i64::from(PAGE_SIZE)))?;
        let found = api.host.podcasts().list_feeds(who, page).await?;
        let last = found.items.len() < PAGE_SIZE as usize;
        all.extend(found.items);
        if last || all.len() >= found.total {
            break;
        }
    }
    Ok(all)
}

/// A podcast's episodes, newest first: their ids and titles.
async fn all_episodes(
    api: &Api,
    who: &Principal,
    feed: &FeedId,
) -> Result<Vec<(EpisodeId, String)>, Error> {
    let mut all = Vec::new();
    for number in 1.. {
        let query = EpisodeListQuery {
            page: PageRequest::new(Some(number), Some(i64::from(PAGE_SIZE)))?,
            ..Default::default()
        };
        let (items, total) = api
            .host
            .podcasts()
            .list_episodes_with(who, feed, &query, |page| {
                let items: Vec<(EpisodeId, String)> = page
                    .items
                    .iter()
                    .map(|e| (e.episode.id, e.episode.title.clone()))
                    .collect();
                (items, page.total)
            })
            .await?;
        let last = items.len() < PAGE_SIZE as usize;
        all.extend(items);
        if last || all.len() >= total {
            break;
        }
    }
    Ok(all)
}

/// The problems of a refused form, as the page shows them; `None` for a fault.
fn problems_of(error: &Error) -> Option<(StatusCode, Vec<String>)> {
    match error {
        Error::Invalid(fields) => Some((
            StatusCode::UNPROCESSABLE_ENTITY,
            fields
                .fields()
                .iter()
                .flat_map(|(field, messages)| messages.iter().map(move |m| format!("{field}: {m}")))
                .collect(),
        )),
        Error::Forbidden { message } => Some((StatusCode::FORBIDDEN, vec![message.clone()])),
        Error::Conflict { message } => Some((StatusCode::CONFLICT, vec![message.clone()])),
        _ => None,
    }
}

/// A page of this module in the site's layout.
fn answer(
    visit: &Visit<'_>,
    w: &Words,
    csrf: &str,
    status: StatusCode,
    title: &str,
    main: Markup,
) -> Page {
    Ok(visit.html(
        status,
        views::page(
            w,
            &views::title(title),
            visit
                .session
                .as_ref()
                .map(|(who, session)| views::SignedIn::of(who, session)),
            Some(csrf),
            main,
        ),
        &[],
    ))
}

/// `GET /account/fediverse`: the podcasts and the blocks.
pub(super) async fn overview(visit: &Visit<'_>) -> Page {
    let (who, csrf) = viewer(visit)?;
    overview_page(visit, &visit.words, who, csrf, StatusCode::OK, None, "").await
}

/// The overview with a notice on top (a refused form's problems) and `typed` in the block
/// form.
async fn overview_page(
    visit: &Visit<'_>,
    w: &Words,
    who: &Principal,
    csrf: &str,
    status: StatusCode,
    notice: Option<Markup>,
    typed: &str,
) -> Page {
    let api = visit.api;
    let feeds = all_feeds(api, who).await.map_err(|e| visit.failure(&e))?;
    let mut podcasts = Vec::with_capacity(feeds.len());
    for view in &feeds {
        let followers = if on_fediverse(view) {
            match api
                .host
                .fediverse()
                .list_followers(who, &view.feed.id)
                .await
            {
                Ok(followers) => Some(followers.len()),
                // Deleted meanwhile.
                Err(Error::NotFound { .. }) => continue,
                Err(e) => return Err(visit.failure(&e)),
            }
        } else {
            None
        };
        podcasts.push((view, followers));
    }
    let blocks = api
        .host
        .fediverse()
        .blocks(who)
        .await
        .map_err(|e| visit.failure(&e))?;
    let may_block = who.may(Action::ModerateComments);
    let title = w.text("site-fediverse");
    let main = html! {
        h1 { (title) }
        p.muted { (w.text("site-fediverse-intro")) }
        @if let Some(notice) = &notice { (notice) }
        section #podcasts {
            h2 { (w.text("site-fediverse-podcasts")) }
            @if podcasts.is_empty() {
                p.muted { (w.text("site-fediverse-no-podcasts")) }
            } @else {
                ul {
                    @for (view, followers) in &podcasts {
                        li {
                            a href=(paths::podcast_fediverse(view.feed.id.as_str())) lang=[lang(&view.feed.language)] { (view.feed.title) }
                            " · "
                            span.muted {
                                @match followers {
                                    Some(count) => (w.text_with("site-fediverse-follower-count", &[("count", (*count).into())])),
                                    None => (w.text("site-fediverse-off")),
                                }
                            }
                        }
                    }
                }
            }
        }
        (blocks_section(w, &blocks, csrf, may_block, who.sees_all(), typed))
    };
    answer(visit, w, csrf, status, &title, main)
}

/// The account's blocks: a table with a button to lift each, and the form to block.
fn blocks_section(
    w: &Words,
    blocks: &[Block],
    csrf_token: &str,
    may_block: bool,
    sees_all: bool,
    typed: &str,
) -> Markup {
    // A block holds for every podcast: only who sees them all blocks (the core's rule).
    let manage = may_block && sees_all;
    html! {
        section #blocks {
            h2 { (w.text("site-fediverse-blocks")) }
            p.muted { (w.text("site-fediverse-blocks-help")) }
            @if blocks.is_empty() {
                p.muted { (w.text("site-fediverse-blocks-none")) }
            } @else {
                table.stack {
                    thead {
                        tr {
                            th { (w.text("site-fediverse-blocked-target")) }
                            th { (w.text("site-fediverse-kind")) }
                            th { (w.text("site-fediverse-since")) }
                            // The buttons' column: no header (an empty `th` names nothing).
                            @if manage { td {} }
                        }
                    }
                    tbody {
                        @for b in blocks {
                            tr {
                                td data-label=(w.text("site-fediverse-blocked-target")) { code { (b.target.as_str()) } }
                                td data-label=(w.text("site-fediverse-kind")) {
                                    @match b.target {
                                        BlockTarget::Actor(_) => (w.text("site-fediverse-kind-actor")),
                                        BlockTarget::Instance(_) => (w.text("site-fediverse-kind-instance")),
                                    }
                                }
                                td data-label=(w.text("site-fediverse-since")) { (w.locale().date_time(b.created)) }
                                @if manage {
                                    td {
                                        form method="post" action=(paths::block_lift(&b.target.id())) {
                                            (csrf(csrf_token))
                                            button.quiet type="submit" aria-label=(w.text_with("site-fediverse-unblock-named", &[("target", b.target.as_str().into())])) { (w.text("site-fediverse-unblock")) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if manage {
                div.panel {
                    h3 { (w.text("site-fediverse-new-block")) }
                    form method="post" action=(paths::BLOCKS) {
                        (csrf(csrf_token))
                        label {
                            (w.text("site-fediverse-target"))
                            input type="text" name="target" value=(typed) required maxlength="2048" autocomplete="off" spellcheck="false";
                        }
                        button type="submit" { (w.text("site-fediverse-block")) }
                    }
                }
            } @else if may_block {
                p.muted { (w.text("site-fediverse-blocks-restricted")) }
            }
        }
    }
}

/// `GET /account/fediverse/podcasts/{feed_id}`: a podcast's followers and comments.
pub(super) async fn podcast(visit: &Visit<'_>, feed: &FeedId) -> Page {
    let (who, csrf) = viewer(visit)?;
    podcast_page(visit, &visit.words, who, csrf, feed, StatusCode::OK, None).await
}

/// What a comment's buttons need.
struct Moderation<'a> {
    w: &'a Words,
    csrf: &'a str,
    feed: &'a FeedId,
    episode: EpisodeId,
    /// Hide and Show are offered.
    hide: bool,
    /// Block is offered (the role moderates and sees every podcast).
    block: bool,
    blocks: &'a [Block],
}

/// A podcast's page with a notice on top (a refused form's problems).
async fn podcast_page(
    visit: &Visit<'_>,
    w: &Words,
    who: &Principal,
    csrf: &str,
    feed: &FeedId,
    status: StatusCode,
    notice: Option<Markup>,
) -> Page {
    let api = visit.api;
    let view = match api.host.podcasts().get_feed(who, feed).await {
        Ok(view) => view,
        Err(Error::NotFound { .. }) => return Err(visit.not_found()),
        Err(e) => return Err(visit.failure(&e)),
    };
    let followers = match api.host.fediverse().list_followers(who, feed).await {
        Ok(followers) => followers.len(),
        Err(Error::NotFound { .. }) => return Err(visit.not_found()),
        Err(e) => return Err(visit.failure(&e)),
    };
    let episodes = match all_episodes(api, who, feed).await {
        Ok(episodes) => episodes,
        Err(Error::NotFound { .. }) => return Err(visit.not_found()),
        Err(e) => return Err(visit.failure(&e)),
    };
    let mut talked = Vec::new();
    for (episode, title) in episodes {
        match api.host.fediverse().comments(who, feed, episode).await {
            Ok(comments) if comments.is_empty() => {}
            Ok(comments) => talked.push((episode, title, comments)),
            // Deleted meanwhile.
            Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(visit.failure(&e)),
        }
    }
    let blocks = api
        .host
        .fediverse()
        .blocks(who)
        .await
        .map_err(|e| visit.failure(&e))?;
    let moderates = who.may(Action::ModerateComments);
    let language = lang(&view.feed.language);
    let handle = api.host.urls().handle(feed);
    let main = html! {
        p.muted {
            a href=(paths::FEDIVERSE) { (w.text("site-fediverse")) }
            " › "
            span lang=[language] { (view.feed.title) }
        }
        h1 lang=[language] { (view.feed.title) }
        @if let Some(notice) = &notice { (notice) }
        @if on_fediverse(&view) {
            p {
                (w.rich(
                    "site-fediverse-followers",
                    &[("count", followers.into())],
                    &[
                        ("shown", html! { strong { (w.locale().number(u64::try_from(followers).unwrap_or(u64::MAX))) } }),
                        ("handle", html! { code { (handle) } }),
                    ],
                ))
            }
        } @else {
            p.muted { (w.text("site-fediverse-podcast-off")) }
        }
        section #comments {
            h2 { (w.text("site-fediverse-comments")) }
            p.muted { (w.text("site-fediverse-comments-help")) }
            @if talked.is_empty() {
                p.muted { (w.text("site-fediverse-comments-none")) }
            }
            @for (episode, title, comments) in &talked {
                @let heading = format!("episode-{episode}");
                section.panel aria-labelledby=(heading) {
                    h3 id=(heading) {
                        a href=(api.host.urls().episode_page(feed, *episode)) lang=[language] { (title) }
                    }
                    p.muted { (w.text_with("site-fediverse-comment-count", &[("count", comments.len().into())])) }
                    (threads(&Moderation {
                        w,
                        csrf,
                        feed,
                        episode: *episode,
                        hide: moderates,
                        block: moderates && who.sees_all(),
                        blocks: &blocks,
                    }, comments))
                }
            }
        }
    };
    answer(visit, w, csrf, status, &view.feed.title, main)
}

/// An episode's comments as threads: those that answer the episode (or a comment that is not
/// there) first, each followed by its answers; any that no thread reaches after them.
fn threads(m: &Moderation<'_>, comments: &[Comment]) -> Markup {
    let ids: HashSet<&str> = comments.iter().map(|c| c.id.as_str()).collect();
    let is_root = |c: &Comment| {
        c.parent
            .as_deref()
            .is_none_or(|p| p == c.id || !ids.contains(p))
    };
    // What the threads reach, so that nothing (a loop of answers) goes unseen.
    let mut reached: HashSet<&str> = HashSet::new();
    let mut next: Vec<&str> = comments
        .iter()
        .filter(|c| is_root(c))
        .map(|c| c.id.as_str())
        .collect();
    while let Some(id) = next.pop() {
        if reached.insert(id) {
            next.extend(
                comments
                    .iter()
                    .filter(|c| c.parent.as_deref() == Some(id) && c.id != id)
                    .map(|c| c.id.as_str()),
            );
        }
    }
    let roots: Vec<&Comment> = comments.iter().filter(|c| is_root(c)).collect();
    let stray: Vec<&Comment> = comments
        .iter()
        .filter(|c| !reached.contains(c.id.as_str()))
        .collect();
    html! {
        (thread(m, comments, &roots, 0))
        @if !stray.is_empty() {
            ol.comments {
                @for c in stray { li { (comment(m, c)) } }
            }
        }
    }
}

/// The comments `answers` at `depth`, each followed by its own answers.
fn thread(m: &Moderation<'_>, comments: &[Comment], answers: &[&Comment], depth: usize) -> Markup {
    let answers_to = |parent: &Comment| -> Vec<&Comment> {
        comments
            .iter()
            .filter(|c| c.parent.as_deref() == Some(parent.id.as_str()) && c.id != parent.id)
            .collect()
    };
    html! {
        @if !answers.is_empty() {
            ol.comments {
                @for c in answers {
                    li {
                        (comment(m, c))
                        @if depth < THREAD_INDENT {
                            (thread(m, comments, &answers_to(c), depth + 1))
                        }
                    }
                }
            }
            // Past the indent, deeper answers follow their thread's last indented comment.
            @if depth >= THREAD_INDENT {
                @for c in answers {
                    (thread(m, comments, &answers_to(c), depth))
                }
            }
        }
    }
}

/// One comment: who wrote it and when, what it says (cleaned when it arrived), and its
/// buttons.
fn comment(m: &Moderation<'_>, c: &Comment) -> Markup {
    let w = m.w;
    let author = w.text_with(
        "comment-by",
        &[
            ("name", (&c.author.name).into()),
            ("handle", (&c.author.handle).into()),
        ],
    );
    let blocked = m.blocks.iter().any(|b| b.target.covers(&c.author.id));
    html! {
        article.comment id=(c.id) aria-label=(c.author.name) {
            p.meta {
                // The stylesheet sets a dot between the parts (`.meta`); a space in text.
                @match web_link(&c.author.url) {
                    Some(url) => a href=(url) rel="nofollow ugc noopener" { (author) },
                    None => span { (author) },
                }
                " "
                time datetime=(c.published.to_string()) { (w.locale().date_time(c.published)) }
                @if let Some(url) = c.url.as_deref().and_then(web_link) {
                    " "
                    a href=(url) rel="nofollow ugc noopener" { (w.text("comment-on-instance")) }
                }
                @if c.hidden {
                    " "
                    strong { (w.text("site-fediverse-hidden")) }
                }
                @if blocked {
                    " "
                    strong { (w.text("site-fediverse-blocked")) }
                }
            }
            div.notes { (PreEscaped(&c.content)) }
            @if m.hide || (m.block && !blocked) {
                // Not a `p`: a paragraph may not hold a form.
                div.actions {
                    @if m.hide {
                        @let (path, label, named) = if c.hidden {
                            (paths::comment_show(m.feed.as_str(), m.episode, &c.id), "site-fediverse-show", "site-fediverse-show-named")
                        } else {
                            (paths::comment_hide(m.feed.as_str(), m.episode, &c.id), "site-fediverse-hide", "site-fediverse-hide-named")
                        };
                        form.inline method="post" action=(path) {
                            (csrf(m.csrf))
                            button.quiet type="submit" aria-label=(w.text_with(named, &[("name", (&c.author.name).into())])) { (w.text(label)) }
                        }
                    }
                    @if m.block && !blocked {
                        " "
                        form.inline method="post" action=(paths::BLOCKS) {
                            (csrf(m.csrf))
                            input type="hidden" name="target" value=(c.author.id);
                            input type="hidden" name="back" value=(format!("{}#{}", paths::podcast_fediverse(m.feed.as_str()), c.id));
                            button.quiet type="submit" aria-label=(w.text_with("site-fediverse-block-named", &[("handle", (&c.author.handle).into())])) { (w.text("site-fediverse-block")) }
                        }
                    }
                }
            }
        }
    }
}

/// `POST /account/fediverse/podcasts/{feed_id}/episodes/{episode_id}/comments/{comment_id}/hide`
/// (and `/show`): back to the podcast's page, at the comment.
pub(super) async fn set_hidden(
    visit: &Visit<'_>,
    feed: &FeedId,
    episode: EpisodeId,
    comment: &str,
    hidden: bool,
) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    match api
        .host
        .fediverse()
        .set_comment_hidden(&who, feed, episode, comment, hidden)
        .await
    {
        Ok(changed) => Ok(see_other(
            api,
            &format!("{}#{}", paths::podcast_fediverse(feed.as_str()), changed.id),
        )),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => {
            let Some((status, problems)) = problems_of(&e) else {
                return Err(visit.failure(&e));
            };
            let w = visit.words.on(paths::podcast_fediverse(feed.as_str()));
            let notice = views::problems(&w.text("site-fediverse-comment-not-changed"), &problems);
            podcast_page(visit, &w, &who, csrf_of(visit), feed, status, Some(notice)).await
        }
    }
}

/// `POST /account/fediverse/blocks`: `target` (an actor's URL or an instance's host name), and
/// `back` (a fediverse page of this site to go back to; the overview when none).
pub(super) async fn block(visit: &Visit<'_>) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    let target = field(&visit.form, "target").unwrap_or("");
    let back = field(&visit.form, "back")
        .filter(|back| local_path(back) && back.starts_with(paths::FEDIVERSE))
        .map_or_else(|| format!("{}#blocks", paths::FEDIVERSE), str::to_string);
    match api.host.fediverse().block(&who, target).await {
        Ok(_) => Ok(see_other(api, &back)),
        Err(e) => refused(visit, &who, "site-fediverse-not-blocked", e, target).await,
    }
}

/// `POST /account/fediverse/blocks/{block_id}/lift`.
pub(super) async fn unblock(visit: &Visit<'_>, block_id: &str) -> Page {
    let who = visit.signed_in()?;
    let api = visit.api;
    let blocks = api
        .host
        .fediverse()
        .blocks(&who)
        .await
        .map_err(|e| visit.failure(&e))?;
    let Some(found) = blocks.iter().find(|b| b.target.id() == block_id) else {
        return Err(visit.not_found());
    };
    match api
        .host
        .fediverse()
        .unblock(&who, found.target.as_str())
        .await
    {
        Ok(()) => Ok(see_other(api, &format!("{}#blocks", paths::FEDIVERSE))),
        Err(Error::NotFound { .. }) => Err(visit.not_found()),
        Err(e) => refused(visit, &who, "site-fediverse-not-unblocked", e, "").await,
    }
}

/// The overview again with the problems of a refused form, or an error page.
async fn refused(
    visit: &Visit<'_>,
    who: &Principal,
    title_id: &str,
    error: Error,
    typed: &str,
) -> Page {
    let Some((status, problems)) = problems_of(&error) else {
        return Err(visit.failure(&error));
    };
    let w = visit.words.on(paths::FEDIVERSE.to_string());
    let notice = views::problems(&w.text(title_id), &problems);
    overview_page(visit, &w, who, csrf_of(visit), status, Some(notice), typed).await
}
